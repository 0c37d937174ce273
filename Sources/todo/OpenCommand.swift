import ArgumentParser
import CloudClient
import Foundation
import Terminal
import TodoStore
import TodoSync
import TodoUI

/// `todo` with no verb: the terminal app for one account on one device.
struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open", abstract: "Open the terminal app (the default when no verb is given).")

    @OptionGroup var device: DeviceOptionGroup

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw DeviceCommandError("the terminal app needs a terminal; use todo list / todo add for scripts")
        }
        var options = device.deviceOptions
        options.sendsAutomatically = true
        try await Self.runTUI(options)
    }

    /// Draws the cached todos at once (no network), then connects, starts syncing and runs the key loop until quit.
    @MainActor
    static func runTUI(_ options: DeviceOptions) async throws {
        let inbox = UpdateInbox()
        var state = AppState(
            status: SyncStatus(account: options.account, device: options.device, connection: .connecting),
            makeID: { UUID().uuidString.lowercased() })
        if let cached = await cachedSnapshot(options) {
            var first = AppBridge.update(from: cached)
            first.status.connection = .connecting
            state.update(rows: first.rows, status: first.status)
        }
        let terminal = NcursesTerminal()
        defer { terminal.shutdown() }
        let ui = UISession(terminal: terminal, state: state)
        ui.redraw()

        // The network part: start the local cloud if needed, sign in, then sync and listen for pushes.
        let connecting = Task { @MainActor () -> DeviceSession? in
            do {
                return try await DeviceSession.open(options)
            } catch {
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
    static func cachedSnapshot(_ options: DeviceOptions) async -> SyncSnapshot? {
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
}

/// The session and bridge once connected, read by the key loop on the main actor.
@MainActor
final class SessionBox {
    var session: DeviceSession?
    var bridge: AppBridge?
}

/// `todo keys`: every key of the terminal app, from the same table the help overlay shows.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the terminal app's keys (Markdown table).")

    func run() throws {
        print(Keymap.markdownTable())
    }
}
