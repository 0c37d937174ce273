import CloudModel
@testable import CloudServer
import Foundation
import Logging
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real server on an ephemeral loopback port, its files (and with the default storage its SQLite) in a temporary
/// directory; `storage` runs it on another store.
final class TestCloud: Sendable {
    let server: RunningCloudServer
    let directory: URL
    /// Where the cloud keeps its data (the operator tools open the same).
    let storage: CloudStorage
    let address = ContainerAddress.default

    init(
        openRegistration: Bool = true, retention: TimeInterval = 3600, rateLimit: Double? = nil, directory: URL? = nil,
        maxAssetBytes: Int = 50 * 1_048_576, passwordHashCost: UInt = 1, signInLimits: SignInLimits = .forTests,
        sessionIdleTimeout: TimeInterval = 90 * 86400, logLevel: Logger.Level = .critical, storage: CloudStorage = TestStorage.current,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws {
        self.directory = directory ?? ScratchDirectory.path("test")
        var configuration = ServerConfiguration(
            port: 0, dataDirectory: self.directory, openRegistration: openRegistration, enableFaults: true,
            tombstoneRetention: retention, rateLimitPerSecond: rateLimit, logLevel: logLevel, passwordHashCost: passwordHashCost,
            maxAssetBytes: maxAssetBytes, signInLimits: signInLimits, sessionIdleTimeout: sessionIdleTimeout, storage: storage)
        configure(&configuration)
        self.storage = configuration.storage
        server = try await CloudServer.start(configuration)
    }

    /// Stops the server and removes its files.
    func close() async {
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Two instances of one cloud on `database` (each configured by `configure`), closed after `body`, even when it
    /// throws.
    static func withTwoInstances(
        _ database: PostgresTestDatabase, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestCloud, TestCloud) async throws -> Void
    ) async throws {
        let a = try await TestCloud(storage: .postgres(database.url), configure: configure)
        let b: TestCloud
        do {
            b = try await TestCloud(storage: .postgres(database.url), configure: configure)
        } catch {
            await a.close()
            throw error
        }
        do {
            try await body(a, b)
        } catch {
            await a.close()
            await b.close()
            throw error
        }
        await a.close()
        await b.close()
    }

    /// A raw HTTP call; returns status and body. `headers` are added as they are.
    func raw(
        _ method: String, _ path: String, body: Data? = nil, token: String? = nil, contentType: String = "application/json",
        headers: [String: String] = [:]
    ) async throws -> (status: Int, body: Data) {
        var fields = ["Content-Type": contentType]
        if let token { fields["Authorization"] = "Bearer \(token)" }
        fields.merge(headers) { $1 }
        return try await TestHTTPClient.send(method, server.baseURL.absoluteString + path, body: body, headers: fields)
    }

    /// POSTs a JSON body to a database endpoint and decodes the answer.
    func post<Body: Encodable, Answer: Decodable>(
        _ scope: DatabaseScope, _ endpoint: String, _ body: Body, token: String?, as: Answer.Type = Answer.self
    ) async throws -> Answer {
        let (status, data) = try await raw("POST", address.databasePath(scope, endpoint), body: try JSONEncoder().encode(body), token: token)
        guard status == 200 else { throw try JSONDecoder().decode(ServerError.self, from: data) }
        return try JSONDecoder().decode(Answer.self, from: data)
    }

    /// The error a database call answers with, and its HTTP status.
    func failure<Body: Encodable>(_ scope: DatabaseScope, _ endpoint: String, _ body: Body, token: String?) async throws -> (Int, ServerError) {
        let (status, data) = try await raw("POST", address.databasePath(scope, endpoint), body: try JSONEncoder().encode(body), token: token)
        return (status, try JSONDecoder().decode(ServerError.self, from: data))
    }

    /// Creates an account (if new) and signs a device in; returns its token.
    func signIn(_ account: String, device: String = "laptop") async throws -> Device {
        let credentials = CreateAccountRequest(account: account, password: "password-\(account)")
        _ = try await raw("POST", address.authPath("accounts"), body: try JSONEncoder().encode(credentials))
        let signIn = SignInRequest(account: account, password: credentials.password, deviceName: device)
        let (status, data) = try await raw("POST", address.authPath("signin"), body: try JSONEncoder().encode(signIn))
        #expect(status == 200)
        let answer = try JSONDecoder().decode(SignInResponse.self, from: data)
        return Device(token: answer.ckWebAuthToken, user: answer.userRecordName, deviceID: answer.deviceID)
    }

    /// One sign-in as it comes (headers such as `X-Real-IP` added); the status, and the answer's body.
    func attemptSignIn(
        _ account: String, password: String, device: String = "laptop", headers: [String: String] = [:]
    ) async throws -> (status: Int, body: Data) {
        let body = try JSONEncoder().encode(SignInRequest(account: account, password: password, deviceName: device))
        return try await raw("POST", address.authPath("signin"), body: body, headers: headers)
    }

    /// One account registration as it comes; the status, and the answer's body.
    func attemptRegistration(_ account: String, password: String, headers: [String: String] = [:]) async throws -> (status: Int, body: Data) {
        let body = try JSONEncoder().encode(CreateAccountRequest(account: account, password: password))
        return try await raw("POST", address.authPath("accounts"), body: body, headers: headers)
    }

    /// Creates the `Todos` zone for a device's user.
    func createTodosZone(_ device: Device) async throws {
        let answer: ZonesResponse = try await post(
            .private, "zones/modify", ModifyZonesRequest(operations: [.init(.create, todos)]), token: device.token)
        #expect(answer.zones.first?.zone != nil)
    }

    /// Saves records with one `records/modify`; returns the per-item results.
    func modify(_ device: Device, _ operations: [RecordOperation], scope: DatabaseScope = .private, zone: ZoneID? = nil, atomic: Bool? = nil) async throws -> [RecordResult] {
        let answer: RecordsResponse = try await post(
            scope, "records/modify", ModifyRecordsRequest(operations: operations, zoneID: zone ?? (scope == .public ? nil : todos), atomic: atomic),
            token: device.token)
        return answer.records
    }

    /// Registers a push token for a device and returns its courier URL.
    func registerPush(_ device: Device) async throws -> String {
        let (_, data) = try await raw("POST", address.devicePath("tokens/create"), body: try JSONEncoder().encode(CreateTokenRequest()), token: device.token)
        let created = try JSONDecoder().decode(CreateTokenResponse.self, from: data)
        let (status, _) = try await raw(
            "POST", address.devicePath("tokens/register"),
            body: try JSONEncoder().encode(RegisterTokenRequest(apnsToken: created.apnsToken)), token: device.token)
        #expect(status == 200)
        return created.webcourierURL
    }

    /// Polls once briefly, as a device's courier does as soon as it has a token: with several instances (sticky
    /// routing) a token's mailbox lives where it polls, and pushes for a token that never polled are not kept.
    func listen(_ courier: String) async throws {
        _ = try await poll(courier, timeout: 0.05)
    }

    /// Returns once a long-poll on `courier` waits in the cloud's hub (a push sent from then on reaches it).
    func waitForPoll(_ courier: String) async throws {
        let token = String(courier.split(separator: "/").last ?? "")
        try await waitUntil("a long-poll on \(token) to wait") { await server.service.hub.isPolling(token: token) }
    }

    /// Long-polls a courier URL; nil on 204.
    func poll(_ courier: String, timeout: Double, ack: String? = nil) async throws -> PushNotification? {
        var url = "\(courier)?timeout=\(timeout)"
        if let ack { url += "&ack=\(ack)" }
        let (status, data) = try await TestHTTPClient.send("GET", url, timeout: .seconds(timeout + 60))
        if status == 204 { return nil }
        #expect(status == 200)
        return try JSONDecoder().decode(PushNotification.self, from: data)
    }

    /// Marks fields of a record type queryable and sortable in the development schema (after a save defined them).
    func index(_ recordType: String, _ fields: [String]) async throws {
        // Through the running cloud's own store: a memory cloud's schema is not reachable from another store.
        let container = "\(address.container)/\(address.environment)"
        for field in fields {
            let found = try await server.store.write {
                try await $0.markSchemaField(container: container, recordType: recordType, name: field, queryable: true, sortable: true)
            }
            guard found else { throw ServerError(.badRequest, "\(recordType).\(field) is not in the schema yet") }
        }
    }

    /// Saves the database subscription the app uses.
    func subscribe(_ device: Device, scope: DatabaseScope = .private) async throws {
        let subscription = Subscription(subscriptionID: TodoSchema.privateSubscriptionID, subscriptionType: .database)
        let answer: SubscriptionsResponse = try await post(
            scope, "subscriptions/modify", ModifySubscriptionsRequest(operations: [.init(.create, subscription)]), token: device.token)
        #expect(answer.subscriptions.first?.error == nil)
    }
}

/// A signed-in device.
struct Device: Sendable {
    var token: String
    var user: String
    var deviceID: String
}

let todos = ZoneID(zoneName: "Todos")

/// A Todo record with a title.
func todo(_ name: String, _ title: String, tag: ChangeTag? = nil, extra: [String: FieldValue] = [:]) -> Record {
    var fields: [String: FieldValue] = ["title": .string(title), "isCompleted": .int64(0), "priority": .int64(1)]
    fields.merge(extra) { $1 }
    return Record(recordName: name, recordType: "Todo", recordChangeTag: tag, fields: fields)
}

extension SignInLimits {
    /// The documented budgets over hour-long windows: a test spends a budget and then looks for the refusal, and on a
    /// loaded machine a minute's window could end between the two.
    static let forTests = SignInLimits(failureWindow: 3600)
}

/// Runs a test body against a fresh cloud and always shuts it down.
func withCloud(
    openRegistration: Bool = true, retention: TimeInterval = 3600, rateLimit: Double? = nil, passwordHashCost: UInt = 1,
    signInLimits: SignInLimits = .forTests, sessionIdleTimeout: TimeInterval = 90 * 86400, logLevel: Logger.Level = .critical,
    storage: CloudStorage = TestStorage.current, configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestCloud) async throws -> Void
) async throws {
    let test = "\(Test.current?.name ?? "a test") on \(storage)"
    let cloud = try await StallReport.watching("\(test): starting its cloud") {
        try await TestCloud(
            openRegistration: openRegistration, retention: retention, rateLimit: rateLimit, passwordHashCost: passwordHashCost,
            signInLimits: signInLimits, sessionIdleTimeout: sessionIdleTimeout, logLevel: logLevel, storage: storage, configure: configure)
    }
    do {
        try await StallReport.watching("\(test): its body") { try await body(cloud) }
    } catch {
        await StallReport.watching("\(test): closing its cloud", detail: { cloud.server.shutdownStage }) { await cloud.close() }
        throw error
    }
    await StallReport.watching("\(test): closing its cloud", detail: { cloud.server.shutdownStage }) { await cloud.close() }
}

/// The storage a `TestCloud` gets when a test names none: SQLite, unless a scope sets another (`StoreRouteTests`
/// runs the route tests on memory and PostgreSQL so).
enum TestStorage {
    @TaskLocal static var current: CloudStorage = .sqlite
}
