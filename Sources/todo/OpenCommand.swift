import ArgumentParser
import Foundation
import Terminal
import TodoApp
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
        // Refuse a terminal the app cannot draw on (TERM=dumb) before anything else happens.
        try NcursesTerminal.preflight()
        var options = try device.deviceOptions()
        options.sendsAutomatically = true
        try await TerminalApp.run(options)
    }
}

/// `todo keys`: every key of the terminal app, from the same table the help overlay shows.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "List the terminal app's keys (Markdown table).")

    func run() throws {
        printTrusted(Keymap.markdownTable())
    }
}
