import CloudClient
import CloudModel
import Foundation
import TodoStore

/// What a device does when the cloud refuses its kept session token: answers a fresh token (signing in again), or
/// throws an error whose words tell the user what to do (for example to run `todo login` again).
public typealias SignInRenewal = @Sendable () async throws -> String

/// The session: the kept token is used without a probe, and only a refusal of a real request asks the renewal for a
/// new one; signing out (on purpose, or because the cloud ended the session) and resuming. Confined to the engine's
/// actor.
final class SessionKeeper {
    private let client: CloudClient
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let push: PushListener
    private let scheduler: PassScheduler
    /// Asked for a fresh session token when the cloud refuses the kept one.
    private var renewal: SignInRenewal?
    /// Reads the session token this device keeps on disk, which another process of it may have replaced.
    private var keptToken: (@Sendable () -> String?)?
    /// The token the cloud refused when it ended the session; nil while signed in or signed out on purpose.
    private var endedToken: String?

    init(client: CloudClient, status: EngineStatus, feed: ChangeFeed, push: PushListener, scheduler: PassScheduler) {
        self.client = client
        self.status = status
        self.feed = feed
        self.push = push
        self.scheduler = scheduler
    }

    /// Whether a refused token can be renewed.
    var canRenew: Bool { renewal != nil }

    /// Sets what happens when the cloud refuses the session token (nil: the device is signed out).
    func setRenewal(_ renewal: SignInRenewal?) { self.renewal = renewal }

    /// Sets how the session token kept on disk is read (`takeUpKeptSession`).
    func setKeptTokenReader(_ read: (@Sendable () -> String?)?) { keptToken = read }

    /// Signed out because the cloud ended the session, while the file kept on disk now holds another token (another
    /// shell signed this device in, and wrote its session only after the cloud had ended this one): that session is
    /// taken up as a renewal would have taken it, and syncing resumes. True when it was.
    @discardableResult
    func takeUpKeptSession() -> Bool {
        guard status.connection == .signedOut, status.sessionEnded, let ended = endedToken, let keptToken, let token = keptToken(), token != ended
        else { return false }
        resume(token: token, renewal: nil)
        return true
    }

    /// Asks the renewal for a fresh token; true when signed in again. Otherwise the device is signed out with the
    /// renewal's words; the outbox is kept for the next sign-in.
    nonisolated(nonsending) func renew() async -> Bool {
        guard let renewal else { return false }
        do {
            let token = try await renewal()
            client.authToken = token
            if status.connection == .signedOut { status.connection = .online }
            feed.publish()
            return true
        } catch {
            signedOut("signed out: \(error)", ended: true)
            return false
        }
    }

    /// Marks the device signed out; `ended`: the cloud ended the session (revoked, password changed, expired), not the user.
    func signedOut(_ reason: String, ended: Bool) {
        endedToken = ended ? client.authToken ?? endedToken : nil
        status.connection = .signedOut
        status.sessionEnded = ended
        client.authToken = nil
        status.lastError = reason
        push.stop()
        feed.publish()
    }

    /// Signed in again with a fresh token: syncing resumes at once, the push channel listens again if it listened,
    /// and what waited in the outbox is sent. `renewal` replaces the one in use when given.
    func resume(token: String, renewal: SignInRenewal?) {
        if let renewal { self.renewal = renewal }
        endedToken = nil
        client.authToken = token
        status.connection = .online
        status.sessionEnded = false
        status.lastError = nil
        if push.listens { push.start() }
        scheduler.request(.networkBack)
        feed.publish()
    }
}
