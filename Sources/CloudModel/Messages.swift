// Request and response bodies of the database endpoints, keyed as CloudKit Web Services spell them.

import Foundation

/// `records/modify` request.
public struct ModifyRecordsRequest: Sendable, Hashable, Codable {
    public var operations: [RecordOperation]
    public var zoneID: ZoneID?
    public var atomic: Bool?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    /// Operations in a zone, atomic or not.
    public init(operations: [RecordOperation], zoneID: ZoneID? = nil, atomic: Bool? = nil) {
        self.operations = operations
        self.zoneID = zoneID
        self.atomic = atomic
    }
}

/// A result list of records or per-item errors (`records/modify`, `records/lookup`).
public struct RecordsResponse: Sendable, Hashable, Codable {
    public var records: [RecordResult]

    /// Wraps the per-item results.
    public init(records: [RecordResult]) { self.records = records }
}

/// `records/lookup` request.
public struct LookupRecordsRequest: Sendable, Hashable, Codable {
    /// A record asked for by name.
    public struct Item: Sendable, Hashable, Codable {
        public var recordName: String
        /// The fields wanted of this record, in place of the request's `desiredKeys`.
        public var desiredKeys: [String]?
        /// Names a record to look up.
        public init(recordName: String, desiredKeys: [String]? = nil) {
            self.recordName = recordName
            self.desiredKeys = desiredKeys
        }
    }

    public var records: [Item]
    public var zoneID: ZoneID?
    public var desiredKeys: [String]?
    /// Answers INT64 and TIMESTAMP values as strings (for clients whose numbers lose precision past 2^53).
    public var numbersAsStrings: Bool?

    /// Looks up records by name in a zone.
    public init(recordNames: [String], zoneID: ZoneID? = nil, desiredKeys: [String]? = nil) {
        self.records = recordNames.map { Item(recordName: $0) }
        self.zoneID = zoneID
        self.desiredKeys = desiredKeys
    }
}

/// A zone as `zones/*` return it.
public struct Zone: Sendable, Hashable, Codable {
    public var zoneID: ZoneID
    public var syncToken: ChangeToken?
    public var atomic: Bool?
    public var deleted: Bool?
    /// Ours: the zone was removed because the user deleted their data.
    public var purged: Bool?

    /// A zone by ID.
    public init(zoneID: ZoneID, syncToken: ChangeToken? = nil, atomic: Bool? = nil) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
    }
}

/// One entry of a `zones` result: a zone, or that zone's error.
public enum ZoneResult: Sendable, Hashable, Codable {
    case zone(Zone)
    case failure(ServerError)

    public init(from decoder: any Decoder) throws {
        self = try PerItem.decode(decoder, failure: ZoneResult.failure, success: ZoneResult.zone)
    }

    public func encode(to encoder: any Encoder) throws { try PerItem.encode(zone, error, to: encoder) }

    /// The zone, when the item succeeded.
    public var zone: Zone? { if case .zone(let z) = self { z } else { nil } }
    /// The error, when the item failed.
    public var error: ServerError? { if case .failure(let e) = self { e } else { nil } }
}

/// A list of zone results (`zones/list`, `zones/lookup`, `zones/modify`).
public struct ZonesResponse: Sendable, Hashable, Codable {
    public var zones: [ZoneResult]

    /// Wraps the per-zone results.
    public init(zones: [ZoneResult]) { self.zones = zones }
}

/// `zones/lookup` request.
public struct LookupZonesRequest: Sendable, Hashable, Codable {
    /// One zone asked for.
    public struct Item: Sendable, Hashable, Codable {
        public var zoneID: ZoneID
        /// Names the zone.
        public init(zoneID: ZoneID) { self.zoneID = zoneID }

        private enum CodingKeys: String, CodingKey { case zoneID }

        /// Reads `{"zoneID":{…}}` or, as the reference has it, a bare zone ID `{"zoneName":…}`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            zoneID = try container.decodeIfPresent(ZoneID.self, forKey: .zoneID) ?? ZoneID(from: decoder)
        }
    }

    public var zones: [Item]

    /// Looks up zones by ID.
    public init(zoneIDs: [ZoneID]) { zones = zoneIDs.map(Item.init(zoneID:)) }
}

