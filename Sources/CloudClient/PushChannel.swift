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

    private static func run(
        client: CloudClient, pollTimeout: Int, minimumBackoff: Double, maximumBackoff: Double,
        continuation: AsyncStream<Event>.Continuation
    ) async {
        var backoff = minimumBackoff
        var courier: URL?
        var connected = false
        while !Task.isCancelled {
            do {
                if courier == nil {
                    let token = try await client.createPushToken()
                    try await client.registerPushToken(token.apnsToken, environment: token.apnsEnvironment)
                    guard let url = URL(string: token.webcourierURL) else {
                        throw CloudError(.invalidResponse, "bad webcourierURL \(token.webcourierURL)")
                    }
                    courier = url
                }
                guard let courierURL = courier else { continue }
                if !connected {
                    connected = true
                    continuation.yield(.connected)
                }
                if let push = try await client.pollNotification(courierURL: courierURL, timeout: pollTimeout) {
                    continuation.yield(.notification(push))
                }
                backoff = minimumBackoff
            } catch {
                if Task.isCancelled { return }
                connected = false
                if let cloud = error as? CloudError, cloud.code == .notAuthenticated || cloud.code == .unknownItem {
                    courier = nil  // the token is gone: create and register a new one
                }
                let jitter = Double.random(in: 0.8...1.2)
                let retryAfter = (error as? CloudError)?.retryAfter ?? 0
                let delay = max(backoff * jitter, retryAfter)
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                backoff = min(backoff * 2, maximumBackoff)
            }
        }
    }
}
