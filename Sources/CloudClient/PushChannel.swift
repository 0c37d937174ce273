import CloudModel
import Foundation

/// The device's push channel: `tokens/create` + `tokens/register`, then a long-poll loop on the courier URL.
///
/// Reconnects with exponential backoff after a failure; notifications come out of `notifications`.
public final class PushChannel: Sendable {
    /// Something the channel saw: a push, or (re)connection after a gap in which pushes may have been missed.
    public enum Event: Sendable, Hashable {
        /// The courier answers again (first connect or after a failure); pushes may have been missed.
        case connected
        /// A notification arrived.
        case notification(PushNotification)
        /// The cloud refused the session while the channel registered again (revoked, password changed, account
        /// removed, expired): told once per refusal streak, with the cloud's words; the channel keeps trying slowly.
        case sessionEnded(String)
    }

    private let client: CloudClient
    private let pollTimeout: Int
    private let minimumBackoff: Double
    private let maximumBackoff: Double
    private let task = LockedValue<Task<Void, Never>?>(nil)

    /// A channel polling through `client`, each poll held up to `pollTimeout` seconds.
    public init(client: CloudClient, pollTimeout: Int = 25, minimumBackoff: Double = 0.2, maximumBackoff: Double = 15) {
        self.client = client
        self.pollTimeout = pollTimeout
        self.minimumBackoff = minimumBackoff
        self.maximumBackoff = maximumBackoff
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Starts polling (once) and returns the stream of events; it finishes when `stop()` is called.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let loop = Task { [client, pollTimeout, minimumBackoff, maximumBackoff] in
            await Self.run(
                client: client, pollTimeout: pollTimeout, minimumBackoff: minimumBackoff, maximumBackoff: maximumBackoff,
                continuation: continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in loop.cancel() }
        task.withLock { old in
            old?.cancel()
            old = loop
        }
        return stream
    }

    /// Only the notifications, as an `AsyncStream` of `PushNotification`.
    public func notifications() -> AsyncStream<PushNotification> {
        let events = events()
        return AsyncStream { continuation in
            let forward = Task {
                for await event in events {
                    if case .notification(let push) = event { continuation.yield(push) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }

    /// Stops polling and finishes the stream.
    public func stop() { task.withLock { $0?.cancel() } }

    /// The longest the channel waits before polling again, whatever the cloud asks (`retryAfter`, `Retry-After`).
    public static let maximumRetryDelay: Double = 900

    /// Seconds to wait after a failure: the backoff with its jitter, or longer when the cloud asked for it, never
    /// more than `maximumRetryDelay` (a value from the network may be huge, infinite, negative or not a number).
    public static func retryDelay(backoff: Double, jitter: Double, retryAfter: Double?) -> Double {
        var asked = retryAfter ?? 0
        if asked.isNaN || asked < 0 { asked = 0 }
        let own = backoff * jitter
        let delay = max(own.isFinite ? own : maximumRetryDelay, asked)
        return min(max(delay, 0), maximumRetryDelay)
    }

    private static func run(
        client: CloudClient, pollTimeout: Int, minimumBackoff: Double, maximumBackoff: Double,
        continuation: AsyncStream<Event>.Continuation
    ) async {
        var backoff = minimumBackoff
        var courier: URL?
        var connected = false
        // The last notification received, acknowledged by the next poll ("" before any: a notification handed out
        // on a poll whose answer was lost is then delivered again).
        var acknowledged = ""
        // Whether the refused session was told already (once until the channel connects again).
        var toldSessionEnded = false
        while !Task.isCancelled {
            do {
                if courier == nil {
                    let token = try await client.createPushToken()
                    try await client.registerPushToken(token.apnsToken, environment: token.apnsEnvironment)
                    guard let url = URL(string: token.webcourierURL) else {
                        throw CloudError(.invalidResponse, "the cloud answered a push address that is no URL")
                    }
                    courier = url
                }
                guard let courierURL = courier else { continue }
                if !connected {
                    connected = true
                    toldSessionEnded = false
                    continuation.yield(.connected)
                }
                if let push = try await client.pollNotification(courierURL: courierURL, timeout: pollTimeout, ack: acknowledged) {
                    acknowledged = push.ck.nid
                    continuation.yield(.notification(push))
                }
                backoff = minimumBackoff
            } catch {
                if Task.isCancelled { return }
                connected = false
                if let cloud = error as? CloudError, cloud.code == .notAuthenticated || cloud.code == .unknownItem {
                    // A refusal while registering is the session's: the courier's own token has no session to refuse.
                    if courier == nil, cloud.code == .notAuthenticated, !toldSessionEnded {
                        toldSessionEnded = true
                        continuation.yield(.sessionEnded(cloud.reason))
                    }
                    courier = nil  // the token is gone: create and register a new one
                    acknowledged = ""
                }
                let delay = Self.retryDelay(
                    backoff: backoff, jitter: Double.random(in: 0.8...1.2), retryAfter: (error as? CloudError)?.retryAfter)
                try? await Task.sleep(for: .seconds(delay))
                backoff = min(backoff * 2, maximumBackoff)
            }
        }
    }
}