/// What a `zones/modify` operation does; `purge` is ours: delete as the user deleting their data.
public enum ZoneOperationType: String, Sendable, Hashable, Codable {
    case create, delete, purge
}

/// `zones/modify` request.
public struct ModifyZonesRequest: Sendable, Hashable, Codable {
    /// One zone operation.
    public struct Operation: Sendable, Hashable, Codable {
        public var operationType: ZoneOperationType
        public var zone: Zone

        /// An operation on a zone.
        public init(_ type: ZoneOperationType, _ zoneID: ZoneID) {
            operationType = type
            zone = Zone(zoneID: zoneID)
        }
    }

    public var operations: [Operation]

    /// A batch of zone operations.
    public init(operations: [Operation]) { self.operations = operations }
}

/// `changes/database` (and the older `zones/changes`) request.
public struct DatabaseChangesRequest: Sendable, Hashable, Codable {
    public var syncToken: ChangeToken?
    public var resultsLimit: Int?

    /// Changes after a token (nil: from the start).
    public init(syncToken: ChangeToken? = nil, resultsLimit: Int? = nil) {
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }
}

/// A zone the database change feed reports: changed, or `deleted` (and `purged`).
public struct ZoneChange: Sendable, Hashable, Codable {
    public var zoneID: ZoneID
    public var deleted: Bool?
    public var purged: Bool?

    /// A zone reported changed or deleted.
    public init(zoneID: ZoneID, deleted: Bool? = nil, purged: Bool? = nil) {
        self.zoneID = zoneID
        self.deleted = deleted
        self.purged = purged
    }
}

/// `changes/database` response.
public struct DatabaseChangesResponse: Sendable, Hashable, Codable {
    public var zones: [ZoneChange]
    public var syncToken: ChangeToken
    public var moreComing: Bool

    /// Zones changed since the request's token, and the new token.
    public init(zones: [ZoneChange], syncToken: ChangeToken, moreComing: Bool) {
        self.zones = zones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}

/// One zone of a `changes/zone` request.
public struct ZoneChangesQuery: Sendable, Hashable, Codable {
    public var zoneID: ZoneID
    public var syncToken: ChangeToken?
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    /// Answers INT64 and TIMESTAMP values as strings (for clients whose numbers lose precision past 2^53).
    public var numbersAsStrings: Bool?

    /// Changes of a zone after a token.
    public init(zoneID: ZoneID, syncToken: ChangeToken? = nil, resultsLimit: Int? = nil) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }
}

/// `changes/zone` request.
public struct ZoneChangesRequest: Sendable, Hashable, Codable {
    public var zones: [ZoneChangesQuery]
    /// Answers INT64 and TIMESTAMP values as strings (for clients whose numbers lose precision past 2^53).
    public var numbersAsStrings: Bool?

    /// Asks for the changes of several zones.
    public init(zones: [ZoneChangesQuery]) { self.zones = zones }
}

/// One zone's page of changes: records and tombstones after the token, or the zone's error.
public struct ZoneChanges: Sendable, Hashable, Codable {
    public var zoneID: ZoneID
    public var records: [Record]
    public var syncToken: ChangeToken?
    public var moreComing: Bool
    /// Set when this zone failed (its `serverErrorCode` etc.).
    public var serverErrorCode: ServerErrorCode?
    public var reason: String?
    public var retryAfter: Double?

    /// A page of a zone's changes.
    public init(zoneID: ZoneID, records: [Record], syncToken: ChangeToken?, moreComing: Bool) {
        self.zoneID = zoneID
        self.records = records
        self.syncToken = syncToken
        self.moreComing = moreComing
    }

    /// A zone's failure inside a `changes/zone` response.
    public static func failure(_ zoneID: ZoneID, _ error: ServerError) -> ZoneChanges {
        var changes = ZoneChanges(zoneID: zoneID, records: [], syncToken: nil, moreComing: false)
        changes.serverErrorCode = error.serverErrorCode
        changes.reason = error.reason
        changes.retryAfter = error.retryAfter
        return changes
    }

