import ArgumentParser
import Foundation
import Terminal
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
        if options.isDefaultLocalServer {
            FileHandle.standardError.write(Data("connecting to the local cloud…\n".utf8))
        }
        let session = try await DeviceSession.open(options)
        await Self.runTUI(session)
        await session.close()
    }

    /// Draws the cached todos at once, then starts syncing and runs the key loop until quit.
    @MainActor
    static func runTUI(_ session: DeviceSession) async {
        let inbox = UpdateInbox()
        let bridge = AppBridge(session: session, inbox: inbox)
        let engine = session.engine
        await engine.loadFromStore()
        let first = AppBridge.update(from: await engine.snapshot())
        var state = AppState(status: first.status, makeID: { UUID().uuidString.lowercased() })
        state.update(rows: first.rows, status: first.status)
        bridge.show(await engine.snapshot())

        let terminal = NcursesTerminal()
        defer { terminal.shutdown() }
        let ui = UISession(terminal: terminal, state: state)
        let snapshots = Task { @MainActor in
            for await snapshot in await engine.snapshots() { bridge.show(snapshot) }
        }
        await engine.start(listenForPushes: true)
        await ui.run(inbox: inbox) { effect in await bridge.perform(effect) }
        snapshots.cancel()
        await engine.stop()
    }
}

/// `todo keys`: every key of the terminal app, from the same table the help overlay shows.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the terminal app's keys (Markdown table).")

    func run() throws {
        print(Keymap.markdownTable())
    }
}
