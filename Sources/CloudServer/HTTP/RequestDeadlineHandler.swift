import Logging
import NIOCore
import NIOHTTP1

/// Closes a connection that does not deliver a request in time, as nginx's `client_header_timeout` and
/// `client_body_timeout` do: the whole request head (TLS handshake included) must arrive within the timeout of the
/// connection opening or of the previous answer, and a body may pause at most that long between reads. Once a request
/// is complete the connection waits for its answer however long it takes: a push long-poll is never cut.
///
/// It also tells the connection's `ConnectionRegistry` entry when the connection is busy (a request being read or
/// answered) and when idle, so a cloud short of descriptors closes idle connections, never a long-poll.
///
/// It sits right behind NIO's HTTP/1 request decoder (see `insert(into:timeout:entry:logger:)`), so it sees requests
/// and answers as NIOHTTP1's parts.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount?
    private let entry: ConnectionRegistry.Entry?
    private let logger: Logger
    private var deadline: Scheduled<Void>?
    /// Whether a request's head arrived and its end did not yet.
    private var readingBody = false
    /// Complete requests whose answers are not yet written.
    private var awaitingAnswers = 0

    /// A handler closing at `timeout` (never when nil) and telling `entry` when the connection is busy.
    init(timeout: TimeAmount?, entry: ConnectionRegistry.Entry?, logger: Logger) {
        self.timeout = timeout
        self.entry = entry
        self.logger = logger
    }

    /// Puts a new deadline handler right after the HTTP/1 request decoder of `channel`'s pipeline (on its event loop);
    /// the first request's clock started when the connection `opened`.
    static func insert(
        into channel: any Channel, timeout: TimeAmount?, opened: NIODeadline = .now(), entry: ConnectionRegistry.Entry?, logger: Logger
    ) throws {
        let operations = channel.pipeline.syncOperations
        let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let handler = RequestDeadlineHandler(timeout: timeout, entry: entry, logger: logger)
        handler.opened = opened
        try operations.addHandler(handler, position: .after(decoder))
    }

    /// When the connection was accepted: the first request's head must arrive within the timeout of it.
    private var opened: NIODeadline?

    func handlerAdded(context: ChannelHandlerContext) {
        // The clock starts when the connection is accepted: a client that never speaks is closed too.
        arm(context, from: opened)
        opened = nil
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        entry?.note(busy: true)
        switch unwrapInboundIn(data) {
        case .head:
            readingBody = true
            arm(context)
        case .body:
            arm(context)
        case .end:
            readingBody = false
            awaitingAnswers += 1
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            awaitingAnswers = max(0, awaitingAnswers - 1)
            // Idle again (or still reading the next, pipelined request): the next request has its own deadline.
            if awaitingAnswers == 0 || readingBody { arm(context) }
            entry?.note(busy: awaitingAnswers > 0 || readingBody)
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, from start: NIODeadline? = nil) {
        disarm()
        guard let timeout else { return }
        let loop = context.eventLoop.assumeIsolatedUnsafeUnchecked()
        deadline = loop.scheduleTask(deadline: (start ?? .now()) + timeout) { [weak self] in
            guard let self else { return }
            self.deadline = nil
            guard self.readingBody || self.awaitingAnswers == 0 else { return }
            self.logger.debug(
                "closing a connection without a complete request",
                metadata: ["peer": "\(context.channel.remoteAddress?.ipAddress ?? "?")"])
            context.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension RequestDeadlineHandler: Sendable {}
