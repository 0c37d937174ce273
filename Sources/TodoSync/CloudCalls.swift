import CloudClient
import CloudModel
import Foundation

/// Requests to the cloud with the retry policy applied: what every part of the engine that talks to the cloud uses,
/// on the engine's actor or off it (batches in flight, a page fetched ahead).
struct CloudCalls: Sendable {
    /// The cloud client.
    let client: CloudClient
    let clock: any SyncClock
    let policy: RetryPolicy
    let random: @Sendable () -> Double
    /// Where retry waits are told (the status line, `retryWaits`), before each wait begins.
    let link: EngineLink

    /// Runs `operation`, waiting and retrying on throttling / busy answers as the policy says.
    nonisolated(nonsending) func withRetries<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await operation()
            } catch let error as CloudError {
                guard case .retry(let delay) = policy.response(to: error, attempt: attempt, random: random()) else {
                    throw error
                }
                await link.engine?.noteRetry(delay, error)
                try await clock.sleep(seconds: delay)
                attempt += 1
            }
        }
    }

    /// Words for the user about an error.
    static func words(for error: CloudError) -> String {
        switch RetryPolicy().response(to: error, attempt: RetryPolicy().maximumAttempts, random: 0) {
        case .fatal(let message): message
        default: error.description
        }
    }
}
