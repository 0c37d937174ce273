import CloudServer
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// `todo-bench tls`: the cloud serving HTTPS in a child process: handshake + request latency on fresh connections,
/// and its resident memory holding 1,000 idle TLS connections (handshakes done, nothing sent).
enum TLSBench {
    static func run(idleConnections: Int = 1000, handshakes: Int = 500) async throws {
        print("== TLS benchmark (\(ProcessInfo.processInfo.activeProcessorCount) cores; the cloud in a child process, P-256 certificate) ==")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-tls-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try makeCertificate(in: directory)
        let port = Int.random(in: 20_000...40_000)
        let data = directory.appendingPathComponent("cloud")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        // No cap (every connection comes from 127.0.0.1) and a deadline long enough to hold the idle ones meanwhile.
        server.arguments = [
            "_server", "\(port)", data.path, "--tls-cert", certificate.path, "--tls-key", key.path,
            "--max-connections-per-address", "0", "--idle-timeout", "600",
        ]
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let started = ContinuousClock.now
        while ServerLockFile.running(in: data) == nil {
            guard server.isRunning, ContinuousClock.now - started < .seconds(30) else { throw BenchError("the TLS cloud did not start") }
            try await Task.sleep(for: .milliseconds(50))
        }

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate.path))
        let context = try NIOSSLContext(configuration: tls)
        let client = BenchTLSClient(port: port, context: context)

        // Fresh connection each time: TCP connect, TLS handshake, GET /health, its answer.
        for _ in 0..<20 { _ = try await client.handshakeAndRequest() }
        var samples: [Double] = []
        for _ in 0..<handshakes { samples.append(try await client.handshakeAndRequest()) }
        samples.sort()
        print(String(
            format: "TLS handshake + GET /health on a new connection (%d, sequential): p50 %.2f ms, p99 %.2f ms",
            handshakes, percentile(samples, 0.5), percentile(samples, 0.99)))

        let pid = server.processIdentifier
        let before = ServerBench.residentMegabytes(pid: pid)
        var idle: [any Channel] = []
        let opening = ContinuousClock.now
        for batch in stride(from: 0, to: idleConnections, by: 50) {
            idle += try await withThrowingTaskGroup(of: (any Channel).self) { group in
                for _ in batch..<min(batch + 50, idleConnections) { group.addTask { try await client.openIdle() } }
                var opened: [any Channel] = []
                for try await channel in group { opened.append(channel) }
                return opened
            }
        }
        let openSeconds = seconds(since: opening)
        try await Task.sleep(for: .seconds(1))
        let holding = ServerBench.residentMegabytes(pid: pid)
        let healthWhileHolding = try await client.handshakeAndRequest()
        print(String(
            format: "cloud RSS with %d idle TLS connections: %.1f MB (%.1f MB before them, %.1f KB each; opened in %.2f s)  (target <= 120 MB)",
            idle.count, holding, before, (holding - before) * 1024 / Double(max(idle.count, 1)), openSeconds))
        print(String(format: "handshake + GET /health meanwhile: %.2f ms", healthWhileHolding))
        print(String(format: "cloud peak RSS over the run: %.1f MB", peakRSS(pid: pid)))
        for channel in idle { try? await channel.close() }
    }

    /// A self-signed P-256 certificate for `localhost` and 127.0.0.1, made with openssl.
    static func makeCertificate(in directory: URL) throws -> (certificate: URL, key: URL) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cloud.pem")
        let key = directory.appendingPathComponent("cloud.key")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.path, "-out",
            certificate.path, "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw BenchError("openssl could not make a certificate (is it installed?)") }
        return (certificate, key)
    }
}

/// A certificate and key the bench cloud serves HTTPS with (self-signed: devices trust it as their `--ca-file`).
struct BenchCertificate {
    let certificate: URL
    let key: URL

    /// Makes one with openssl in `directory`.
    init(in directory: URL) throws {
        (certificate, key) = try TLSBench.makeCertificate(in: directory)
    }
}

/// TLS connections to the bench cloud over NIO and swift-nio-ssl, verifying its certificate.
struct BenchTLSClient: Sendable {
    let port: Int
    let context: NIOSSLContext

    /// Connects, completes a handshake and leaves the connection idle; returns it.
    func openIdle() async throws -> any Channel {
        let (channel, handshake, _) = try await connect(request: nil)
        try await handshake.get()
        return channel
    }

    /// Connects, handshakes, sends `GET /health` and waits for the answer's head; returns the milliseconds it took.
    func handshakeAndRequest() async throws -> Double {
        let start = ContinuousClock.now
        let (channel, _, answered) = try await connect(request: "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        try await answered.get()
        let elapsed = seconds(since: start) * 1000
        try? await channel.close()
        return elapsed
    }

    private func connect(request: String?) async throws -> (any Channel, EventLoopFuture<Void>, EventLoopFuture<Void>) {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = loop.makePromise(of: Void.self)
        let answered = loop.makePromise(of: Void.self)
        let context = self.context
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                    try channel.pipeline.syncOperations.addHandler(
                        BenchTLSProbe(request: request, handshake: handshake, answered: answered))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return (channel, handshake.futureResult, answered.futureResult)
    }
}

/// Says when the handshake is done, then (if it has one) sends a request and says when its answer's head is in.
private final class BenchTLSProbe: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let request: String?
    private let handshake: EventLoopPromise<Void>
    private let answered: EventLoopPromise<Void>
    private var received = ""
    private var done = false

    init(request: String?, handshake: EventLoopPromise<Void>, answered: EventLoopPromise<Void>) {
        self.request = request
        self.handshake = handshake
        self.answered = answered
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            handshake.succeed()
            if let request { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: request)), promise: nil) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += String(buffer: unwrapInboundIn(data))
        if !done, received.contains("\r\n\r\n") {
            done = true
            answered.succeed()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(BenchError("TLS connection failed: \(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(BenchError("the cloud closed the connection"))
        context.fireChannelInactive()
    }

    private func fail(_ error: BenchError) {
        handshake.fail(error)
        if !done {
            done = true
            answered.fail(error)
        }
    }
}
