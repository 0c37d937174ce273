import HummingbirdCore
import Logging
import NIOCore

/// A connection whose TLS and HTTP handlers are built when its first bytes arrive: until then it holds only a
/// `FirstBytesHandler`, so a silent connection costs a socket and one small handler, and shedding it costs nothing
/// to tear down. `value` is the built connection, or nil when it closed first.
struct DeferredConnection<Value: Sendable>: ServerChildChannelValue {
    let channel: any Channel
    let value: EventLoopFuture<Value?>
}

/// Waits for a connection's first bytes, then builds its pipeline (`build`), passes those bytes on to it and steps
/// aside. A connection that says nothing within `timeout` of opening is closed, as is one still silent when the
/// cloud shuts down.
final class FirstBytesHandler<Value: Sendable>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State { case waiting, building, built }

    private let build: (any Channel) -> EventLoopFuture<Value>
    private let promise: EventLoopPromise<Value?>
    private let timeout: TimeAmount?
    private let logger: Logger
    private var state = State.waiting
    private var deadline: Scheduled<Void>?
    /// What arrived while the pipeline was being built, passed on once it is.
    private var held: [NIOAny] = []
    private var finished = false

    /// A handler that completes `promise` with what `build` makes of the channel (nil if it closes first).
    init(
        promise: EventLoopPromise<Value?>, timeout: TimeAmount?, logger: Logger, build: @escaping (any Channel) -> EventLoopFuture<Value>
    ) {
        self.promise = promise
        self.timeout = timeout
        self.logger = logger
        self.build = build
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        finish(nil)
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        finish(nil)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .built:
            context.fireChannelRead(data)
        case .building:
            held.append(data)
        case .waiting:
            state = .building
            held.append(data)
            disarm()
            build(context.channel).assumeIsolated().whenComplete { [self] result in
                switch result {
                case .success(let value):
                    state = .built
                    finish(value)
                    let reads = held
                    held = []
                    for read in reads { context.fireChannelRead(read) }
                    context.fireChannelReadComplete()
                    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                case .failure(let error):
                    logger.debug("could not set a connection up", metadata: ["error": "\(error)"])
                    finish(nil)
                    context.close(promise: nil)
                }
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if state == .built { context.fireChannelReadComplete() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Shutting down, or the client closed its side (the cloud allows half-closure): a connection that never
        // asked anything has nothing to finish.
        if state == .waiting, event is ChannelShouldQuiesceEvent || (event as? ChannelEvent) == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard state == .built else {
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(error)
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard let timeout, deadline == nil, state == .waiting else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            deadline = nil
            guard state == .waiting else { return }
            logger.debug("closing a connection that sent nothing", metadata: ["peer": "\(context.channel.remoteAddress?.ipAddress ?? "?")"])
            context.close(promise: nil)
        }
    }

    /// Completes the promise, once.
    private func finish(_ value: Value?) {
        guard !finished else { return }
        finished = true
        promise.succeed(value)
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension FirstBytesHandler: Sendable {}
