import CloudModel

/// Where a record lives on the device: database scope, zone (name and owner) and record name.
public struct RecordKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var scope: DatabaseScope
    public var zoneName: String
    /// The zone owner's record name; empty for the caller's own zones and the public database.
    public var zoneOwner: String
    public var recordName: String

    /// A record in a zone of a database.
    public init(scope: DatabaseScope, zoneName: String, zoneOwner: String = "", recordName: String) {
        self.scope = scope
        self.zoneName = zoneName
        self.zoneOwner = scope == .shared ? zoneOwner : ""
        self.recordName = recordName
    }

    /// A record of the private `Todos` zone.
    public static func privateTodo(_ recordName: String) -> RecordKey {
        RecordKey(scope: .private, zoneName: TodoSchema.zoneName, recordName: recordName)
    }

    /// A record of the public board (the public database's default zone).
    public static func publicRecord(_ recordName: String) -> RecordKey {
        RecordKey(scope: .public, zoneName: ZoneID.defaultZoneName, recordName: recordName)
    }

    /// The zone's key.
    public var zone: ZoneKey { ZoneKey(scope: scope, zoneName: zoneName, zoneOwner: zoneOwner) }

    /// The zone ID to send to the cloud.
    public var zoneID: ZoneID { zone.zoneID }

    public var description: String { "\(scope.rawValue)/\(zone.zoneID)/\(recordName)" }

    public static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
        (lhs.scope.rawValue, lhs.zoneOwner, lhs.zoneName, lhs.recordName)
            < (rhs.scope.rawValue, rhs.zoneOwner, rhs.zoneName, rhs.recordName)
    }
}

/// A zone as the device keys it: scope, name and owner (empty for the caller's own).
public struct ZoneKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public var scope: DatabaseScope
    public var zoneName: String
    public var zoneOwner: String

    /// A zone of a database; the owner is kept only for the shared database.
    public init(scope: DatabaseScope, zoneName: String, zoneOwner: String = "") {
        self.scope = scope
        self.zoneName = zoneName
        self.zoneOwner = scope == .shared ? zoneOwner : ""
    }

    /// The key of a zone the cloud names.
    public init(scope: DatabaseScope, zoneID: ZoneID) {
        self.init(scope: scope, zoneName: zoneID.zoneName, zoneOwner: zoneID.ownerRecordName ?? "")
    }

    /// The private `Todos` zone.
    public static let privateTodos = ZoneKey(scope: .private, zoneName: TodoSchema.zoneName)
    /// The public board.
    public static let publicBoard = ZoneKey(scope: .public, zoneName: ZoneID.defaultZoneName)

    /// The zone ID to send to the cloud.
    public var zoneID: ZoneID { ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner.isEmpty ? nil : zoneOwner) }

    public var description: String { "\(scope.rawValue)/\(zoneID)" }
}
