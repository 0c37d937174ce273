import CloudModel
import Foundation
import TestSupport
import Testing

@Suite("Change feeds, tokens, tombstones, purged zones")
struct ChangeFeedTests {
    private func fetchAll(_ cloud: TestCloud, _ device: Device, from token: ChangeToken?, limit: Int = 200) async throws -> (records: [Record], token: ChangeToken, pages: Int) {
        var token = token
        var records: [Record] = []
        var pages = 0
        while true {
            let answer: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token, resultsLimit: limit)]),
                token: device.token)
            let zone = try #require(answer.zones.first)
            #expect(zone.serverErrorCode == nil)
            records += zone.records
            token = zone.syncToken
            pages += 1
            if !zone.moreComing { break }
        }
        return (records, try #require(token), pages)
    }

    @Test func pagingOver450RecordsThenIncremental() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            for batch in 0..<3 {
                let operations = (0..<150).map { RecordOperation(.create, todo("r\(batch)-\($0)", "Todo \(batch)-\($0)")) }
                let results = try await cloud.modify(alice, operations)
                #expect(results.allSatisfy { $0.record != nil })
            }
            let full = try await fetchAll(cloud, alice, from: nil)
            #expect(full.records.count == 450)
            #expect(full.pages == 3)
            #expect(Set(full.records.map(\.recordName)).count == 450)

            // Nothing new: the same token comes back with nothing.
            let idle = try await fetchAll(cloud, alice, from: full.token)
            #expect(idle.records.isEmpty)

            // An update and a delete show up after the token, the delete as a tombstone.
            let current = full.records.first { $0.recordName == "r0-0" }!
            let other = full.records.first { $0.recordName == "r0-1" }!
            var change = current
            change.fields = ["title": .string("Renamed")]
            _ = try await cloud.modify(alice, [RecordOperation(.update, change), RecordOperation(.delete, other)])
            let delta = try await fetchAll(cloud, alice, from: full.token)
            #expect(delta.records.count == 2)
            #expect(delta.records.first { $0.recordName == "r0-0" }?["title"] == .string("Renamed"))
            #expect(delta.records.first { $0.recordName == "r0-1" }?.isDeleted == true)

            // Small pages with moreComing, each with its own token; resuming from any gives the rest.
            let small = try await fetchAll(cloud, alice, from: nil, limit: 7)
            // Later pages carry a token, so the tombstone may ride along; a device deletes what it lacks as a no-op.
            #expect(small.records.filter { !$0.isDeleted }.count == 449)
            #expect(Set(small.records.map(\.recordName)).count == small.records.count)
            #expect(small.pages == 65)

            // The legacy single-zone route.
            let legacy: RecordChangesResponse = try await cloud.post(
                .private, "records/changes", RecordChangesRequest(zoneID: todos, syncToken: nil, resultsLimit: 5), token: alice.token)
            #expect(legacy.records.count == 5)
            #expect(legacy.moreComing)
        }
    }

    @Test func databaseFeedReportsChangedAndDeletedZones() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let start: DatabaseChangesResponse = try await cloud.post(.private, "changes/database", DatabaseChangesRequest(), token: alice.token)
            #expect(start.zones.isEmpty)
            try await cloud.createTodosZone(alice)
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("a", "A"))])
            let changed: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: start.syncToken), token: alice.token)
            #expect(changed.zones.map(\.zoneID.zoneName) == ["Todos"])
            #expect(changed.zones.first?.deleted == nil)

            let quiet: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: changed.syncToken), token: alice.token)
            #expect(quiet.zones.isEmpty)

            // The user deletes their data: the zone is reported deleted and purged.
            let _: ZonesResponse = try await cloud.post(
                .private, "zones/modify", ModifyZonesRequest(operations: [.init(.purge, todos)]), token: alice.token)
            let purged: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: changed.syncToken), token: alice.token)
            #expect(purged.zones.first?.deleted == true)
            #expect(purged.zones.first?.purged == true)
            let legacy: ZonesChangesResponse = try await cloud.post(
                .private, "zones/changes", DatabaseChangesRequest(syncToken: changed.syncToken), token: alice.token)
            #expect(legacy.zones.first?.purged == true)

            // Until created again, the zone answers USER_DELETED_ZONE.
            let write = try await cloud.modify(alice, [RecordOperation(.create, todo("b", "B"))])
            #expect(write.first?.error?.serverErrorCode == .userDeletedZone)
            let lookup: ZonesResponse = try await cloud.post(.private, "zones/lookup", LookupZonesRequest(zoneIDs: [todos]), token: alice.token)
            #expect(lookup.zones.first?.error?.serverErrorCode == .userDeletedZone)
            try await cloud.createTodosZone(alice)
            let again = try await cloud.modify(alice, [RecordOperation(.create, todo("b", "B"))])
            #expect(again.first?.record != nil)

            // A plain delete is not a purge.
            let _: ZonesResponse = try await cloud.post(.private, "zones/modify", ModifyZonesRequest(operations: [.init(.delete, todos)]), token: alice.token)
            let gone = try await cloud.modify(alice, [RecordOperation(.create, todo("c", "C"))])
            #expect(gone.first?.error?.serverErrorCode == .zoneNotFound)
        }
    }

    /// A deletion that commits while a compaction runs: either its tombstone stays in the feed, or dropping it moved
    /// the horizon past it. On PostgreSQL each statement of a compaction sees what was committed when it began, so a
    /// compaction that computed its horizon before the deletion committed and dropped tombstones after could drop this
    /// one without expiring the tokens from before it: a device would never learn of the deletion.
    @Test func aDeletionRacingCompactionsIsKeptOrExpiresTheTokensBeforeIt() async throws {
        try await withCloud(retention: 0) { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            // Operator compactions back to back, beside the cloud's own every second.
            let compactions = Task {
                while !Task.isCancelled { _ = try? await cloud.raw("POST", "/admin/1/compact") }
            }
            defer { compactions.cancel() }
            for round in 0..<80 {
                let name = "gone\(round)"
                let created = try await cloud.modify(alice, [RecordOperation(.create, todo(name, "Gone \(round)"))])
                let before: ZoneChangesResponse = try await cloud.post(
                    .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: alice.token)
                let token = try #require(before.zones.first?.syncToken)
                _ = try await cloud.modify(alice, [RecordOperation(.delete, try #require(created.first?.record))])
                let after: ZoneChangesResponse = try await cloud.post(
                    .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token)]), token: alice.token)
                let zone = try #require(after.zones.first)
                guard zone.serverErrorCode != .changeTokenExpired else { continue }
                #expect(zone.records.contains { $0.recordName == name && $0.isDeleted }, "round \(round): the deletion was dropped and the token still holds")
            }
            compactions.cancel()
            await compactions.value
        }
    }

    @Test func tokensExpireAfterCompaction() async throws {
        try await withCloud(retention: 0) { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let first = try await cloud.modify(alice, [RecordOperation(.create, todo("a", "A")), RecordOperation(.create, todo("b", "B"))])
            let start: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: alice.token)
            let token = try #require(start.zones.first?.syncToken)
            _ = try await cloud.modify(alice, [RecordOperation(.delete, try #require(first[0].record))])
            try await waitForWallClock()  // the deletion is older than now, so a zero retention compacts it
            let compact = try await cloud.raw("POST", "/admin/1/compact")
            #expect(compact.status == 200)
            let expired: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token)]), token: alice.token)
            #expect(expired.zones.first?.serverErrorCode == .changeTokenExpired)
            let (status, error) = try await cloud.failure(.private, "records/changes", RecordChangesRequest(zoneID: todos, syncToken: token), token: alice.token)
            #expect(status == 400)
            #expect(error.serverErrorCode == .changeTokenExpired)
            // From scratch works and shows only the live record.
            let fresh: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: alice.token)
            #expect(fresh.zones.first?.records.map(\.recordName) == ["b"])
        }
    }

    @Test func garbageTokensAreBadRequests() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let answer: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone",
                ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: ChangeToken(rawValue: "nonsense"))]), token: alice.token)
            #expect(answer.zones.first?.serverErrorCode == .badRequest)
            let (status, _) = try await cloud.failure(.private, "changes/database", DatabaseChangesRequest(syncToken: ChangeToken(rawValue: "D!!")), token: alice.token)
            #expect(status == 400)
        }
    }
}
