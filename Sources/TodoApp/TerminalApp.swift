import CloudClient
import Foundation
import Terminal
import TodoStore
import TodoSync
import TodoUI

/// The terminal app: the cached first frame, connecting, syncing and the key loop.
public enum TerminalApp {
    /// Draws the cached todos at once (no network), then connects, starts syncing and runs the key loop until quit.
    @MainActor
    public static func run(_ options: DeviceOptions) async throws {
        let inbox = UpdateInbox()
        let state =
            await firstState(options, size: TerminalSize(width: 80, height: 24))
            ?? AppState(
                status: SyncStatus(account: options.account, device: options.device, connection: .connecting),
                makeID: { UUID().uuidString.lowercased() })
        let terminal = NcursesTerminal()
        defer { terminal.shutdown() }
        let ui = UISession(terminal: terminal, state: state)
        ui.redraw()

        // The network part: start the local cloud if needed, sign in, then sync and listen for pushes.
        let connecting = Task { @MainActor () -> DeviceSession? in
            do {
                return try await DeviceSession.open(options)
            } catch {
                // Not signed in: say why, and stop claiming to connect.
                inbox.post(.status(SyncStatus(account: nil, device: options.device, connection: .signedOut, lastError: "\(error)")))
                inbox.post(.message(StatusMessage("\(error)", kind: .error)))
                return nil
            }
        }
        let sessionBox = SessionBox()
        let running = Task { @MainActor in
            guard let session = await connecting.value else { return }
            sessionBox.session = session
            let bridge = AppBridge(session: session, inbox: inbox)
            sessionBox.bridge = bridge
            for await snapshot in await session.engine.snapshots() { bridge.show(snapshot) }
        }
        let syncing = Task {
            guard let session = await connecting.value else { return }
            await session.engine.start(listenForPushes: true)
        }
        await ui.run(inbox: inbox) { effect in
            guard let bridge = sessionBox.bridge else {
                if effect != .quit { inbox.post(.message(StatusMessage("still connecting to the cloud; try again in a moment", kind: .error))) }
                return
            }
            await bridge.perform(effect)
        }
        connecting.cancel()
        if let session = await connecting.value {
            await session.engine.stop()
            await syncing.value
            running.cancel()
            await session.close()
        }
    }

    /// What the cache held at the last run, read without touching the network; nil on a first launch.
    public static func cachedSnapshot(_ options: DeviceOptions) async -> SyncSnapshot? {
        guard FileManager.default.fileExists(atPath: options.cacheFile.path),
            let kept = SecretFile.readJSON(Credentials.self, from: options.credentialsFile),
            let store = try? TodoStore(url: options.cacheFile)
        else { return nil }
        let client = CloudClient(baseURL: options.server, transport: options.transport, authToken: kept.ckWebAuthToken)
        let engine = SyncEngine(
            client: client, store: store,
            configuration: SyncConfiguration(deviceName: options.device, deviceID: kept.deviceID, account: options.account))
        await engine.loadFromStore()
        let snapshot = await engine.snapshot()
        await store.close()
        return snapshot
    }

    /// The first frame's state from the cache, as the app draws it before connecting; nil on a first launch.
    public static func firstState(_ options: DeviceOptions, size: TerminalSize) async -> AppState? {
        // The snapshot's records are dropped as soon as they became rows, before the rows are sorted.
        func cachedRows() async -> (rows: [TodoRow], status: SyncStatus)? {
            guard let cached = await cachedSnapshot(options) else { return nil }
            return AppBridge.update(from: cached)
        }
        guard let (rows, cachedStatus) = await cachedRows() else { return nil }
        var status = cachedStatus
        status.connection = .connecting
        var state = AppState(status: status, size: size, makeID: { UUID().uuidString.lowercased() })
        state.update(rows: consume rows, status: status)
        return state
    }
}

/// The session and bridge once connected, read by the key loop on the main actor.
@MainActor
final class SessionBox {
    var session: DeviceSession?
    var bridge: AppBridge?
}

