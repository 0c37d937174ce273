import Foundation

/// Who changed a record, from which device, and when (`created` / `modified`).
public struct RecordStamp: Sendable, Hashable, Codable {
    /// Milliseconds since 1970.
    public var timestamp: Int64
    public var userRecordName: String
    public var deviceID: String?

    /// A stamp of a change by a user on a device at a time in ms.
    public init(timestamp: Int64, userRecordName: String, deviceID: String? = nil) {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }

    /// The time of the stamp.
    public var date: Date { Date(timeIntervalSince1970: Double(timestamp) / 1000) }
}

/// A record parent pointer (`{"recordName"}`), CloudKit's hierarchy for sharing.
public struct ParentReference: Sendable, Hashable, Codable {
    public var recordName: String

    /// Points at the parent record by name.
    public init(recordName: String) { self.recordName = recordName }
}

/// A CloudKit record as the web services spell it.
public struct Record: Sendable, Hashable, Codable {
    public var recordName: String
    public var recordType: String?
    public var recordChangeTag: ChangeTag?
    public var fields: [String: FieldValue]?
    public var created: RecordStamp?
    public var modified: RecordStamp?
    public var deleted: Bool?
    public var zoneID: ZoneID?
    public var parent: ParentReference?
    /// The share this record roots, when shared (`{recordName, zoneID}`).
    public var share: Reference?

    /// A record with a name and type, and optionally its fields and change tag.
    public init(
        recordName: String, recordType: String? = nil, recordChangeTag: ChangeTag? = nil,
        fields: [String: FieldValue]? = nil, zoneID: ZoneID? = nil, parent: ParentReference? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.zoneID = zoneID
        self.parent = parent
    }

    /// A tombstone: the record that was deleted, as a change feed reports it.
    public static func tombstone(recordName: String, zoneID: ZoneID?) -> Record {
        var record = Record(recordName: recordName, zoneID: zoneID)
        record.deleted = true
        return record
    }

    /// Whether this entry is a tombstone.
    public var isDeleted: Bool { deleted == true }

    /// A field's value.
    public subscript(field: String) -> FieldValue? {
        get { fields?[field] }
        set {
            var all = fields ?? [:]
            all[field] = newValue
            fields = all
        }
    }
}

/// What a `records/modify` operation does.
public enum RecordOperationType: String, Sendable, Hashable, Codable, CaseIterable {
    case create, update, forceUpdate, replace, forceReplace, delete, forceDelete

    /// Whether the operation must carry the current `recordChangeTag`.
    public var checksChangeTag: Bool { self == .update || self == .replace || self == .delete }

    /// Whether the operation removes the record.
    public var isDelete: Bool { self == .delete || self == .forceDelete }
}

/// One operation of a `records/modify` request.
public struct RecordOperation: Sendable, Hashable, Codable {
    public var operationType: RecordOperationType
    public var record: Record
    public var desiredKeys: [String]?

    /// An operation on a record.
    public init(_ operationType: RecordOperationType, _ record: Record, desiredKeys: [String]? = nil) {
        self.operationType = operationType
        self.record = record
        self.desiredKeys = desiredKeys
    }
}
