import CloudModel
import CloudServer
import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// The cloud's own routes on the PostgreSQL store: records, conflicts, change feeds, sharing, assets, and what a
/// device is told when the database goes away.
@Suite("The cloud on PostgreSQL")
struct PostgresCloudTests {
    /// Runs `body` against a cloud on a fresh database.
    private func withPostgresCloud(_ test: String = #function, _ body: (TestCloud, PostgresTestDatabase) async throws -> Void) async throws {
        try await PostgresTestDatabase.with(test) { database in
            try await withCloud(storage: .postgres(database.url)) { cloud in try await body(cloud, database) }
        }
    }

    @Test func recordsConflictsAndTheZoneFeed() async throws {
        try await withPostgresCloud { cloud, _ in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let created = try await cloud.modify(alice, (0..<200).map { RecordOperation(.create, todo("r\($0)", "Todo \($0)")) })
            #expect(created.allSatisfy { $0.record != nil })
            for range in [200..<400, 400..<450] {
                let more = try await cloud.modify(alice, range.map { RecordOperation(.create, todo("r\($0)", "Todo \($0)")) })
                #expect(more.allSatisfy { $0.record != nil })
            }
            // A create of a name that exists: EXISTS, with the server's record.
            let again = try await cloud.modify(alice, [RecordOperation(.create, todo("r0", "again"))])
            #expect(again.first?.error?.serverErrorCode == .exists)
            // An update with a stale tag: CONFLICT; with the right tag: saved.
            let first = try #require(created.first?.record)
            var stale = first
            stale.recordChangeTag = "stale"
            stale.fields = ["title": .string("stale")]
            #expect(try await cloud.modify(alice, [RecordOperation(.update, stale)]).first?.error?.serverErrorCode == .conflict)
            var fresh = first
            fresh.fields = ["title": .string("Renamed")]
            let updated = try await cloud.modify(alice, [RecordOperation(.update, fresh), RecordOperation(.delete, try #require(created.last?.record))])
            #expect(updated.first?.record?["title"] == .string("Renamed"))

            // The whole feed in pages of 7, then nothing after its last token.
            var token: ChangeToken?
            var names: [String] = []
            var deleted: [String] = []
            var pages = 0
            repeat {
                let answer: ZoneChangesResponse = try await cloud.post(
                    .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token, resultsLimit: 97)]),
                    token: alice.token)
                let zone = try #require(answer.zones.first)
                names += zone.records.filter { !$0.isDeleted }.map(\.recordName)
                deleted += zone.records.filter(\.isDeleted).map(\.recordName)
                token = zone.syncToken
                pages += 1
                if !zone.moreComing { break }
            } while true
            #expect(Set(names).count == 449 && names.count == 449)
            #expect(deleted == ["r199"])
            #expect(pages == 5)
            let idle: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token)]), token: alice.token)
            #expect(idle.zones.first?.records.isEmpty == true)
        }
    }

    @Test func zonesAndTheDatabaseFeed() async throws {
        try await withPostgresCloud { cloud, _ in
            let alice = try await cloud.signIn("alice")
            let start: DatabaseChangesResponse = try await cloud.post(.private, "changes/database", DatabaseChangesRequest(), token: alice.token)
            try await cloud.createTodosZone(alice)
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("a", "A"))])
            let changed: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: start.syncToken), token: alice.token)
            #expect(changed.zones.map(\.zoneID.zoneName) == ["Todos"])
            let deleted: ZonesResponse = try await cloud.post(
                .private, "zones/modify", ModifyZonesRequest(operations: [.init(.delete, todos)]), token: alice.token)
            #expect(deleted.zones.first?.error == nil)
            let after: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: changed.syncToken), token: alice.token)
            #expect(after.zones.first?.deleted == true)
        }
    }

    /// The database refuses connections, and its sessions are ended: requests are answered 503 `TRY_AGAIN_LATER`
    /// with a `retryAfter` within seconds, never left hanging; once it takes connections again, the cloud carries on.
    @Test func aLostDatabaseAnswersTryAgainLaterThenRecovers() async throws {
        try await withPostgresCloud { cloud, database in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            try await database.administer("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS false")
            try await database.administer("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database.name)'")
            // Each request is answered (a hanging one would end in the session's timeout, an error that fails the test).
            var refused = 0
            for index in 0..<3 {
                let (status, error) = try await cloud.failure(
                    .private, "records/modify", ModifyRecordsRequest(operations: [RecordOperation(.create, todo("down\(index)", "x"))], zoneID: todos),
                    token: alice.token)
                #expect(status == 503 && error.serverErrorCode == .tryAgainLater && (error.retryAfter ?? 0) > 0)
                if status == 503 { refused += 1 }
            }
            #expect(refused == 3)
            try await database.administer("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS true")
            let saved = try await eventually(30) {
                let (status, _) = try await cloud.raw(
                    "POST", cloud.address.databasePath(.private, "records/modify"),
                    body: try JSONEncoder().encode(ModifyRecordsRequest(operations: [RecordOperation(.create, todo("back", "x"))], zoneID: todos)),
                    token: alice.token)
                return status == 200
            }
            #expect(saved)
        }
    }
}
