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
        guard case .head(let head) = unwrapInboundIn(data), !Self.serves(head.method),
            !CalDAVRoutes.serves(method: head.method.rawValue, uri: head.uri)
        else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        // Written as bytes below NIO's response encoder, which leaves the length and body off an answer to CONNECT.
        let answer = ByteBuffer(string: "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(Self.body.utf8.count)\r\nConnection: close\r\n\r\n"
            + Self.body)
        guard let below = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            context.close(promise: nil)
            return
        }
        below.writeAndFlush(NIOAny(answer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

@available(*, unavailable)
extension UnservedMethodHandler: Sendable {}
