import NIOCore
import NIOHTTP1

/// Answers a request whose method the cloud never serves (`CONNECT`, `PUT`, `OPTIONS`, anything but `GET`, `HEAD`
/// and `POST`) at once with a complete `405` and closes the connection, instead of passing it on. A `CONNECT` would
/// otherwise leave NIO's decoder waiting for a tunnel that never comes, holding the connection to its deadline.
///
/// It sits right behind NIO's HTTP/1 request decoder, in front of everything else that reads requests.
final class UnservedMethodHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether some route answers `method`.
    static func serves(_ method: HTTPMethod) -> Bool {
        switch method {
        case .GET, .HEAD, .POST: true
        default: false
        }
    }
    private static let body = "this cloud answers GET, HEAD and POST only\n"

    /// Whether a refused request was answered: what follows on the connection is dropped.
    private var refused = false

    /// Puts a new handler right after the HTTP/1 request decoder of `channel`'s pipeline (on its event loop).
    static func insert(into channel: any Channel) throws {
        let operations = channel.pipeline.syncOperations
        let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        try operations.addHandler(UnservedMethodHandler(), position: .after(decoder))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(let head) = unwrapInboundIn(data), !Self.serves(head.method) else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        var headers = HTTPHeaders()
        headers.add(name: "Allow", value: "GET, HEAD, POST")
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(Self.body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        let version = head.version.major == 1 ? head.version : .http1_1
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .methodNotAllowed, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: Self.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

@available(*, unavailable)
extension UnservedMethodHandler: Sendable {}
