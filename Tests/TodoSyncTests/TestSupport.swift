import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// The devices' clock: TestSupport's manual clock, as the engine's `SyncClock`.
typealias TestClock = ManualClock

extension ManualClock: SyncClock {}

/// A real cloud on a loopback port with a temporary data directory.
final class TestCloud: Sendable {
    let server: RunningCloudServer
    let directory: URL

    private init(server: RunningCloudServer, directory: URL) {
        self.server = server
        self.directory = directory
    }

    static func start(tombstoneRetention: TimeInterval = 3600) async throws -> TestCloud {
        let directory = ScratchDirectory.make("cloud")
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.appendingPathComponent("server"), openRegistration: true,
            enableFaults: true, tombstoneRetention: tombstoneRetention, rateLimitPerSecond: nil)
        // Quiet request logs; decoded, since this target does not depend on swift-log itself.
        if let quiet = try? JSONDecoder().decode(type(of: configuration.logLevel), from: Data("\"error\"".utf8)) {
            configuration.logLevel = quiet
        }
        let server = try await CloudServer.start(configuration)
        return TestCloud(server: server, directory: directory)
    }

    var baseURL: URL { server.baseURL }

    /// A client without a session (admin calls, public reads).
    func anonymousClient() -> CloudClient { CloudClient(baseURL: baseURL) }

    func shutdown() async {
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A signed-in device of `account` (created on first use), with a fault-injecting transport and a test clock; it
    /// reaches the cloud through `proxy` when one is given, and keeps its cache in `storeDirectory` when one is given.
    /// Without `launches` it runs no pass of its own (as a command right after `todo signup`).
    func device(
        _ name: String, account: String = "alice", listen: Bool = false, pageSize: Int = 200, sendsAutomatically: Bool = true,
        clockSkew: Double = 0, instantWaitsBelow: Double = 60, container: ContainerAddress = .default, through proxy: URL? = nil,
        storeDirectory: URL? = nil, launches: Bool = true, importHandOff: Int = 10_000
    ) async throws -> TestDevice {
        let transport = FaultInjectingTransport(wrapping: HTTPClientTransport())
        let client = CloudClient(baseURL: proxy ?? baseURL, container: container, transport: transport)
        do {
            _ = try await client.createAccount(account: account, password: "password-\(account)")
        } catch let error as CloudError where error.serverErrorCode == .exists {}
        let session = try await client.signIn(account: account, password: "password-\(account)", deviceName: name)
        let store = try await TodoStore(
            url: (storeDirectory ?? directory.appendingPathComponent("devices")).appendingPathComponent("\(account)-\(name)-\(UUID().uuidString).sqlite"))
        let clock = TestClock(instantBelow: instantWaitsBelow, skew: clockSkew)
        let engine = SyncEngine(
            client: client, store: store,
            configuration: SyncConfiguration(
                deviceName: name, deviceID: session.deviceID, account: account, reachabilityProbeInterval: 100,
                fetchPageSize: pageSize, sendsAutomatically: sendsAutomatically, pushPollTimeout: 10, importHandOff: importHandOff),
            clock: clock, random: { 0.5 })
        let device = TestDevice(name: name, engine: engine, store: store, client: client, transport: transport, clock: clock, session: session)
        if launches { await engine.start(listenForPushes: listen) } else { await engine.loadFromStore() }
        return device
    }
}

/// One device under test.
struct TestDevice: Sendable {
    let name: String
    let engine: SyncEngine
    let store: TodoStore
    let client: CloudClient
    let transport: FaultInjectingTransport
    let clock: TestClock
    let session: SignInResponse

    /// Visible private todos by title.
    func titles(_ scope: DatabaseScope = .private) async throws -> [String] {
        try await store.todos(in: scope).map(\.title).sorted()
    }
}

/// The fields that must agree between devices after convergence, by record name.
func contents(_ store: TodoStore) async throws -> [String: String] {
    var result: [String: String] = [:]
    for item in try await store.todos(in: .private, includeTrashed: true) {
        result[item.key.recordName] = "\(item.title)|\(item.notes)|\(item.priority)|\(item.isCompleted)|\(item.system.changeTag ?? "-")"
    }
    return result
}
