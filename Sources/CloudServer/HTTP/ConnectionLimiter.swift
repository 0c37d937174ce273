import Foundation
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Counts the open connections of each client address and refuses those over the cap: a plain-HTTP client gets a
/// `503` with `Retry-After` and the connection closed, a TLS client a clean close (nothing can be said before the
/// handshake). Trusted proxies (`--trusted-proxy`) are not counted: every connection through one is the proxy's, and
/// the proxy limits its own clients.
final class ConnectionLimiter: Sendable {
    private let cap: Int
    private let exempt: TrustedProxies
    private let open = Mutex<[String: Int]>([:])

    init(cap: Int, exempts: TrustedProxies) {
        self.cap = cap
        exempt = exempts
    }

    /// Counts a new connection from `address` and returns true, or returns false when that address is at the cap.
    func admit(_ address: String) -> Bool {
        guard cap > 0, !exempt.contains(address) else { return true }
        return open.withLock { open in
            let count = open[address, default: 0]
            guard count < cap else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// Forgets a connection `admit` counted.
    func release(_ address: String) {
        guard cap > 0, !exempt.contains(address) else { return }
        open.withLock { open in
            let count = open[address, default: 1] - 1
            open[address] = count > 0 ? count : nil
        }
    }

    /// Counts the connection on `channel` or, over the cap, puts a handler in front of everything that answers and
    /// closes it; returns whether it was admitted. Runs on the channel's event loop while it is set up.
    func guardConnection(_ channel: any Channel, plainHTTP: Bool, logger: Logger) throws -> Bool {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        guard admit(address) else {
            logger.notice("refusing a connection over the per-address cap", metadata: ["peer": "\(address)", "cap": "\(cap)"])
            try OverCapHandler.refuse(channel, plainHTTP: plainHTTP, reason: "too many connections from this address; retry\n")
            return false
        }
        channel.closeFuture.whenComplete { _ in self.release(address) }
        return true
    }
}

/// A child channel set-up that passes every accepted connection through the per-address cap and the cloud's
/// connection registry, and leaves the rest for its first bytes (`FirstBytesHandler`): then `Base` (TLS, HTTP) sets
/// it up, and the unserved-method answer and the request deadline go behind its HTTP decoder. A flood of silent
/// connections thus never builds a TLS or HTTP pipeline, nor tears one down when it is shed.
struct LimitedServerChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = DeferredConnection<Base.Value>
    let base: Base
    let limiter: ConnectionLimiter
    let registry: ConnectionRegistry
    let requestTimeout: TimeAmount?
    let plainHTTP: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture { () -> Value in
            let refused = DeferredConnection<Base.Value>(channel: channel, value: channel.eventLoop.makeSucceededFuture(nil))
            guard try limiter.guardConnection(channel, plainHTTP: plainHTTP, logger: logger) else { return refused }
            // Counted when it was accepted (`AcceptGate`).
            guard let entry = registry.claim(channel) else {
                try OverCapHandler.refuse(channel, plainHTTP: plainHTTP, reason: "the cloud is at its connection limit; retry\n")
                return refused
            }
            let opened = NIODeadline.now()
            let promise = channel.eventLoop.makePromise(of: Base.Value?.self)
            let waiter = FirstBytesHandler(promise: promise, timeout: requestTimeout, logger: logger) { channel in
                base.setup(channel: channel, logger: logger).flatMapThrowing { value in
                    try RequestDeadlineHandler.insert(into: channel, timeout: requestTimeout, opened: opened, entry: entry, logger: logger)
                    try UnservedMethodHandler.insert(into: channel)
                    return value
                }
            }
            do {
                try channel.pipeline.syncOperations.addHandler(waiter)
            } catch {
                // Closed before the handler was in (a flood's connection shed at once): nothing will complete the
                // promise, and an unfulfilled promise is a leak (a trap in debug builds, a stuck task in release).
                promise.succeed(nil)
                throw error
            }
            return DeferredConnection(channel: channel, value: promise.futureResult)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard let built = try? await value.value.get() else { return }
        await base.handle(value: built, logger: logger)
    }
}

/// Sits alone in front of a refused connection: says 503 (plain HTTP only) and closes.
private final class OverCapHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private let plainHTTP: Bool
    private let answer: ByteBuffer

    init(plainHTTP: Bool, reason: String) {
        self.plainHTTP = plainHTTP
        answer = ByteBuffer(
            string: "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\nContent-Type: text/plain\r\n"
                + "Content-Length: \(reason.utf8.count)\r\n\r\n\(reason)")
    }

    /// Puts a refusing handler in front of everything on `channel`.
    static func refuse(_ channel: any Channel, plainHTTP: Bool, reason: String) throws {
        try channel.pipeline.syncOperations.addHandler(OverCapHandler(plainHTTP: plainHTTP, reason: reason), position: .first)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Whatever the client sends is dropped.
    }

    private func refuse(_ context: ChannelHandlerContext) {
        guard plainHTTP else {
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(answer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    typealias OutboundOut = ByteBuffer
}

@available(*, unavailable)
extension OverCapHandler: Sendable {}
