import CloudModel
import Foundation

extension StoredRecord {
    /// The record as a writer takes it: its system fields, and its fields (those `desiredKeys` names, when given;
    /// none asked for, the stored fields are not even parsed). A tombstone is `{recordName, deleted: true, zoneID}`.
    func wire(zoneID zone: ZoneID, desiredKeys: Set<String>? = nil) throws -> (RecordSystemFields, RecordFields) {
        if deleted { return (RecordSystemFields(recordName: recordName, deleted: true, zoneID: zone), .absent) }
        let system = RecordSystemFields(
            recordName: recordName, recordType: recordType, recordChangeTag: changeTag, created: created, modified: modified,
            deleted: false, zoneID: zone, parent: parent)
        guard let desiredKeys else { return (system, .canonical(fieldsJSON)) }
        if desiredKeys.isEmpty { return (system, .json([:])) }
        return (system, .json(try JSONParser.parse(fieldsJSON).object(at: "fields").filter { desiredKeys.contains($0.key) }))
    }
}

// The answers that carry stored records, each taking one as `wire` gives it.

extension RecordsResponseWriter {
    /// Appends a stored record (see `StoredRecord.wire`).
    mutating func record(_ record: StoredRecord, zoneID: ZoneID, desiredKeys: Set<String>? = nil) throws {
        let (system, fields) = try record.wire(zoneID: zoneID, desiredKeys: desiredKeys)
        self.record(system, fields: fields)
    }
}

extension ZoneChangesWriter {
    /// Appends a stored record to the open page (see `StoredRecord.wire`).
    mutating func record(_ record: StoredRecord, zoneID: ZoneID, desiredKeys: Set<String>? = nil) throws {
        let (system, fields) = try record.wire(zoneID: zoneID, desiredKeys: desiredKeys)
        self.record(system, fields: fields)
    }
}

extension JSONWriter {
    /// Appends a stored record on its own (see `StoredRecord.wire`).
    mutating func record(_ record: StoredRecord, zoneID: ZoneID, desiredKeys: Set<String>? = nil) throws {
        let (system, fields) = try record.wire(zoneID: zoneID, desiredKeys: desiredKeys)
        var cache = RecordJSONCache()
        self.record(system, fields: fields, cache: &cache)
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
