import CloudModel
import Foundation

/// A typed async client for the cloud's HTTP API: accounts, the three databases, push tokens and faults.
public final class CloudClient: Sendable {
    /// The cloud's base URL, e.g. `http://127.0.0.1:8787`.
    public let baseURL: URL
    /// Container and environment of every path.
    public let container: ContainerAddress
    /// How requests reach the cloud.
    public let transport: any HTTPTransport
    private let token: LockedValue<String?>

    /// A client of the cloud at `baseURL`, signed in when `authToken` is given.
    public init(
        baseURL: URL, container: ContainerAddress = .default, transport: any HTTPTransport = HTTPClientTransport(),
        authToken: String? = nil
    ) {
        self.baseURL = baseURL
        self.container = container
        self.transport = transport
        self.token = LockedValue(authToken)
    }

    /// The session token sent as `Authorization: Bearer`, nil when signed out.
    public var authToken: String? {
        get { token.withLock { $0 } }
        set { token.withLock { $0 = newValue } }
    }

    // MARK: Accounts

    /// Creates an account (open-registration clouds only); answers its user record name.
    public func createAccount(account: String, password: String) async throws -> String {
        let response = try await call(.createAccount, CreateAccountRequest(account: account, password: password), authenticated: false)
        return response.userRecordName
    }

    /// Signs a device in; the client keeps the returned token for later calls.
    public func signIn(account: String, password: String, deviceName: String) async throws -> SignInResponse {
        let response = try await call(
            .signIn, SignInRequest(account: account, password: password, deviceName: deviceName), authenticated: false)
        authToken = response.ckWebAuthToken
        return response
    }

    /// Revokes the session token on the cloud and forgets it.
    public func signOut() async throws {
        _ = try await call(.signOut, EmptyBody())
        authToken = nil
    }

    /// Who the caller is (`users/caller`).
    public func caller(_ scope: DatabaseScope = .private) async throws -> UserIdentity {
        try await call(.usersCaller, in: scope, EmptyBody())
    }

    /// Who the caller is (`users/current`, the older name).
    public func currentUser(_ scope: DatabaseScope = .private) async throws -> UserIdentity {
        try await call(.usersCurrent, in: scope, EmptyBody())
    }

    // MARK: Records

    /// `records/modify`: the per-item results, in the order of the operations.
    public func modifyRecords(_ scope: DatabaseScope, _ request: ModifyRecordsRequest) async throws -> [RecordResult] {
        // Hot path: written with ModifyRecordsRequestWriter and read with the streaming reader, not Codable.
        try await modifyRecords(scope, body: Data(request.jsonBody))
    }

    /// `records/modify` with a request body its caller wrote (a `ModifyRecordsRequest` as JSON): the per-item results,
    /// in the order of the operations.
    public func modifyRecords(_ scope: DatabaseScope, body: Data) async throws -> [RecordResult] {
        let response = try await send(
            HTTPRequest(
                method: "POST", url: url(container.path(of: .recordsModify, in: scope)), headers: headers(authenticated: true),
                body: body))
        return try decodeFast("RecordsResponse", response) { try RecordsResponse(bytes: $0) }.records
    }

    /// `records/lookup`: the per-item results, in the order asked.
    public func lookupRecords(_ scope: DatabaseScope, _ request: LookupRecordsRequest) async throws -> [RecordResult] {
        let response = try await call(.recordsLookup, in: scope, request)
        return response.records
    }

    /// `records/query`: one page of results and the marker of the next.
    public func queryRecords(_ scope: DatabaseScope, _ request: QueryRequest) async throws -> QueryResponse {
        let response = try await send(.recordsQuery, in: scope, request)
        return try decodeFast("QueryResponse", response) { try QueryResponse(bytes: $0) }
    }

    /// `records/changes`: one page of one zone's changes (the older single-zone form).
    public func recordChanges(_ scope: DatabaseScope, _ request: RecordChangesRequest) async throws -> RecordChangesResponse {
        try await call(.recordsChanges, in: scope, request)
    }

    // MARK: Change feeds

    /// `changes/database`: zones changed or deleted after a database token.
    public func databaseChanges(_ scope: DatabaseScope, _ request: DatabaseChangesRequest) async throws -> DatabaseChangesResponse {
        try await call(.changesDatabase, in: scope, request)
    }

    /// `changes/zone`: a page of each zone's records and tombstones after its token.
    public func zoneChanges(_ scope: DatabaseScope, _ request: ZoneChangesRequest) async throws -> ZoneChangesResponse {
        let response = try await send(.changesZone, in: scope, request)
        return try decodeFast("ZoneChangesResponse", response) { try ZoneChangesResponse(bytes: $0) }
    }

    /// `zones/changes`: the older form of the database change feed.
    public func zonesChanges(_ scope: DatabaseScope, _ request: DatabaseChangesRequest) async throws -> ZonesChangesResponse {
        try await call(.zonesChanges, in: scope, request)
    }

    // MARK: Zones

