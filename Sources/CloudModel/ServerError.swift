/// The error conditions of the cloud: the 14 codes CloudKit Web Services documents, and three finer ones of ours.
///
/// Only documented codes go in `serverErrorCode` on the wire: one of ours travels under its `wireCode` (and that
/// code's HTTP status), its own name in the extra key `condition`, which our client reads and others ignore.
public enum ServerErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    case accessDenied = "ACCESS_DENIED"
    case atomicError = "ATOMIC_ERROR"
    case authenticationFailed = "AUTHENTICATION_FAILED"
    case authenticationRequired = "AUTHENTICATION_REQUIRED"
    case badRequest = "BAD_REQUEST"
    case conflict = "CONFLICT"
    case exists = "EXISTS"
    case internalError = "INTERNAL_ERROR"
    case notFound = "NOT_FOUND"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case throttled = "THROTTLED"
    case tryAgainLater = "TRY_AGAIN_LATER"
    case validatingReferenceError = "VALIDATING_REFERENCE_ERROR"
    case zoneNotFound = "ZONE_NOT_FOUND"
    /// Ours: a change token whose changes are no longer all in the feed (sent as `BAD_REQUEST`).
    case changeTokenExpired = "CHANGE_TOKEN_EXPIRED"
    /// Ours: the user purged this zone; it answers so until created again (sent as `ZONE_NOT_FOUND`).
    case userDeletedZone = "USER_DELETED_ZONE"
    /// Ours: a request or record over a documented limit (sent as `BAD_REQUEST`).
    case limitExceeded = "LIMIT_EXCEEDED"

    /// The extra key of an error body that names one of our conditions.
    public static let conditionKey = "condition"

    /// The documented code this condition is sent as.
    public var wireCode: ServerErrorCode {
        switch self {
        case .changeTokenExpired, .limitExceeded: .badRequest
        case .userDeletedZone: .zoneNotFound
        default: self
        }
    }

    /// Whether the reference documents this code.
    public var isDocumented: Bool { wireCode == self }

    /// The condition an answer names: its `condition` when that is one of ours sent under `code`, else `code`
    /// (an older cloud's undocumented code is read too); nil for a code nobody knows.
    public init?(wire code: String, condition: String?) {
        if let condition, let precise = ServerErrorCode(rawValue: condition), !precise.isDocumented, precise.wireCode.rawValue == code {
            self = precise
        } else if let plain = ServerErrorCode(rawValue: code) {
            self = plain
        } else {
            return nil
        }
    }

    /// The HTTP status a request-level error of this condition is sent with: its documented code's.
    public var httpStatus: Int {
        switch wireCode {
        case .accessDenied: 403
        case .atomicError, .badRequest: 400
        case .authenticationFailed: 401
        case .authenticationRequired: 421
        case .conflict, .exists: 409
        case .internalError: 500
        case .notFound, .zoneNotFound: 404
        case .quotaExceeded: 413
        case .throttled: 429
        case .tryAgainLater: 503
        case .validatingReferenceError: 412
        case .changeTokenExpired, .userDeletedZone, .limitExceeded: 400  // never: not documented codes
        }
    }
}

/// The body of an error response, request-level or per item (`{uuid, serverErrorCode, reason, retryAfter?}`).
public struct ServerError: Error, Sendable, Hashable, Codable {
    public var uuid: String?
    public var serverErrorCode: ServerErrorCode
    public var reason: String
    /// Seconds to wait before retrying.
    public var retryAfter: Double?
    public var recordName: String?
    public var zoneID: ZoneID?
    public var subscriptionID: String?
    /// The root record of a failed `shares/modify` item (ours).
    public var rootRecordName: String?
    /// The share record of a failed accept or leave item (ours).
    public var shareRecordName: String?
    /// The server's current record, for a `CONFLICT` (ours; CloudKit hands it to native clients).
    public var serverRecord: Record?

    /// An error of a code with a human reason.
    public init(
        _ code: ServerErrorCode, _ reason: String, retryAfter: Double? = nil, uuid: String? = nil
    ) {
        self.serverErrorCode = code
        self.reason = reason
        self.retryAfter = retryAfter
        self.uuid = uuid
    }
}

