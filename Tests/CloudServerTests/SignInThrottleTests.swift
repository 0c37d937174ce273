@testable import CloudServer
import CloudModel
import Foundation
import Testing

/// Failed sign-ins are budgeted per account name and per client address, registrations per address.
@Suite("Sign-in throttling")
struct SignInThrottleTests {
    private func error(_ body: Data) throws -> ServerError { try JSONDecoder().decode(ServerError.self, from: body) }

    @Test func anAccountLocksAfterTenFailuresAndEvenTheRightPasswordWaits() async throws {
        try await withCloud { cloud async throws in
            #expect(try await cloud.attemptRegistration("alice", password: "correct horse").status == 201)
            for _ in 0..<10 {
                let answer = try await cloud.attemptSignIn("alice", password: "wrong horse")
                #expect(answer.status == 401)
            }
            let locked = try await cloud.attemptSignIn("alice", password: "wrong horse")
            #expect(locked.status == 429)
            let lockedError = try error(locked.body)
            #expect(lockedError.serverErrorCode == .throttled)
            // The rest of the window (test clouds' windows are an hour long).
            #expect((3000...3600).contains(lockedError.retryAfter ?? 0))
            #expect(lockedError.reason.contains("retry after"))
            // Guessing from this address stays capped: the right password is refused here too until the window ends.
            let right = try await cloud.attemptSignIn("alice", password: "correct horse")
            #expect(right.status == 429)
            #expect(try error(right.body).serverErrorCode == .throttled)
            // An unknown account is throttled the same way: the lock says nothing about which accounts exist.
            for _ in 0..<10 { _ = try await cloud.attemptSignIn("nobody", password: "wrong horse") }
            #expect(try await cloud.attemptSignIn("nobody", password: "wrong horse").status == 429)
        }
    }

    @Test func theLockEndsWithItsWindow() throws {
        let throttle = SignInThrottle(SignInLimits(failuresPerAccount: 3, failuresPerAddress: 100, failureWindow: 60))
        let start = ContinuousClock.now
        for second in 0..<3 { try throttle.beginSignIn(account: "alice", address: "192.0.2.1", now: start + .seconds(second)) }
        do {
            try throttle.beginSignIn(account: "alice", address: "192.0.2.1", now: start + .seconds(20))
            Issue.record("a fourth failure within the minute was let through")
        } catch let error as ServerError {
            #expect(error.serverErrorCode == .throttled)
            // The window began with the first failure: 40 s are left of it.
            #expect(abs((error.retryAfter ?? 0) - 40) < 0.01)
        }
        try throttle.beginSignIn(account: "alice", address: "192.0.2.1", now: start + .seconds(60))
    }