    /// `zones/list`: every zone of the database.
    public func listZones(_ scope: DatabaseScope) async throws -> [ZoneResult] {
        let response = try await call(.zonesList, in: scope, EmptyBody())
        return response.zones
    }

    /// `zones/lookup`: the zones asked for, or their errors.
    public func lookupZones(_ scope: DatabaseScope, _ zoneIDs: [ZoneID]) async throws -> [ZoneResult] {
        let response = try await call(.zonesLookup, in: scope, LookupZonesRequest(zoneIDs: zoneIDs))
        return response.zones
    }

    /// `zones/modify`: creates, deletes or purges zones; per-zone results.
    public func modifyZones(_ scope: DatabaseScope, _ request: ModifyZonesRequest) async throws -> [ZoneResult] {
        let response = try await call(.zonesModify, in: scope, request)
        return response.zones
    }

    // MARK: Subscriptions

    /// `subscriptions/modify`: per-subscription results.
    public func modifySubscriptions(_ scope: DatabaseScope, _ request: ModifySubscriptionsRequest) async throws
        -> [SubscriptionResult]
    {
        let response = try await call(.subscriptionsModify, in: scope, request)
        return response.subscriptions
    }

    /// `subscriptions/list`: the caller's subscriptions in a database.
    public func listSubscriptions(_ scope: DatabaseScope) async throws -> [SubscriptionResult] {
        let response = try await call(.subscriptionsList, in: scope, EmptyBody())
        return response.subscriptions
    }

    // MARK: Shares

    /// `private/shares/modify`: creates, replaces or revokes shares of root records; per-item results in order.
    public func modifyShares(_ request: ModifySharesRequest) async throws -> [ShareResult] {
        let response = try await call(.sharesModify, in: .private, request)
        return response.shares
    }

    /// `private/shares/list`: the shares the caller owns.
    public func listOwnedShares() async throws -> [ShareInfo] {
        let response = try await call(.sharesList, in: .private, EmptyBody())
        return try Self.shares(response)
    }

    /// `shared/shares/list`: shares others made with the caller, pending and accepted.
    public func listSharedWithMe() async throws -> [ShareInfo] {
        let response = try await call(.sharesList, in: .shared, EmptyBody())
        return try Self.shares(response)
    }

    /// `shared/shares/accept`: accepts invitations; per-item results in order.
    public func acceptShares(_ shares: [ShareReference]) async throws -> [ShareResult] {
        let response = try await call(.sharesAccept, in: .shared, ShareReferenceRequest(shares: shares))
        return response.shares
    }

    /// `shared/shares/leave`: removes the caller from shares; per-item results in order.
    public func leaveShares(_ shares: [ShareReference]) async throws -> [ShareResult] {
        let response = try await call(.sharesLeave, in: .shared, ShareReferenceRequest(shares: shares))
        return response.shares
    }

    /// The shares of a list answer; a list never carries per-item errors, so one is an unreadable answer.
    private static func shares(_ response: SharesResponse) throws -> [ShareInfo] {
        try response.shares.map { result in
            switch result {
            case .share(let share): return share
            case .failure(let error): throw CloudError(error)
            }
        }
    }

    // MARK: Push

    /// `tokens/create`: a new push token and the courier URL to long-poll.
    public func createPushToken(environment: String = "development") async throws -> CreateTokenResponse {
        try await call(.tokensCreate, CreateTokenRequest(apnsEnvironment: environment))
    }

    /// `tokens/register`: binds a push token to the caller's device.
    public func registerPushToken(_ apnsToken: String, environment: String = "development") async throws {
        _ = try await call(.tokensRegister, RegisterTokenRequest(apnsEnvironment: environment, apnsToken: apnsToken))
    }

    /// One long-poll of the courier URL: a notification, or nil when none came within `timeout` seconds.
    /// `ack` names the last notification received (empty before the first): the courier delivers again one it
    /// handed out that was not acknowledged (its answer lost on the way); without `ack` it never does.
    public func pollNotification(courierURL: URL, timeout: Int, ack: String? = nil) async throws -> PushNotification? {
        var components = URLComponents(url: courierURL, resolvingAgainstBaseURL: false)
        var items = components?.queryItems ?? []
        items.removeAll { $0.name == "timeout" || $0.name == "ack" }
        items.append(URLQueryItem(name: "timeout", value: String(timeout)))
        if let ack { items.append(URLQueryItem(name: "ack", value: ack)) }
        components?.queryItems = items
        guard let url = components?.url else { throw CloudError(.badRequest, "bad courier URL \(courierURL)") }
        let response = try await send(HTTPRequest(method: "GET", url: url, headers: headers(authenticated: true), timeout: Double(timeout) + 15))
        if response.status == 204 || response.body.isEmpty { return nil }
        return try decode(PushNotification.self, response)
    }

    /// Asks the cloud to push a test notification to one of the caller's devices.
    public func sendTestPush(toDevice deviceName: String) async throws {
        _ = try await call(.push, TestPushRequest(deviceName: deviceName))
    }

    // MARK: Devices

