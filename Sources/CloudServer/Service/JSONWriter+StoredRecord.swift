import CloudModel
import Foundation

/// The parts consecutive records of one response usually share (their zone; a writer, device and time),
/// kept as written JSON so each is written once and copied after.
struct RecordJSONCache {
    fileprivate var zone: ZoneID?
    fileprivate var zoneJSON: [UInt8] = []
    fileprivate var stamp: RecordStamp?
    fileprivate var stampJSON: [UInt8] = []
}

extension JSONWriter {
    /// A stored record in the web services' record shape; a tombstone as `{recordName, deleted: true}`.
    mutating func record(_ record: StoredRecord, zoneID zone: ZoneID, desiredKeys: Set<String>? = nil) throws {
        var cache = RecordJSONCache()
        try self.record(record, zoneID: zone, desiredKeys: desiredKeys, cache: &cache)
    }

    /// A stored record as `record(_:zoneID:desiredKeys:)` writes it, reusing what `cache` holds from the
    /// records before it in the same response.
    mutating func record(_ record: StoredRecord, zoneID zone: ZoneID, desiredKeys: Set<String>? = nil, cache: inout RecordJSONCache) throws {
        raw("{\"recordName\":")
        string(record.recordName)
        if record.deleted {
            raw(",\"deleted\":true,\"zoneID\":")
            cachedZoneID(zone, &cache)
            raw("}")
            return
        }
        raw(",\"recordType\":")
        string(record.recordType)
        raw(",\"recordChangeTag\":")
        string(record.changeTag)
        raw(",\"fields\":")
        if desiredKeys?.isEmpty == true {
            raw("{}")  // only the system fields were asked for: the stored fields are not even parsed
        } else if let desiredKeys {
            let all = try JSONParser.parse(record.fieldsJSON).object(at: "fields")
            json(.object(all.filter { desiredKeys.contains($0.key) }))
        } else {
            raw(record.fieldsJSON)
        }
        raw(",\"created\":")
        cachedStamp(record.created, &cache)
        raw(",\"modified\":")
        cachedStamp(record.modified, &cache)
        raw(",\"deleted\":false,\"zoneID\":")
        cachedZoneID(zone, &cache)
        if let parent = record.parent {
            raw(",\"parent\":{\"recordName\":")
            string(parent)
            raw("}")
        }
        raw("}")
    }

    private mutating func cachedZoneID(_ zone: ZoneID, _ cache: inout RecordJSONCache) {
        if cache.zone != zone {
            var writer = JSONWriter(reserving: 96)
            writer.zoneID(zone)
            cache.zone = zone
            cache.zoneJSON = writer.bytes
        }
        raw(cache.zoneJSON)
    }

    private mutating func cachedStamp(_ stamp: RecordStamp, _ cache: inout RecordJSONCache) {
        if cache.stamp != stamp {
            var writer = JSONWriter(reserving: 128)
            writer.stamp(stamp)
            cache.stamp = stamp
            cache.stampJSON = writer.bytes
        }
        raw(cache.stampJSON)
    }

}

extension StoredRecord {
    /// The record as a value, fields decoded (for conflicts, queries and pushes).
    func record(zoneID: ZoneID) throws -> Record {
        if deleted { return .tombstone(recordName: recordName, zoneID: zoneID) }
        var record = Record(
            recordName: recordName, recordType: recordType, recordChangeTag: changeTag,
            fields: try decodedFields(), zoneID: zoneID,
            parent: parent.map(ParentReference.init(recordName:)))
        record.created = created
        record.modified = modified
        record.deleted = false
        return record
    }

    /// The stored fields object, decoded.
    func decodedFields() throws -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for (name, value) in try JSONParser.parse(fieldsJSON).object(at: "fields") {
            fields[name] = try FieldValue(json: value, path: "fields.\(name)")
        }
        return fields
    }
}
