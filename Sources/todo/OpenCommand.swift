import ArgumentParser
import CommandLineSupport
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
        _ = try reportToday()  // a TODO_TODAY the app could not read is refused here, in words
        let launch = try device.launch()
        announceCloud(launch)
        var options = launch.options
        options.sendsAutomatically = true
        try await TerminalApp.run(options)
    }
}

/// `todo keys`: the terminal app's keys in effect (config.toml `[keys]` applied), from the table the help overlay shows.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "List the terminal app's keys in effect, config.toml [keys] applied (Markdown table).")

    @Option(name: .customLong("data-dir"), help: "Directory for caches, credentials and the configuration (default: XDG directories).")
    var dataDir: String?

    func run() throws {
        let options = DeviceOptions(dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) }, sendsAutomatically: false)
        let configFile = ConfigFile(options)
        var keymap = Keymap.standard
        do {
            let overrides = try configFile.settings().keys
            if !overrides.isEmpty { keymap = try Keymap(overrides: overrides) }
        } catch {
            // The app starts with the standard keys then too: say why, and show those.
            printError("\(configFile.url.path): \(error); the standard keys are in effect")
        }
        for line in keymap.markdownTable().split(separator: "\n", omittingEmptySubsequences: false) { print(String(line)) }
    }
}
