/// `POST /auth/1/{container}/accounts` request.
public struct CreateAccountRequest: Sendable, Hashable, Codable {
    public var account: String
    public var password: String

    /// An account name and its password.
    public init(account: String, password: String) {
        self.account = account
        self.password = password
    }
}

/// `POST /auth/1/{container}/accounts` response.
public struct CreateAccountResponse: Sendable, Hashable, Codable {
    public var userRecordName: String

    /// The new user's record name.
    public init(userRecordName: String) { self.userRecordName = userRecordName }
}

/// `POST /auth/1/{container}/signin` request.
public struct SignInRequest: Sendable, Hashable, Codable {
    public var account: String
    public var password: String
    public var deviceName: String

    /// Credentials and the name of the device signing in.
    public init(account: String, password: String, deviceName: String) {
        self.account = account
        self.password = password
        self.deviceName = deviceName
    }
}

/// `POST /auth/1/{container}/signin` response.
public struct SignInResponse: Sendable, Hashable, Codable {
    public var ckWebAuthToken: String
    public var userRecordName: String
    public var deviceID: String

    /// The session token and who and which device it stands for.
    public init(ckWebAuthToken: String, userRecordName: String, deviceID: String) {
        self.ckWebAuthToken = ckWebAuthToken
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }
}

/// `POST /admin/1/faults` request (only with `--enable-faults`): make the next calls of an endpoint fail.
public struct FaultRequest: Sendable, Hashable, Codable {
    /// Endpoint as `entity/action`, e.g. `records/modify`; `*` for all.
    public var endpoint: String
    public var serverErrorCode: ServerErrorCode
    public var count: Int
    public var retryAfter: Double?

    /// The next `count` calls of `endpoint` fail with `code`.
    public init(endpoint: String, serverErrorCode: ServerErrorCode, count: Int, retryAfter: Double? = nil) {
        self.endpoint = endpoint
        self.serverErrorCode = serverErrorCode
        self.count = count
        self.retryAfter = retryAfter
    }
}

/// The limits the cloud documents and enforces.
public enum CloudLimits {
    /// Operations in one request.
    public static let maxOperationsPerRequest = 200
    /// Records in one response page.
    public static let maxResultsPerPage = 200
    /// The page size a request's `resultsLimit` asks for, kept within 1 and `maxResultsPerPage` (the maximum when not asked).
    public static func pageSize(_ asked: Int?) -> Int { min(max(asked ?? maxResultsPerPage, 1), maxResultsPerPage) }
    /// Bytes of one record's JSON.
    public static let maxRecordBytes = 1_048_576
    /// Bytes of one request body.
    public static let maxRequestBytes = 16 * 1_048_576
    /// Bytes of records in one answer (`changes/zone`, `records/lookup`, `records/query`): past it, the rest waits
    /// for the next page (or, in `records/lookup`, the next request).
    public static let maxResponseBytes = 16 * 1_048_576
}

/// The names the Todo app gives its zone, record types and fields.
public enum TodoSchema {
    public static let zoneName = "Todos"
    public static let todoType = "Todo"
    public static let listType = "TodoList"
    public static let privateSubscriptionID = "private-changes"
    public static let sharedSubscriptionID = "shared-changes"
}
