import CloudClient
import CloudModel
import Foundation
import TodoStore

/// What a device does when the cloud refuses its kept session token: answers a fresh token (signing in again), or
/// throws an error whose words tell the user what to do (for example to run `todo login` again).
public typealias SignInRenewal = @Sendable () async throws -> String

extension SyncEngine {
    /// Sets what the engine does when the cloud refuses the session token: the kept token is used without a probe,
    /// and only a refusal of a real request asks `renewal` for a new one. Nil: the device is signed out.
    public func setSignInRenewal(_ renewal: SignInRenewal?) {
        signInRenewal = renewal
    }

    /// Asks the renewal for a fresh token after `refused`; true when signed in again. Otherwise the device is signed
    /// out with the renewal's words; the outbox is kept for the next sign-in.
    func renewSignIn(refused: CloudError) async -> Bool {
        guard let renewal = signInRenewal else { return false }
        do {
            let token = try await renewal()
            client.authToken = token
            if connection == .signedOut { connection = .online }
            publish()
            return true
        } catch {
            signedOut("signed out: \(error)", ended: true)
            return false
        }
    }

    /// Signed in again with a fresh session token (the app's `L`, after the session ended): syncing resumes at once,
    /// the push channel listens again if it listened, and what waited in the outbox is sent. `renewal` replaces the
    /// one in use when given.
    public func resumeSession(token: String, renewal: SignInRenewal? = nil) {
        if let renewal { signInRenewal = renewal }
        client.authToken = token
        connection = .online
        sessionEnded = false
        lastError = nil
        if listensForPushes { startListeningForPushes() }
        requestSync(.networkBack)
        publish()
    }

    /// The launch flags the cache holds now.
    func launchFlags() async throws -> LaunchFlags {
        let state = try await store.syncState()
        return LaunchFlags(
            createdCustomZone: state.createdCustomZone, subscribedToPrivateChanges: state.subscribedToPrivateChanges,
            subscribedToSharedChanges: state.subscribedToSharedChanges)
    }
}
