@testable import CloudServer
import CloudModel
import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// The sessions an instance on PostgreSQL keeps between requests: how long, and how they end everywhere.
@Suite("Session cache")
struct SessionCacheTests {
    private let row = SessionRow(userRecordName: "_alice", deviceID: "laptop-id", deviceName: "laptop", lastUsed: 1)

    @Test func anEntryServesForItsLifetimeOnly() {
        let cache = SessionCache(lifetime: .seconds(1))
        let start = ContinuousClock.now
        cache.remember(digest: "t1", row, now: start)
        #expect(cache.session(digest: "t1", now: start + .milliseconds(999))?.deviceID == "laptop-id")
        #expect(cache.session(digest: "t1", now: start + .seconds(1)) == nil)
        #expect(cache.count == 0, "an expired entry is dropped when looked up")
        #expect(cache.session(digest: "unknown", now: start) == nil)
    }

    @Test func endedSessionsAreForgottenByTokenDeviceOrUser() {
        let cache = SessionCache(lifetime: .seconds(60))
        let phone = SessionRow(userRecordName: "_alice", deviceID: "phone-id", deviceName: "phone", lastUsed: 1)
        let bob = SessionRow(userRecordName: "_bob", deviceID: "desk-id", deviceName: "desk", lastUsed: 1)
        for (digest, session) in [("a1", row), ("a2", row), ("a3", phone), ("b1", bob)] { cache.remember(digest: digest, session) }
        cache.forget(.token(digest: "a1"))
        #expect(cache.session(digest: "a1") == nil && cache.session(digest: "a2") != nil)
        cache.forget(.device("laptop-id"))
        #expect(cache.session(digest: "a2") == nil && cache.session(digest: "a3") != nil)
        cache.forget(.user("_alice"))
        #expect(cache.session(digest: "a3") == nil && cache.session(digest: "b1") != nil)
        cache.forgetAll()
        #expect(cache.count == 0)
    }

    @Test func aFullCacheDropsExpiredEntriesThenEverything() {
        let cache = SessionCache(lifetime: .seconds(1), capacity: 3)
        let start = ContinuousClock.now
        cache.remember(digest: "old", row, now: start)
        cache.remember(digest: "b", row, now: start + .milliseconds(900))
        cache.remember(digest: "c", row, now: start + .milliseconds(900))
        // Full: the expired one makes room.
        cache.remember(digest: "d", row, now: start + .milliseconds(1_500))
        #expect(cache.count == 3)
        #expect(cache.session(digest: "b", now: start + .milliseconds(1_500)) != nil)
        // Full of live ones: all go, the new one stays; memory never grows past the capacity.
        cache.remember(digest: "e", row, now: start + .milliseconds(1_600))
        #expect(cache.count == 1)
        #expect(cache.session(digest: "e", now: start + .milliseconds(1_600)) != nil)
    }

    @Test func sqliteReadsTheSessionOnEveryRequest() async throws {
        let cloud = try await TestCloud(storage: .sqlite)
        let service = cloud.server.service
        #expect(service.sessionCache == nil)
        await cloud.close()
    }

    private func caller(_ cloud: TestCloud, _ token: String) async throws -> Int {
        try await cloud.raw("POST", cloud.address.databasePath(.private, "users/caller"), body: Data("{}".utf8), token: token).status
    }

    /// Polls `cloud` with `token` until it is refused, for at most `seconds`; whether it was.
    private func refused(_ cloud: TestCloud, _ token: String, within seconds: Double) async throws -> Bool {
        try await eventually(seconds) { try await caller(cloud, token) == 401 }
    }

    /// Two instances on one database, each trusting what it read for `lifetime` seconds.
    private func withTwoInstances(lifetime: TimeInterval, _ body: (TestCloud, TestCloud, PostgresTestDatabase) async throws -> Void) async throws {
        try await PostgresTestDatabase.with { database in
            try await TestCloud.withTwoInstances(database, configure: { $0.sessionCacheLifetime = lifetime }) { a, b in
                try await body(a, b, database)
            }
        }
    }

    @Test func aSessionEndedOnOneInstanceIsRefusedByTheOtherAtOnce() async throws {
        // A minute's lifetime: only the instances' notices can end what B keeps.
        try await withTwoInstances(lifetime: 60) { a, b, _ in
            #expect(b.server.service.sessionCache != nil)
            let laptop = try await a.signIn("alice", device: "laptop")
            let phone = try await a.signIn("alice", device: "phone")
            let tablet = try await a.signIn("alice", device: "tablet")
            for device in [laptop, phone, tablet] { #expect(try await caller(b, device.token) == 200) }

            // Signed out on A.
            #expect(try await a.raw("POST", a.address.authPath("signout"), token: laptop.token).status == 200)
            #expect(try await caller(a, laptop.token) == 401, "the instance that ended it, at once")
            #expect(try await refused(b, laptop.token, within: 5))
            // Revoked on A by another device of the account.
            let revoke = try await a.raw(
                "POST", a.address.devicePath("devices/revoke"), body: try JSONEncoder().encode(RevokeDeviceRequest(deviceName: "phone")),
                token: tablet.token)
            #expect(revoke.status == 200)
            #expect(try await refused(b, phone.token, within: 5))
            // Replaced: the tablet signs in again on A; its old token no longer works on B.
            let again = try await a.signIn("alice", device: "tablet")
            #expect(try await refused(b, tablet.token, within: 5))
            #expect(try await caller(b, again.token) == 200)
        }
    }

    @Test func aPasswordChangedByTheOperatorEndsCachedSessionsWithinTheLifetime() async throws {
        try await withTwoInstances(lifetime: 0.5) { a, b, database in
            let laptop = try await a.signIn("alice", device: "laptop")
            #expect(try await caller(b, laptop.token) == 200)
            try await AccountAdministration.setPassword(
                dataDirectory: b.directory, storage: .postgres(database.url), account: "alice", password: "a new password", cost: 1)
            // Nothing told B: only its cached entry's end lets it read the session again and refuse it.
            #expect(try await refused(b, laptop.token, within: 5))
        }
    }
}