    @Test func aRightPasswordDoesNotSpendTheBudget() async throws {
        let limits = SignInLimits(failuresPerAccount: 3, failuresPerAddress: 3)
        try await withCloud(signInLimits: limits) { cloud async throws in
            #expect(try await cloud.attemptRegistration("alice", password: "correct horse").status == 201)
            for _ in 0..<10 { #expect(try await cloud.attemptSignIn("alice", password: "correct horse").status == 200) }
        }
    }

    @Test func oneAddressHasItsOwnBudgetAcrossAccountsAndTheProxysWordIsBelievedFromATrustedProxy() async throws {
        let limits = SignInLimits(failuresPerAccount: 100, failuresPerAddress: 5)
        let proxy: (inout ServerConfiguration) -> Void = { $0.trustedProxyList = TrustedProxies(loopback: true, addresses: []) }
        try await withCloud(signInLimits: limits, configure: proxy) { cloud async throws in
            #expect(try await cloud.attemptRegistration("alice", password: "correct horse").status == 201)
            let guesser = ["X-Real-IP": "203.0.113.7"]
            for index in 0..<5 {
                #expect(try await cloud.attemptSignIn("user\(index)", password: "wrong horse", headers: guesser).status == 401)
            }
            let blocked = try await cloud.attemptSignIn("alice", password: "correct horse", headers: guesser)
            #expect(blocked.status == 429)
            #expect(try error(blocked.body).reason.contains("address"))
            // Another address behind the same proxy is not affected, nor the proxy's own address.
            #expect(try await cloud.attemptSignIn("alice", password: "correct horse", headers: ["X-Real-IP": "2001:db8::1"]).status == 200)
            #expect(try await cloud.attemptSignIn("alice", password: "correct horse").status == 200)
            // The same address spelled differently is the same address.
            #expect(try await cloud.attemptSignIn("alice", password: "correct horse", headers: ["X-Real-IP": " 203.0.113.7 "]).status == 429)
        }
    }

    @Test func registrationsAreBudgetedPerAddress() async throws {
        let limits = SignInLimits(registrationsPerAddress: 3)
        try await withCloud(signInLimits: limits) { cloud async throws in
            for index in 0..<3 {
                #expect(try await cloud.attemptRegistration("user\(index)", password: "password1").status == 201)
            }
            let refused = try await cloud.attemptRegistration("user3", password: "password1")
            #expect(refused.status == 429)
            let refusal = try error(refused.body)
            #expect(refusal.serverErrorCode == .throttled)
            #expect((refusal.retryAfter ?? 0) > 3000)
            // Believed from a trusted proxy only: not here.
            #expect(try await cloud.attemptRegistration("user3", password: "password1", headers: ["X-Real-IP": "198.51.100.9"]).status == 429)
        }
    }

    @Test func aFloodOfAddressesAndNamesKeepsTheBudgetsBounded() throws {
        let throttle = SignInThrottle(SignInLimits(failuresPerAccount: 10, failuresPerAddress: 10, maxTrackedKeys: 200))
        let start = ContinuousClock.now
        for index in 0..<10_000 {
            let address = "10.\(index / 65536).\(index / 256 % 256).\(index % 256)"
            try throttle.beginSignIn(account: "guess\(index)", address: address, now: start + .microseconds(index))
            try throttle.beginRegistration(address: address, now: start + .microseconds(index))
        }
        for budget in [throttle.addresses, throttle.accounts, throttle.pairs, throttle.registrations] {
            #expect(budget.trackedKeys <= 200)
            #expect(budget.trackedKeys >= 150)
        }
        // The newest are the ones remembered.
        #expect(throttle.addresses.wait("10.0.39.15", now: start + .seconds(1)) == nil)
        for _ in 0..<9 { try throttle.beginSignIn(account: "x", address: "10.0.39.15", now: start + .seconds(1)) }
        #expect(throttle.addresses.wait("10.0.39.15", now: start + .seconds(1)) != nil)
    }

    @Test func theClientAddressIsThePeerUnlessATrustedProxySaysOtherwise() {
        let loopback = TrustedProxies(loopback: true, addresses: [])
        #expect(ClientAddress.resolve(peerIP: "127.0.0.1", realIP: "203.0.113.7", trusted: loopback) == "203.0.113.7")
        #expect(ClientAddress.resolve(peerIP: "::1", realIP: "2001:DB8::0:1", trusted: loopback) == "2001:db8::1")
        #expect(ClientAddress.resolve(peerIP: "127.0.0.1", realIP: nil, trusted: loopback) == "127.0.0.1")
        // Without a trusted proxy, even a loopback peer's header is anybody's word: ignored.
        #expect(ClientAddress.resolve(peerIP: "127.0.0.1", realIP: "203.0.113.7", trusted: .none) == "127.0.0.1")
        // From a peer that is not a named proxy too.
        #expect(ClientAddress.resolve(peerIP: "198.51.100.4", realIP: "203.0.113.7", trusted: loopback) == "198.51.100.4")
        let named = TrustedProxies(loopback: false, addresses: ["198.51.100.4"])
        #expect(ClientAddress.resolve(peerIP: "198.51.100.4", realIP: "203.0.113.7", trusted: named) == "203.0.113.7")
        #expect(ClientAddress.resolve(peerIP: "127.0.0.1", realIP: "203.0.113.7", trusted: named) == "127.0.0.1")
        // Garbage, names and ports are not addresses.
        for junk in ["", "example.org", "203.0.113.7:80", "1.2.3.4, 5.6.7.8", String(repeating: "1", count: 5000), "\r\n"] {
            #expect(ClientAddress.resolve(peerIP: "127.0.0.1", realIP: junk, trusted: loopback) == "127.0.0.1")
        }
        #expect(ClientAddress.resolve(peerIP: nil, realIP: "203.0.113.7", trusted: loopback) == "unknown")
        #expect(ListenAddress.isLoopback("::ffff:127.0.0.1"))
        #expect(!ListenAddress.isLoopback("128.0.0.1"))
    }
}