    /// `devices/list`: the devices signed in to the caller's account, by name.
    public func listDevices() async throws -> [DeviceInfo] {
        let response = try await call(.devicesList, EmptyBody())
        return response.devices
    }

    /// `devices/revoke`: ends the session of the caller's device named `name` (this one too, if so named).
    public func revokeDevice(named name: String) async throws -> DeviceInfo {
        let response = try await call(.devicesRevoke, RevokeDeviceRequest(deviceName: name))
        guard let device = response.devices.first else { throw CloudError(.badRequest, "the cloud revoked no device") }
        return device
    }

    /// `app-passwords/create`: a new app password for CalDAV clients, labelled `label` (shown once; listed and
    /// revoked as a device of that name).
    public func createAppPassword(label: String) async throws -> CreateAppPasswordResponse {
        try await call(.appPasswordsCreate, CreateAppPasswordRequest(label: label))
    }

    // MARK: Operations

    /// Whether the cloud answers `GET /health` with a 2xx within `timeout` seconds.
    public func isHealthy(timeout: Double = 2) async -> Bool {
        guard let response = try? await transport.send(HTTPRequest(method: "GET", url: healthURL, timeout: timeout)) else {
            return false
        }
        return (200..<300).contains(response.status)
    }

    /// Makes the next calls of an endpoint fail (clouds started with faults enabled only).
    public func injectFault(_ fault: FaultRequest) async throws {
        _ = try await send(.faults, fault, authenticated: false)
    }

    /// Asks the cloud to compact tombstones now (clouds started with faults enabled only).
    public func compactForTesting() async throws {
        _ = try await send(.compact, EmptyBody(), authenticated: false)
    }

    // MARK: Plumbing

    /// Where the cloud's liveness probe answers (`GET /health`, with the cloud's time).
    public var healthURL: URL { url(container.path(of: .health)) }

    private func url(_ path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path) ?? baseURL.appendingPathComponent(path)
    }

    private func headers(authenticated: Bool) -> [String: String] {
        var headers = ["Content-Type": "application/json", "Accept": "application/json"]
        if authenticated, let token = authToken { headers["Authorization"] = "Bearer \(token)" }
        return headers
    }

    /// Calls `endpoint` (in the database `scope`, for a database endpoint) and decodes its answer.
    private func call<Body: Encodable, Answer: Decodable>(
        _ endpoint: Endpoint<Body, Answer>, in scope: DatabaseScope = .private, _ body: Body, authenticated: Bool = true
    ) async throws -> Answer {
        try decode(Answer.self, try await send(endpoint, in: scope, body, authenticated: authenticated))
    }

    /// Calls `endpoint` with its method (a GET carries no body, and the session always) and answers the raw (2xx)
    /// response.
    private func send<Body: Encodable, Answer>(
        _ endpoint: Endpoint<Body, Answer>, in scope: DatabaseScope = .private, _ body: Body, authenticated: Bool = true
    ) async throws -> HTTPResponse {
        let url = url(container.path(of: endpoint, in: scope))
        if endpoint.method == .get {
            return try await send(HTTPRequest(method: "GET", url: url, headers: headers(authenticated: true)))
        }
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw CloudError(.badRequest, "cannot encode the request: \(error)")
        }
        return try await send(HTTPRequest(method: endpoint.method.rawValue, url: url, headers: headers(authenticated: authenticated), body: data))
    }

    /// Reads a hot response with a hand-written decoder (the tree parser or the streaming reader).
    private func decodeFast<T>(
        _ name: String, _ response: HTTPResponse, _ read: (Data) throws -> T
    ) throws -> T {
        do {
            return try read(response.body)
        } catch {
            throw CloudError(.invalidResponse, "cannot read the cloud's answer as \(name): \(error)")
        }
    }

    /// Sends, mapping transport failures to `networkUnavailable` and non-2xx answers to the server's error.
    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            throw CloudError(.networkUnavailable, error.reason)
        }
        guard (200..<300).contains(response.status) else {
            if var server = try? ServerError(json: JSONParser.parse(response.body), path: "$") {
                if server.retryAfter == nil, let header = response.headers["retry-after"], let seconds = Double(header) {
                    server.retryAfter = seconds
                }
                throw CloudError(server, httpStatus: response.status)
            }
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            var error = CloudError(Self.code(forStatus: response.status), "HTTP \(response.status): \(text)")
            error.httpStatus = response.status
            throw error
        }
        return response
    }

    private static func code(forStatus status: Int) -> CloudError.Code {
        switch status {
        case 401, 421: .notAuthenticated
        case 403: .permissionFailure
        case 404: .unknownItem
        case 409: .serverRecordChanged
        case 410: .changeTokenExpired
        case 413: .limitExceeded
        case 429: .requestRateLimited
        case 502, 503, 504: .serviceUnavailable
        case 500..<600: .internalError
        default: .badRequest
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws -> T {
        if T.self == EmptyBody.self, response.body.isEmpty, let empty = EmptyBody() as? T { return empty }
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw CloudError(.invalidResponse, "cannot read the cloud's answer as \(T.self): \(error)")
        }
    }
}

