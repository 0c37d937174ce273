import CloudModel
import Foundation

/// Builds JSON responses by appending bytes, splicing stored record fields in without decoding them.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    init(reserving capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ data: Data) { bytes.append(contentsOf: data) }

    mutating func raw(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    mutating func int(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// A JSON string literal with the escapes RFC 8259 requires.
    mutating func string(_ value: String) {
        bytes.append(0x22)
        for byte in value.utf8 {
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }

    /// Any Encodable value, through JSONEncoder.
    mutating func encodable<T: Encodable>(_ value: T) throws {
        bytes.append(contentsOf: try JSONWriter.encoder.encode(value))
    }

    mutating func zoneID(_ zone: ZoneID) {
        raw("{\"zoneName\":")
        string(zone.zoneName)
        if let owner = zone.ownerRecordName {
            raw(",\"ownerRecordName\":")
            string(owner)
        }
        raw("}")
    }

    private mutating func stamp(_ stamp: RecordStamp) {
        raw("{\"timestamp\":")
        int(stamp.timestamp)
        raw(",\"userRecordName\":")
        string(stamp.userRecordName)
        if let device = stamp.deviceID {
            raw(",\"deviceID\":")
            string(device)
        }
        raw("}")
    }

    /// A stored record in the web services' record shape; a tombstone as `{recordName, deleted: true}`.
    mutating func record(_ record: StoredRecord, zoneID: ZoneID, desiredKeys: Set<String>? = nil) throws {
        raw("{\"recordName\":")
        string(record.recordName)
        if record.deleted {
            raw(",\"deleted\":true,\"zoneID\":")
            self.zoneID(zoneID)
            raw("}")
            return
        }
        raw(",\"recordType\":")
        string(record.recordType)
        raw(",\"recordChangeTag\":")
        string(record.changeTag)
        raw(",\"fields\":")
        if let desiredKeys {
            let all = try JSONWriter.decoder.decode([String: JSONValue].self, from: record.fieldsJSON)
            try encodable(all.filter { desiredKeys.contains($0.key) })
        } else {
            raw(record.fieldsJSON)
        }
        raw(",\"created\":")
        stamp(record.created)
        raw(",\"modified\":")
        stamp(record.modified)
        raw(",\"deleted\":false,\"zoneID\":")
        self.zoneID(zoneID)
        if let parent = record.parent {
            raw(",\"parent\":{\"recordName\":")
            string(parent)
            raw("}")
        }
        raw("}")
    }

    /// A comma between array elements after the first.
    mutating func separator(_ index: Int) { if index > 0 { bytes.append(0x2C) } }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder = JSONDecoder()
}

extension StoredRecord {
    /// The record as a value, fields decoded (for conflicts, queries and pushes).
    func record(zoneID: ZoneID) throws -> Record {
        if deleted { return .tombstone(recordName: recordName, zoneID: zoneID) }
        var record = Record(
            recordName: recordName, recordType: recordType, recordChangeTag: changeTag,
            fields: try JSONWriter.decoder.decode([String: FieldValue].self, from: fieldsJSON), zoneID: zoneID,
            parent: parent.map(ParentReference.init(recordName:)))
        record.created = created
        record.modified = modified
        record.deleted = false
        return record
    }
}
