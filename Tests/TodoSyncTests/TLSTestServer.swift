import CloudClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import TLSTestSupport

/// A small https server on a loopback port: presents the certificate a test gives it and answers every request
/// with `200 OK` and the body `ok`.
final class TLSTestServer: Sendable {
    let port: Int
    private let channel: any Channel

    /// Serves `issued` (certificate and key files) on `host` (`127.0.0.1` or `::1`).
    init(_ issued: TestCertificateAuthority.Issued, host: String = "127.0.0.1") async throws {
        let certificates = try NIOSSLCertificate.fromPEMFile(issued.certificate.path)
        let key = try NIOSSLPrivateKey(file: issued.key.path, format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        let context = try NIOSSLContext(configuration: configuration)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture(withResultOf: {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(AnswerOK())
                })
            }
            .bind(host: host, port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Stops listening.
    func stop() async { try? await channel.close() }

    /// Answers `ok` to each request head (the requests of these tests have no body).
    private final class AnswerOK: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private var seen = ""

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            seen += buffer.readString(length: buffer.readableBytes) ?? ""
            while let end = seen.range(of: "\r\n\r\n") {
                seen.removeSubrange(seen.startIndex..<end.upperBound)
                let answer = context.channel.allocator.buffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}