    /// This zone's error, if it failed.
    public var error: ServerError? {
        serverErrorCode.map { ServerError($0, reason ?? $0.rawValue, retryAfter: retryAfter) }
    }

    private enum CodingKeys: String, CodingKey {
        case zoneID, records, syncToken, moreComing, serverErrorCode, condition, reason, retryAfter
    }

    /// Reads a zone's page; a failed zone's `serverErrorCode` is refined by its `condition` (see `ServerErrorCode`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            zoneID: try container.decode(ZoneID.self, forKey: .zoneID),
            records: try container.decodeIfPresent([Record].self, forKey: .records) ?? [],
            syncToken: try container.decodeIfPresent(ChangeToken.self, forKey: .syncToken),
            moreComing: try container.decodeIfPresent(Bool.self, forKey: .moreComing) ?? false)
        if let wire = try container.decodeIfPresent(String.self, forKey: .serverErrorCode) {
            let condition = try container.decodeIfPresent(String.self, forKey: .condition)
            serverErrorCode = ServerErrorCode(wire: wire, condition: condition) ?? .internalError
        }
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        retryAfter = try container.decodeIfPresent(Double.self, forKey: .retryAfter)
    }

    /// Writes a zone's page; a failure with a documented code only, ours in `condition`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zoneID, forKey: .zoneID)
        try container.encode(records, forKey: .records)
        try container.encodeIfPresent(syncToken, forKey: .syncToken)
        try container.encode(moreComing, forKey: .moreComing)
        if let serverErrorCode {
            try container.encode(serverErrorCode.wireCode, forKey: .serverErrorCode)
            if !serverErrorCode.isDocumented { try container.encode(serverErrorCode, forKey: .condition) }
        }
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
    }
}

/// `changes/zone` response.
public struct ZoneChangesResponse: Sendable, Hashable, Codable {
    public var zones: [ZoneChanges]

    /// The pages of each zone asked for.
    public init(zones: [ZoneChanges]) { self.zones = zones }
}

/// `records/changes` request: the older single-zone form.
public struct RecordChangesRequest: Sendable, Hashable, Codable {
    public var zoneID: ZoneID?
    public var syncToken: ChangeToken?
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    /// Answers INT64 and TIMESTAMP values as strings (for clients whose numbers lose precision past 2^53).
    public var numbersAsStrings: Bool?

    /// Changes of one zone after a token.
    public init(zoneID: ZoneID?, syncToken: ChangeToken? = nil, resultsLimit: Int? = nil) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }
}

/// `records/changes` response.
public struct RecordChangesResponse: Sendable, Hashable, Codable {
    public var zoneID: ZoneID?
    public var records: [Record]
    public var syncToken: ChangeToken
    public var moreComing: Bool

    /// A page of one zone's changes.
    public init(zoneID: ZoneID?, records: [Record], syncToken: ChangeToken, moreComing: Bool) {
        self.zoneID = zoneID
        self.records = records
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}

/// `zones/changes` response: the older form of the database change feed.
public struct ZonesChangesResponse: Sendable, Hashable, Codable {
    public var zones: [Zone]
    public var syncToken: ChangeToken
    public var moreComing: Bool

    /// Zones changed after the token.
    public init(zones: [Zone], syncToken: ChangeToken, moreComing: Bool) {
        self.zones = zones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}

/// `users/caller` and `users/current` response.
public struct UserIdentity: Sendable, Hashable, Codable {
    public var userRecordName: String
    public var firstName: String?
    public var lastName: String?
    /// Ours: the account name the user signed up with.
    public var account: String?

    /// The caller's identity.
    public init(userRecordName: String, account: String? = nil) {
        self.userRecordName = userRecordName
        self.account = account
    }
}

/// An empty JSON object body.
public struct EmptyBody: Sendable, Hashable, Codable {
    /// `{}`.
    public init() {}
}
