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
        let first = await firstState(options, size: TerminalSize(width: 80, height: 24))
        // What the cached rows were made with: the engine then reports only what changed since.
        let firstContext = first?.context
        let state =
            first?.state
            ?? AppState(
                status: SyncStatus(account: options.account, device: options.device, connection: .connecting),
                makeID: { UUID().uuidString.lowercased() }, nameRow: AppBridge.newRowID)
        let terminal = try NcursesTerminal()
        defer { terminal.shutdown() }
        let ui = UISession(terminal: terminal, state: consume state)
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
            // The reader is registered before the engine starts, so no change of the launch sync escapes it.
            let (reader, wakeups) = await session.engine.changeReader(current: firstContext)
            let bridge = AppBridge(session: session, inbox: inbox, reader: reader)
            sessionBox.session = session
            sessionBox.bridge = bridge
            sessionBox.syncing = Task {
                // What the command line or another window writes to this cache shows within a poll (0.2 s).
                await session.engine.watchCacheForOtherWriters()
                if sessionBox.publicBoardVisible { await session.engine.setPublicBoardVisible(true) }
                await session.engine.start(listenForPushes: true)
            }
            for await snapshot in wakeups { await bridge.show(snapshot) }
        }
        await ui.run(inbox: inbox) { effect in
            if case .showingPublicBoard(let visible) = effect { sessionBox.publicBoardVisible = visible }
            guard let bridge = sessionBox.bridge else {
                if case .showingPublicBoard = effect { return }  // told to the engine once connected
                if effect != .quit { inbox.post(.message(StatusMessage("still connecting to the cloud; try again in a moment", kind: .error))) }
                return
            }
            await bridge.perform(effect)
        }
        connecting.cancel()
        if let session = await connecting.value {
            await session.engine.stop()
            await sessionBox.syncing?.value
            running.cancel()
            await session.close()
        }
    }

    /// The rows the cache held at the last run, read without touching the network; nil on a first launch.
    ///
    /// Records are read one at a time and become rows at once, so 100,000 todos never exist twice.
    public static func cachedRows(_ options: DeviceOptions) async -> (changes: VisibleChanges<TodoRow>, status: SyncStatus)? {
        guard FileManager.default.fileExists(atPath: options.cacheFile.path),
            let kept = SecretFile.readJSON(Credentials.self, from: options.credentialsFile),
            let store = try? TodoStore(url: options.cacheFile)
        else { return nil }
        let client = CloudClient(baseURL: options.server, transport: options.transport, authToken: kept.ckWebAuthToken)
        let engine = SyncEngine(
            client: client, store: store,
            configuration: SyncConfiguration(deviceName: options.device, deviceID: kept.deviceID, account: options.account))
        await engine.loadFromStore()
        let changes = try? await engine.visibleRows(makeRow: AppBridge.row)
        let status = AppBridge.status(from: await engine.status())
        await store.close()
        return changes.map { ($0, status) }
    }

    /// The first frame's state from the cache, as the app draws it before connecting, and what its rows were made
    /// with; nil on a first launch.
    public static func firstState(_ options: DeviceOptions, size: TerminalSize) async -> (state: AppState, context: RowContext)? {
        guard let (changes, cachedStatus) = await cachedRows(options) else { return nil }
        var status = cachedStatus
        status.connection = .connecting
        let context = changes.context
        let rows = (consume changes).rows  // the only reference left to the rows: sorting them in place copies nothing
        var state = AppState(status: status, size: size, makeID: { UUID().uuidString.lowercased() }, nameRow: AppBridge.newRowID)
        state.update(rows: consume rows, status: status)
        return (state, context)
    }
}

/// The session, bridge and launch sync once connected, read by the key loop on the main actor.
@MainActor
final class SessionBox {
    var session: DeviceSession?
    var bridge: AppBridge?
    var syncing: Task<Void, Never>?
    /// Whether the public board's tab is on screen (told to the engine once connected).
    var publicBoardVisible = false
}
