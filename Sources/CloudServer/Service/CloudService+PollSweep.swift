import Foundation

extension CloudService {
    /// Seconds between two looks for long-polls whose push token went with its session.
    static let pollSweepInterval: Double = 2

    /// Ends the long-polls of push tokens that are gone from the store (their session ended: revoked, signed in again,
    /// a password changed or an account removed, also by the operator's tools in another process). The device's next
    /// poll then meets an unknown token and its next request the ended session, so it learns it within seconds,
    /// not at the end of a poll that may last minutes. One read of the token list per sweep, only while polls wait.
    func endPollsOfGoneTokens() async {
        let polling = await hub.pollingTokens()
        guard !polling.isEmpty else { return }
        guard let live = try? await store.read({ try await $0.allPushTokens() }) else { return }
        let gone = polling.subtracting(live)
        guard !gone.isEmpty else { return }
        await hub.dropMailboxes(of: gone)
    }
}
