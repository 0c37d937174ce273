/// The error codes of CloudKit Web Services, plus two it leaves undocumented.
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
    /// Ours: a change token older than the server's tombstone retention.
    case changeTokenExpired = "CHANGE_TOKEN_EXPIRED"
    /// Ours: the user purged this zone; it answers so until created again.
    case userDeletedZone = "USER_DELETED_ZONE"
    /// Ours: a request or record over a documented limit.
    case limitExceeded = "LIMIT_EXCEEDED"

    /// The HTTP status a request-level error of this code is sent with.
    public var httpStatus: Int {
        switch self {
        case .accessDenied: 403
        case .atomicError, .badRequest: 400
        case .authenticationFailed: 401
        case .authenticationRequired: 421
        case .conflict, .exists: 409
        case .internalError: 500
        case .notFound, .zoneNotFound, .userDeletedZone: 404
        case .quotaExceeded, .limitExceeded: 413
        case .throttled: 429
        case .tryAgainLater: 503
        case .validatingReferenceError: 412
        case .changeTokenExpired: 410
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
