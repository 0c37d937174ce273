import CloudModel

/// A cloud failure as the device sees it; its codes mirror `CKError.Code`.
public struct CloudError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in CKError's vocabulary.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The record changed on the server since the change tag sent (`CONFLICT`, or `EXISTS` on create).
        case serverRecordChanged
        /// The record does not exist (`NOT_FOUND`).
        case unknownItem
        /// The zone does not exist (`ZONE_NOT_FOUND`).
        case zoneNotFound
        /// The user purged the zone (`USER_DELETED_ZONE`).
        case userDeletedZone
        /// The change token is older than the server keeps tombstones (`CHANGE_TOKEN_EXPIRED`).
        case changeTokenExpired
        /// Too many requests (`THROTTLED`); wait `retryAfter`.
        case requestRateLimited
        /// The zone is busy; wait `retryAfter`.
        case zoneBusy
        /// The service is unavailable (`TRY_AGAIN_LATER`); wait `retryAfter`.
        case serviceUnavailable
        /// The cloud could not be reached.
        case networkUnavailable
        /// No valid sign-in (`AUTHENTICATION_REQUIRED`, `AUTHENTICATION_FAILED`).
        case notAuthenticated
        /// The caller may not do this (`ACCESS_DENIED`).
        case permissionFailure
        /// Some items of a batch failed; see `itemErrors`.
        case partialFailure
        /// An item of an atomic batch failed, so this one was not applied (`ATOMIC_ERROR`).
        case batchRequestFailed
        /// A request or record over a documented limit (`LIMIT_EXCEEDED`).
        case limitExceeded
        /// The account is out of storage (`QUOTA_EXCEEDED`).
        case quotaExceeded
        /// A reference points at a record that does not exist (`VALIDATING_REFERENCE_ERROR`).
        case referenceViolation
        /// The request was malformed (`BAD_REQUEST`).
        case badRequest
        /// The server failed (`INTERNAL_ERROR`).
        case internalError
        /// The server answered something this client cannot read.
        case invalidResponse
    }

    public var code: Code
    /// Words for a person.
    public var reason: String
    /// Seconds the server asked us to wait before retrying.
    public var retryAfter: Double?
    /// The server's current record, for `serverRecordChanged`.
    public var serverRecord: Record?
    /// The record the error is about, when it is a per-item error.
    public var recordName: String?
    /// Per-record errors of a `partialFailure`, by record name.
    public var itemErrors: [String: CloudError]
    /// The server's code, when the server produced the error.
    public var serverErrorCode: ServerErrorCode?
    /// The HTTP status, when there was one.
    public var httpStatus: Int?

    /// An error of a code with a reason.
    public init(
        _ code: Code, _ reason: String, retryAfter: Double? = nil, serverRecord: Record? = nil,
        recordName: String? = nil, itemErrors: [String: CloudError] = [:]
    ) {
        self.code = code
        self.reason = reason
        self.retryAfter = retryAfter
        self.serverRecord = serverRecord
        self.recordName = recordName
        self.itemErrors = itemErrors
    }

    /// Maps the server's error body (request-level or per item) onto a CKError-like code.
    public init(_ server: ServerError, httpStatus: Int? = nil) {
        let code: Code =
            switch server.serverErrorCode {
            case .accessDenied: .permissionFailure
            case .atomicError: .batchRequestFailed
            case .authenticationFailed, .authenticationRequired: .notAuthenticated
            case .badRequest: .badRequest
            case .conflict, .exists: .serverRecordChanged
            case .internalError: .internalError
            case .notFound: .unknownItem
            case .quotaExceeded: .quotaExceeded
            case .throttled: .requestRateLimited
            case .tryAgainLater: .serviceUnavailable
            case .validatingReferenceError: .referenceViolation
            case .zoneNotFound: .zoneNotFound
            case .changeTokenExpired: .changeTokenExpired
            case .userDeletedZone: .userDeletedZone
            case .limitExceeded: .limitExceeded
            }
        self.init(code, server.reason, retryAfter: server.retryAfter, serverRecord: server.serverRecord, recordName: server.recordName)
        self.serverErrorCode = server.serverErrorCode
        self.httpStatus = httpStatus
    }

    /// A `partialFailure` collecting the failed items of a batch.
    public static func partialFailure(_ items: [String: CloudError]) -> CloudError {
        CloudError(.partialFailure, "\(items.count) item(s) of the batch failed", itemErrors: items)
    }

    /// Whether waiting and retrying the same operation may succeed.
    public var isRetryable: Bool {
        switch code {
        case .requestRateLimited, .zoneBusy, .serviceUnavailable, .networkUnavailable, .internalError: true
        default: false
        }
    }

    /// Whether retrying can never help without a change by the user (bad request, permission, quota…).
    public var isFatal: Bool {
        switch code {
        case .badRequest, .permissionFailure, .quotaExceeded, .limitExceeded, .referenceViolation, .invalidResponse: true
        default: false
        }
    }

    public var description: String {
        var text = "\(code.rawValue): \(reason)"
        if let retryAfter { text += " (retry after \(retryAfter)s)" }
        return text
    }
}
