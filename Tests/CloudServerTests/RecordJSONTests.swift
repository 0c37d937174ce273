@testable import CloudServer
import CloudModel
import Foundation
import Testing

/// Responses write what consecutive records share once (RecordJSONCache): the bytes must be those of each record
/// written alone.
@Suite("Record JSON with shared parts")
struct RecordJSONTests {
    @Test func cachedPartsWriteTheSameBytes() throws {
        let zones = [ZoneID(zoneName: "Todos", ownerRecordName: "_a"), ZoneID(zoneName: "Todos", ownerRecordName: "_b"), ZoneID(zoneName: "Other")]
        let stamps = [
            RecordStamp(timestamp: 1, userRecordName: "_a", deviceID: "d1"), RecordStamp(timestamp: 1, userRecordName: "_a", deviceID: nil),
            RecordStamp(timestamp: 2, userRecordName: "_a", deviceID: "d1"), RecordStamp(timestamp: 2, userRecordName: "_\"q\"", deviceID: "d2"),
        ]
        var records: [(StoredRecord, ZoneID)] = []
        for index in 0..<60 {
            let created = stamps[index % stamps.count]
            let modified = stamps[(index / 3) % stamps.count]
            let record = StoredRecord(
                zonePK: 1, recordName: "r\(index)", recordType: "Todo", changeTag: String(index, radix: 36), seq: Int64(index),
                deleted: index % 7 == 0, created: created, modified: modified, parent: index % 5 == 0 ? "L" : nil,
                fieldsJSON: Data(#"{"title":{"type":"STRING","value":"T"}}"#.utf8))
            records.append((record, zones[(index / 4) % zones.count]))
        }
        var shared = RecordsResponseWriter()
        var separate = Array(#"{"records":["#.utf8)
        for (index, (record, zone)) in records.enumerated() {
            try shared.record(record, zoneID: zone)
            var alone = JSONWriter()
            try alone.record(record, zoneID: zone)
            if index > 0 { separate.append(UInt8(ascii: ",")) }
            separate += alone.bytes
        }
        separate += Array("]}".utf8)
        #expect(shared.finish() == separate)

        // And the shape the writer has always had, spelled out for one record.
        var one = JSONWriter()
        try one.record(records[1].0, zoneID: records[1].1)
        let expected = #"{"recordName":"r1","recordType":"Todo","recordChangeTag":"1","fields":{"title":{"type":"STRING","value":"T"}},"#
            + #""created":{"timestamp":1,"userRecordName":"_a"},"modified":{"timestamp":1,"userRecordName":"_a","deviceID":"d1"},"#
            + #""deleted":false,"zoneID":{"zoneName":"Todos","ownerRecordName":"_a"}}"#
        #expect(String(decoding: one.bytes, as: UTF8.self) == expected)
    }
}
