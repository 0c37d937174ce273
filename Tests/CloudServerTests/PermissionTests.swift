import CloudModel
import Foundation
import Testing

@Suite("Public, private and shared database rules")
struct PermissionTests {
    @Test func publicBoard() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            let posted = try await cloud.modify(alice, [RecordOperation(.create, todo("p1", "Community cleanup"))], scope: .public)
            let record = try #require(posted.first?.record)

            // Anyone may read, without an account.
            let query = QueryRequest(query: Query(recordType: "Todo"))
            let anonymous: QueryResponse = try await cloud.post(.public, "records/query", query, token: nil)
            #expect(anonymous.records.map(\.recordName) == ["p1"])
            let lookup: RecordsResponse = try await cloud.post(.public, "records/lookup", LookupRecordsRequest(recordNames: ["p1"]), token: nil)
            #expect(lookup.records.first?.record?.created?.userRecordName == alice.user)

            // Writing needs an account; changing needs to be the creator.
            let (status, error) = try await cloud.failure(
                .public, "records/modify", ModifyRecordsRequest(operations: [RecordOperation(.create, todo("p2", "x"))]), token: nil)
            #expect(status == 421)
            #expect(error.serverErrorCode == .authenticationRequired)
            var change = record
            change.fields = ["isTrashed": .int64(1)]
            let denied = try await cloud.modify(bob, [RecordOperation(.update, change)], scope: .public)
            #expect(denied.first?.error?.serverErrorCode == .accessDenied)
            let deniedDelete = try await cloud.modify(bob, [RecordOperation(.forceDelete, record)], scope: .public)
            #expect(deniedDelete.first?.error?.serverErrorCode == .accessDenied)
            let trashed = try await cloud.modify(alice, [RecordOperation(.update, change)], scope: .public)
            #expect(trashed.first?.record?["isTrashed"] == .int64(1))

            // No change feed, no custom zones.
            let (feedStatus, feedError) = try await cloud.failure(.public, "changes/database", DatabaseChangesRequest(), token: alice.token)
            #expect(feedStatus == 400)
            #expect(feedError.serverErrorCode == .badRequest)
            let zoneWrite = try await cloud.modify(alice, [RecordOperation(.create, todo("p3", "x"))], scope: .public, zone: todos)
            #expect(zoneWrite.first?.error?.serverErrorCode == .zoneNotFound)
            let (zoneStatus, _) = try await cloud.failure(.public, "zones/modify", ModifyZonesRequest(operations: [.init(.create, todos)]), token: alice.token)
            #expect(zoneStatus == 400)

            // Polling by modification time.
            let since = try #require(trashed.first?.record?.modified?.timestamp)
            let poll = QueryRequest(query: Query(recordType: "Todo", filterBy: [QueryFilter(.greaterThan, systemFieldName: "modifiedTimestamp", .timestamp(since))]))
            let nothingNew: QueryResponse = try await cloud.post(.public, "records/query", poll, token: nil)
            #expect(nothingNew.records.isEmpty)
        }
    }

    @Test func privateDataStaysPrivate() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let eve = try await cloud.signIn("eve")
            try await cloud.createTodosZone(alice)
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("secret", "Alice's secret"))])
            let alicesZone = ZoneID(zoneName: "Todos", ownerRecordName: alice.user)

            // Eve addressing Alice's zone by owner gets nothing, by any route.
            let (lookupStatus, lookupError) = try await cloud.failure(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["secret"], zoneID: alicesZone), token: eve.token)
            #expect(lookupStatus == 404)
            #expect(lookupError.serverErrorCode == .zoneNotFound)
            let guessed: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["secret"]), token: eve.token)
            #expect(guessed.records.first?.record == nil)
            let changes: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: alicesZone)]), token: eve.token)
            #expect(changes.zones.first?.records.isEmpty == true)
            #expect(changes.zones.first?.serverErrorCode == .zoneNotFound)
            let write = try await cloud.modify(eve, [RecordOperation(.forceUpdate, todo("secret", "pwned"))], zone: alicesZone)
            #expect(write.first?.error?.serverErrorCode == .zoneNotFound)
            let (queryStatus, queryError) = try await cloud.failure(
                .private, "records/query", QueryRequest(query: Query(recordType: "Todo"), zoneID: alicesZone), token: eve.token)
            #expect(queryStatus == 404)
            #expect(queryError.serverErrorCode == .zoneNotFound)
            let zones: ZonesResponse = try await cloud.post(.private, "zones/list", EmptyBody(), token: eve.token)
            #expect(zones.zones.compactMap(\.zone?.zoneID.zoneName) == ["_defaultZone"])
            let shared: ZonesResponse = try await cloud.post(.shared, "zones/list", EmptyBody(), token: eve.token)
            #expect(shared.zones.isEmpty)
            let sharedWrite = try await cloud.modify(eve, [RecordOperation(.create, todo("x", "x"))], scope: .shared, zone: alicesZone)
            #expect(sharedWrite.first?.error?.serverErrorCode == .zoneNotFound)
            let sharedFeed: DatabaseChangesResponse = try await cloud.post(.shared, "changes/database", DatabaseChangesRequest(), token: eve.token)
            #expect(sharedFeed.zones.isEmpty)

            // Alice still has it, untouched.
            let mine: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["secret"], zoneID: todos), token: alice.token)
            #expect(mine.records.first?.record?["title"] == .string("Alice's secret"))
        }
    }
}
