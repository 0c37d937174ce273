@testable import CloudServer
import CloudModel
import Foundation
import Testing

/// Each instance shares what its throttle counts; the budgets then hold across instances.
@Suite("Sign-in throttling across instances")
struct ThrottleAcrossInstancesTests {
    /// Two throttles that hear each other, as two instances do through the bus.
    private func pair(_ limits: SignInLimits) -> (SignInThrottle, SignInThrottle) {
        let a = SignInThrottle(limits)
        let b = SignInThrottle(limits)
        a.share { b.apply($0) }
        b.share { a.apply($0) }
        return (a, b)
    }

    private func isThrottled(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as ServerError {
            return error.serverErrorCode == .throttled
        } catch {
            return false
        }
    }

    @Test func guessesSpreadOverTwoInstancesMeetOneBudget() {
        let (a, b) = pair(SignInLimits(failuresPerAccount: 10, failuresPerAddress: 1000))
        let now = ContinuousClock.now
        for attempt in 0..<10 {
            let instance = attempt.isMultiple(of: 2) ? a : b
            #expect(!isThrottled { try instance.beginSignIn(account: "alice", address: "192.0.2.\(attempt)", now: now) })
        }
        // Five guesses on each: alone, neither would stop the next one from an address that guessed.
        #expect(isThrottled { try a.beginSignIn(account: "alice", address: "192.0.2.1", now: now) })
        #expect(isThrottled { try b.beginSignIn(account: "alice", address: "192.0.2.0", now: now) })
        // An address that never failed on the account (its owner's) is still let try.
        #expect(!isThrottled { try b.beginSignIn(account: "alice", address: "192.0.2.99", now: now) })
    }

    @Test func aRightPasswordOnOneInstanceHandsTheAttemptBackOnBoth() {
        let (a, b) = pair(SignInLimits(failuresPerAccount: 2, failuresPerAddress: 1000))
        let now = ContinuousClock.now
        for _ in 0..<5 {
            #expect(!isThrottled { try a.beginSignIn(account: "alice", address: "192.0.2.1", now: now) })
            a.signInSucceeded(account: "alice", address: "192.0.2.1")
        }
        #expect(b.accounts.trackedKeys == 0)
        #expect(!isThrottled { try b.beginSignIn(account: "alice", address: "192.0.2.1", now: now) })
    }

    @Test func registrationsFromOneAddressAreCountedEverywhere() {
        let (a, b) = pair(SignInLimits(registrationsPerAddress: 2))
        #expect(!isThrottled { try a.beginRegistration(address: "198.51.100.7") })
        #expect(!isThrottled { try b.beginRegistration(address: "198.51.100.7") })
        #expect(isThrottled { try a.beginRegistration(address: "198.51.100.7") })
        #expect(isThrottled { try b.beginRegistration(address: "198.51.100.7") })
    }

    @Test func whatAnotherInstanceCountedIsNotSentOnAgain() {
        let throttle = SignInThrottle(SignInLimits())
        let sent = SentEvents()
        throttle.share { sent.append($0) }
        throttle.apply(.registration(address: "192.0.2.1"))
        #expect(sent.count == 0)
        try? throttle.beginRegistration(address: "192.0.2.1")
        #expect(sent.count == 1)
    }
}

private final class SentEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ThrottleEvent] = []
    func append(_ event: ThrottleEvent) { lock.withLock { events.append(event) } }
    var count: Int { lock.withLock { events.count } }
}
