@testable import CloudServer
import CloudModel
import Foundation
import TestSupport
import Testing

/// changes/zone pages are written by the service from the rows `changes` reads (`CloudService.writeRecords`): the
/// bytes must be those `JSONWriter.record` writes for each record alone, and a page stops at its record limit or
/// once past its byte limit.
@Suite("Change pages written from rows")
struct ChangesJSONTests {
    @Test func rowsWriteWhatRecordsWrite() async throws {
        let directory = ScratchDirectory.path("changes-json")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteCloudStore.open(directory: directory)
        let database = DatabaseKey(container: "c/development", scope: .private, owner: "_owner")
        let names = ["plain", "quote\"d", "back\\slash", "tab\there", "ctl\u{01}", "写周报", "emoji 🥛", "", "del\u{7F}"]
        let zone = try await store.write { tx -> StoredZone in
            let zone = try await tx.createZone(database, name: "Todos")
            for index in 0..<240 {
                let batch = Int64(index / 50)
                let user = index % 11 == 0 ? "_other" : "_owner"
                let device: String? = index % 13 == 0 ? nil : "device-\(batch % 2)"
                let record = StoredRecord(
                    zonePK: zone.pk, recordName: "r\(index) \(names[index % names.count])", recordType: index % 17 == 0 ? "List" : "Todo",
                    changeTag: String(index + 1, radix: 36), seq: try await tx.nextSequence(.zone(pk: zone.pk)), deleted: index % 9 == 4,
                    created: RecordStamp(timestamp: 1_700_000_000_000 + batch, userRecordName: user, deviceID: device),
                    modified: RecordStamp(timestamp: 1_700_000_000_000 + batch + Int64(index % 3), userRecordName: "_owner", deviceID: device),
                    parent: index % 5 == 0 ? "list \(names[index % names.count])" : nil,
                    fieldsJSON: index % 9 == 4 ? Data("{}".utf8) : Data(#"{"title":{"type":"STRING","value":"T\#(index)"}}"#.utf8))
                #expect(try await tx.insertRecord(record))
            }
            return zone
        }
        for (after, limit, tombstones) in [(Int64(0), 200, false), (0, 200, true), (30, 7, true), (230, 200, true), (0, 1, false), (500, 10, true)] {
            let rows = try await store.read { tx in
                try await tx.changes(zonePK: zone.pk, after: after, limit: limit + 1, includeTombstones: tombstones)
            }
            var written = ZoneChangesWriter(form: .recordChanges)
            written.beginZone(zone.zoneID)
            let result = try CloudService.writeRecords(rows, zoneID: zone.zoneID, limit: limit, byteLimit: .max, into: &written)
            written.endZone(syncToken: ChangeToken(rawValue: "t"), moreComing: result.moreComing)
            var reference = JSONWriter()
            reference.raw(#"{"zoneID":"#)
            reference.zoneID(zone.zoneID)
            reference.raw(#","records":["#)
            for (index, record) in rows.prefix(limit).enumerated() {
                reference.separator(index)
                try reference.record(record, zoneID: zone.zoneID)
                #expect(!record.deleted || tombstones)
            }
            reference.raw(#"],"syncToken":"t","moreComing":"#)
            reference.bool(rows.count > limit)
            reference.raw("}")
            #expect(result.lastSeq == rows.prefix(limit).last?.seq)
            #expect(result.moreComing == (rows.count > limit))
            #expect(written.finish() == reference.bytes, "after \(after), limit \(limit), tombstones \(tombstones)")
            if rows.count > 2 {
                // A byte limit reached by the first record ends the page after it, with more to come.
                var cut = ZoneChangesWriter()
                cut.beginZone(zone.zoneID)
                let first = try CloudService.writeRecords(rows, zoneID: zone.zoneID, limit: limit, byteLimit: 1, into: &cut)
                #expect(first.lastSeq == rows[0].seq && first.moreComing)
            }
        }
    }
}
