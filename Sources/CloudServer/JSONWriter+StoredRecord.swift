import CloudModel
import Foundation

extension JSONWriter {
    /// A stored record in the web services' record shape; a tombstone as `{recordName, deleted: true}`.
    mutating func record(_ record: StoredRecord, zoneID zone: ZoneID, desiredKeys: Set<String>? = nil) throws {
        raw("{\"recordName\":")
        string(record.recordName)
        if record.deleted {
            raw(",\"deleted\":true,\"zoneID\":")
            zoneID(zone)
            raw("}")
            return
        }
        raw(",\"recordType\":")
        string(record.recordType)
        raw(",\"recordChangeTag\":")
        string(record.changeTag)
        raw(",\"fields\":")
        if let desiredKeys {
            let all = try JSONParser.parse(record.fieldsJSON).object(at: "fields")
            json(.object(all.filter { desiredKeys.contains($0.key) }))
        } else {
            raw(record.fieldsJSON)
        }
        raw(",\"created\":")
        stamp(record.created)
        raw(",\"modified\":")
        stamp(record.modified)
        raw(",\"deleted\":false,\"zoneID\":")
        zoneID(zone)
        if let parent = record.parent {
            raw(",\"parent\":{\"recordName\":")
            string(parent)
            raw("}")
        }
        raw("}")
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
