import Foundation
import Logging
import NIOCore

/// Sits first on the listening socket, so every accepted connection passes it before anything is built for it (no
/// TLS or HTTP handlers, no task): it counts the connection in the `ConnectionRegistry` there, sheds idle ones in
/// batches near the limit, and closes at once what the registry drops. It accepts in larger batches than NIO's
/// default, so a flood drains from the kernel's queue before the queue fills and new clients' SYNs are dropped.
///
/// Should the process run out of descriptors all the same (something else opened files meanwhile), it sheds a batch
/// and pauses accepting for a few milliseconds, instead of the second NIO's `AcceptBackoffHandler` would wait.
///
/// It keeps accepting while the server's task that takes new connections lags: that task runs on Swift's shared
/// threads, and NIO stops reading the listening socket once ten accepted connections wait for it. Every connection is
/// counted, guarded and timed on its event loop from its accept, so a busy process (or a flood) leaves silent
/// connections waiting in the kernel's queue no longer, where no deadline reached them and `/health` queued behind.
/// The registry's capacity bounds what is held.
final class AcceptGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = Never

    /// Connections accepted per wake-up of the listening socket (NIO's default is 4).
    static let acceptsPerRead: UInt = 16
    /// The pause after running out of descriptors: long enough for the shed connections' closes to happen.
    private static let pauseAfterShedding = TimeAmount.milliseconds(5)
    /// The pause while shed connections' closes catch up.
    private static let pauseForCloses = TimeAmount.milliseconds(1)
    /// The pause when nothing could be shed (every connection busy): short of NIO's second, still not a spin.
    private static let pauseWhenAllBusy = TimeAmount.milliseconds(100)

    private let registry: ConnectionRegistry
    private let logger: Logger
    private var paused: Scheduled<Void>?
    private var readWanted = false

    init(registry: ConnectionRegistry, logger: Logger) {
        self.registry = registry
        self.logger = logger
    }

    /// Puts a gate first on the listening socket `channel` (on its event loop).
    static func install(on channel: any Channel, registry: ConnectionRegistry, logger: Logger) async throws {
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(AcceptGate(registry: registry, logger: logger), position: .first)
        }.get()
        try await channel.setOption(ChannelOptions.maxMessagesPerRead, value: acceptsPerRead).get()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        switch registry.admit(child) {
        case .held, .refused:
            // A refused one is told why by its own set-up (plain HTTP gets a 503).
            context.fireChannelRead(data)
        case .dropped:
            child.close(promise: nil)
        }
        // The shed connections' descriptors are free only once their closes happen: until most have, the next
        // connections wait in the kernel's queue (a millisecond or two), rather than run the process out of them.
        if registry.closesBehind { pause(context, for: Self.pauseForCloses) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        // Read on from here, whatever the handlers behind say: NIO's async wrapper withholds reads while its consumer
        // is behind (see the type's note); our own pause still holds.
        read(context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE].contains(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        let shed = registry.shedBatch()
        logger.warning("out of descriptors: shedding idle connections", metadata: ["closed": "\(shed)"])
        pause(context, for: shed > 0 ? Self.pauseAfterShedding : Self.pauseWhenAllBusy)
    }

    func read(context: ChannelHandlerContext) {
        guard paused == nil else {
            readWanted = true
            return
        }
        context.read()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        paused?.cancel()
        paused = nil
    }

    private func pause(_ context: ChannelHandlerContext, for time: TimeAmount) {
        guard paused == nil else { return }
        paused = context.eventLoop.assumeIsolated().scheduleTask(in: time) { [self] in
            paused = nil
            guard readWanted else { return }
            readWanted = false
            context.read()
        }
    }
}

@available(*, unavailable)
extension AcceptGate: Sendable {}
