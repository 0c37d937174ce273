@testable import CloudServer
import CloudModel
import Foundation
import Testing

/// changes/zone pages are written straight from SQLite rows (SQLiteStoreTransaction.writeChanges): the bytes must
/// be those of the records `changes` reads, written by `JSONWriter.record`.
@Suite("Change pages written from rows")
struct ChangesJSONTests {
    @Test func rowsWriteWhatRecordsWrite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("changes-json-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteCloudStore(directory: directory)
        let database = DatabaseKey(container: "c/development", scope: .private, owner: "_owner")
        let names = ["plain", "quote\"d", "back\\slash", "tab\there", "ctl\u{01}", "写周报", "emoji 🥛", "", "del\u{7F}"]
        let zone = try await store.write { tx -> StoredZone in
            let zone = try tx.createZone(database, name: "Todos")
            for index in 0..<240 {
                let batch = Int64(index / 50)
                let user = index % 11 == 0 ? "_other" : "_owner"
                let device: String? = index % 13 == 0 ? nil : "device-\(batch % 2)"
                let record = StoredRecord(
                    zonePK: zone.pk, recordName: "r\(index) \(names[index % names.count])", recordType: index % 17 == 0 ? "List" : "Todo",
                    changeTag: String(index + 1, radix: 36), seq: try tx.nextSequence(), deleted: index % 9 == 4,
                    created: RecordStamp(timestamp: 1_700_000_000_000 + batch, userRecordName: user, deviceID: device),
                    modified: RecordStamp(timestamp: 1_700_000_000_000 + batch + Int64(index % 3), userRecordName: "_owner", deviceID: device),
                    parent: index % 5 == 0 ? "list \(names[index % names.count])" : nil,
                    fieldsJSON: index % 9 == 4 ? Data("{}".utf8) : Data(#"{"title":{"type":"STRING","value":"T\#(index)"}}"#.utf8))
                #expect(try tx.insertRecord(record))
            }
            return zone
        }
        for (after, limit, tombstones) in [(Int64(0), 200, false), (0, 200, true), (30, 7, true), (230, 200, true), (0, 1, false), (500, 10, true)] {
            let (direct, reference) = try await store.read { tx -> ([UInt8], [UInt8]) in
                var direct = JSONWriter()
                let written = try tx.writeChanges(
                    zonePK: zone.pk, after: after, limit: limit, byteLimit: .max, includeTombstones: tombstones, zoneID: zone.zoneID, into: &direct)
                let rows = try tx.changes(zonePK: zone.pk, after: after, limit: limit + 1, includeTombstones: tombstones)
                var reference = JSONWriter()
                for (index, record) in rows.prefix(limit).enumerated() {
                    reference.separator(index)
                    try reference.record(record, zoneID: zone.zoneID)
                }
                #expect(written.lastSeq == rows.prefix(limit).last?.seq)
                #expect(written.moreComing == (rows.count > limit))
                return (direct.bytes, reference.bytes)
            }
            #expect(direct == reference, "after \(after), limit \(limit), tombstones \(tombstones)")
        }
    }
}
