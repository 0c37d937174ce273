import CloudServer
import Foundation
import Terminal
import TestSupport
import TodoApp
import TodoStore
import TodoSync
import TodoUI

/// A real cloud on a loopback port, for the app's tests (the cloud's own configuration; nothing faked).
final class AppCloud: Sendable {
    let server: RunningCloudServer
    let directory: URL

    private init(server: RunningCloudServer, directory: URL) {
        self.server = server
        self.directory = directory
    }

    static func start() async throws -> AppCloud {
        let directory = ScratchDirectory.path("app")
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.appendingPathComponent("server"), openRegistration: true,
            enableFaults: true, tombstoneRetention: 3600, rateLimitPerSecond: nil)
        return AppCloud(server: try await CloudServer.start(configuration), directory: directory)
    }

    func shutdown() async {
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The app of `account` on `device`, opened the way `todo` opens it (session, engine, reader, bridge, state); with
    /// `clock`, the engine's waits go through it (else the system's).
    @MainActor
    func app(_ account: String, device: String = "main", clock: ManualClock? = nil) async throws -> AppHarness {
        let options = DeviceOptions(
            account: account, device: device, server: server.baseURL, dataDirectory: directory.appendingPathComponent("devices"),
            password: "password-\(account)", startsLocalServer: false, environment: [:])
        // The test cloud stands in for the embedded one: the account is made on first use.
        let session = try await LocalCloudBootstrap.openCreatingAccount(options, clock: clock.map(EngineClock.init) ?? SystemClock())
        let (reader, wakeups) = await session.engine.changeReader()
        let inbox = UpdateInbox()
        let bridge = AppBridge(session: session, inbox: inbox, reader: reader)
        let state = AppState(
            status: SyncStatus(account: account, device: device, connection: .connecting), size: TerminalSize(width: 80, height: 20),
            makeID: { RecordNames.next() }, nameRow: AppBridge.newRowID)
        let harness = AppHarness(session: session, bridge: bridge, inbox: inbox, state: state, wakeups: wakeups)
        await session.engine.sync(.launch)
        await harness.settle()
        return harness
    }
}

/// TestSupport's manual clock as the engine's `SyncClock` (wrapped: TodoSyncTests gives the clock the conformance
/// itself, and one process must not hold two).
struct EngineClock: SyncClock {
    let manual: ManualClock

    func now() -> Date { manual.now() }
    func sleep(seconds: Double) async throws { try await manual.sleep(seconds: seconds) }
}

/// One open app without a terminal: keys go through the reducer and the bridge, updates through the inbox.
@MainActor
final class AppHarness {
    let session: DeviceSession
    let bridge: AppBridge
    let inbox: UpdateInbox
    var state: AppState
    /// Kept: the reader stays registered while its wakeups stream lives (`settle` takes changes itself).
    private let wakeups: AsyncStream<SyncSnapshot>

    init(session: DeviceSession, bridge: AppBridge, inbox: UpdateInbox, state: AppState, wakeups: AsyncStream<SyncSnapshot>) {
        self.session = session
        self.bridge = bridge
        self.inbox = inbox
        self.state = state
        self.wakeups = wakeups
    }

    var engine: SyncEngine { session.engine }

    /// Presses keys in order, performing each effect on the engine as the app does.
    func press(_ keys: Key...) async {
        for key in keys {
            for effect in state.reduce(key) { await bridge.perform(effect) }
        }
    }

    /// Types text into whatever has the keyboard.
    func type(_ text: String) async {
        for character in text { await press(.char(character)) }
    }

    /// Waits for the engine to finish what it does, then shows everything it reported.
    func settle(waitingForIdle: Bool = true) async {
        if waitingForIdle { await engine.waitUntilIdle() }
        await bridge.show(await engine.status())
        for update in inbox.drain() { state.receive(update) }
    }

    /// Shows what the engine reported until `condition` holds (background work posts when it ends), for at most 30 s;
    /// never waits for a pass to end.
    func settle(until condition: (AppHarness) -> Bool) async -> Bool {
        await eventually(30) {
            await settle(waitingForIdle: false)
            return condition(self)
        }
    }

    /// Every row with this title, on any tab.
    func rows(titled title: String) -> [TodoRow] {
        Tab.allCases.flatMap { state.rows(in: $0) }.filter { $0.title == title }
    }

    func close() async {
        await engine.stop()
        await session.close()
    }
}
