import CloudModel
import Foundation
import SQLiteDB
import TestSupport
import Testing

@testable import CloudServer

/// A cloud whose file an older version wrote keeps its data and change feed after the migrations.
@Suite("Storage migrations")
struct MigrationTests {
    @Test func recordsStoredBeforeVersion3KeepTheirFeedAndNames() async throws {
        let directory = ScratchDirectory.path("migration")
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = "migration-test-token"
        let names = (0..<450).map { "old-\($0)" }
        // The file as a version-2 cloud left it: a signed-in user, a zone with records, one of them deleted since.
        do {
            let store = try await SQLiteCloudStore.open(directory: directory, migrations: Array(SQLiteCloudStore.migrations.prefix(2)))
            try await store.write { tx in
                try await tx.insertUser(UserRow(userRecordName: "_alice", account: "alice", passwordHash: "unused"), now: 1)
                try await tx.insertDevice(id: "device-1", user: "_alice", name: "laptop", now: 1)
                // Recent: a start-up compaction would drop an old tombstone (and expire tokens before it), and end an old
                // session.
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                // The session row as version 2 wrote it (no last use, no one-per-device index yet).
                try (tx as! SQLiteStoreTransaction).db.run(
                    "INSERT INTO sessions VALUES (?1, '_alice', 'device-1', ?2)", [.text(Secrets.tokenDigest(token)), .int(now)])
                let database = DatabaseKey(container: "\(ContainerAddress.default.container)/\(ContainerAddress.default.environment)", scope: .private, owner: "_alice")
                let zone = try await tx.createZone(database, name: "Todos")
                let stamp = RecordStamp(timestamp: now, userRecordName: "_alice", deviceID: "device-1")
                for name in names {
                    let seq = try await tx.nextSequence(.zone(pk: zone.pk))
                    let fields = Data(#"{"title":{"type":"STRING","value":"\#(name)"}}"#.utf8)
                    #expect(try await tx.insertRecord(StoredRecord(
                        zonePK: zone.pk, recordName: name, recordType: "Todo", changeTag: String(seq, radix: 36), seq: seq, deleted: false,
                        created: stamp, modified: stamp, parent: nil, fieldsJSON: fields)))
                }
                var gone = try #require(try await tx.record(zonePK: zone.pk, name: "old-7"))
                gone.seq = try await tx.nextSequence(.zone(pk: zone.pk))
                gone.changeTag = String(gone.seq, radix: 36)
                gone.deleted = true
                gone.fieldsJSON = Data("{}".utf8)
                try await tx.putRecord(gone)
                try await tx.noteZoneChange(database, zoneName: "Todos", kind: .changed, seq: try await tx.nextSequence(.database(database)), now: now)
            }
        }
        let cloud = try await TestCloud(directory: directory)
        // The whole feed, page by page, in the order written: every live record once, then the tombstone.
        var seen: [String] = []
        var deleted: [String] = []
        var syncToken: ChangeToken?
        while true {
            let page: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: syncToken)]), token: token)
            let zone = try #require(page.zones.first)
            for record in zone.records { if record.isDeleted { deleted.append(record.recordName) } else { seen.append(record.recordName) } }
            syncToken = zone.syncToken
            if !zone.moreComing { break }
        }
        #expect(seen == names.filter { $0 != "old-7" })
        #expect(deleted == ["old-7"])
        // Found by name, with its change tag: an update with it succeeds, and the feed goes on from the old token.
        let lookup: RecordsResponse = try await cloud.post(
            .private, "records/lookup", LookupRecordsRequest(recordNames: ["old-3"], zoneID: todos), token: token)
        let old = try #require(lookup.records.first?.record)
        #expect(old["title"] == .string("old-3"))
        let alice = Device(token: token, user: "_alice", deviceID: "device-1")
        var update = old
        update["title"] = .string("new title")
        let saved = try #require(try await cloud.modify(alice, [RecordOperation(.update, update)]).first?.record)
        #expect(saved.recordChangeTag != old.recordChangeTag)
        let created = try await cloud.modify(alice, [RecordOperation(.create, todo("old-450", "new"))])
        #expect(created.first?.record != nil)
        let stale = try await cloud.modify(alice, [RecordOperation(.create, todo("old-4", "again"))], atomic: false)
        #expect(stale.first?.error?.serverErrorCode == .exists)
        let next: ZoneChangesResponse = try await cloud.post(
            .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: syncToken)]), token: token)
        #expect(next.zones.first?.records.map(\.recordName) == ["old-3", "old-450"])
        await cloud.close()
    }
}