extension ServerError {
    private enum CodingKeys: String, CodingKey {
        case uuid, serverErrorCode, condition, reason, retryAfter, recordName, zoneID, subscriptionID, rootRecordName
        case shareRecordName, serverRecord
    }

    /// Reads an error body: `serverErrorCode`, refined by `condition` (see `ServerErrorCode`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let wire = try container.decode(String.self, forKey: .serverErrorCode)
        guard let code = ServerErrorCode(wire: wire, condition: try container.decodeIfPresent(String.self, forKey: .condition)) else {
            throw DecodingError.dataCorruptedError(forKey: .serverErrorCode, in: container, debugDescription: "unknown error code")
        }
        self.init(
            code, try container.decodeIfPresent(String.self, forKey: .reason) ?? wire,
            retryAfter: try container.decodeIfPresent(Double.self, forKey: .retryAfter),
            uuid: try container.decodeIfPresent(String.self, forKey: .uuid))
        recordName = try container.decodeIfPresent(String.self, forKey: .recordName)
        zoneID = try container.decodeIfPresent(ZoneID.self, forKey: .zoneID)
        subscriptionID = try container.decodeIfPresent(String.self, forKey: .subscriptionID)
        rootRecordName = try container.decodeIfPresent(String.self, forKey: .rootRecordName)
        shareRecordName = try container.decodeIfPresent(String.self, forKey: .shareRecordName)
        serverRecord = try container.decodeIfPresent(Record.self, forKey: .serverRecord)
    }

    /// Writes an error body: only a documented code in `serverErrorCode`, ours in `condition`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(uuid, forKey: .uuid)
        try container.encode(serverErrorCode.wireCode, forKey: .serverErrorCode)
        if !serverErrorCode.isDocumented { try container.encode(serverErrorCode, forKey: .condition) }
        try container.encode(reason, forKey: .reason)
        try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        try container.encodeIfPresent(recordName, forKey: .recordName)
        try container.encodeIfPresent(zoneID, forKey: .zoneID)
        try container.encodeIfPresent(subscriptionID, forKey: .subscriptionID)
        try container.encodeIfPresent(rootRecordName, forKey: .rootRecordName)
        try container.encodeIfPresent(shareRecordName, forKey: .shareRecordName)
        try container.encodeIfPresent(serverRecord, forKey: .serverRecord)
    }
}

extension ServerError: CustomStringConvertible {
    public var description: String { "\(serverErrorCode.rawValue): \(reason)" }
}

/// One entry of a `records` result array: a record, or that item's error.
public enum RecordResult: Sendable, Hashable, Codable {
    case record(Record)
    case failure(ServerError)

    public init(from decoder: any Decoder) throws {
        self = try PerItem.decode(decoder, failure: RecordResult.failure, success: RecordResult.record)
    }

    public func encode(to encoder: any Encoder) throws { try PerItem.encode(record, error, to: encoder) }

    /// The record, when the item succeeded.
    public var record: Record? { if case .record(let r) = self { r } else { nil } }
    /// The error, when the item failed.
    public var error: ServerError? { if case .failure(let e) = self { e } else { nil } }
}

/// The entries of per-item result arrays (`records`, `zones`, `subscriptions`, `shares`): an item, or its error.
enum PerItem {
    private enum Probe: String, CodingKey { case serverErrorCode }

    /// Decodes an entry: an error when it carries `serverErrorCode`, else the item.
    static func decode<Result, Value: Decodable>(
        _ decoder: any Decoder, failure: (ServerError) -> Result, success: (Value) -> Result
    ) throws -> Result {
        try decoder.container(keyedBy: Probe.self).contains(.serverErrorCode)
            ? failure(try ServerError(from: decoder)) : success(try Value(from: decoder))
    }

    /// Encodes an entry: the item when there is one, else the error.
    static func encode(_ value: (any Encodable)?, _ error: ServerError?, to encoder: any Encoder) throws {
        if let value { try value.encode(to: encoder) } else { try error?.encode(to: encoder) }
    }
}
