import ArgumentParser
import CloudModel
import Foundation
import TodoApp
import Terminal
import TodoPlanning
import TodoStore
import TodoSync

extension InterchangeFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
}

/// `todo export [--format ics|taskwarrior|json] [--output FILE | --vdir DIR] [FILTER...]`.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write your todos as iCalendar (VTODO), Taskwarrior JSON or this app's JSON.",
        discussion: """
            ics: one iCalendar file (RFC 5545) of VTODOs, or with --vdir a directory per list of one .ics file per todo \
            (the layout vdirsyncer and todoman use). taskwarrior: what `task import` reads. json: what `todo import` \
            reads back (every field). Filter terms (as todo list takes them) export only the todos they match.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Option(help: "ics, taskwarrior or json (default: json).")
    var format: InterchangeFormat = .json

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @Option(help: "Write an iCalendar directory (one subdirectory per list, one .ics file per todo) instead; it must not exist or be empty.")
    var vdir: String?

    @Flag(help: "Do not ask the cloud first; export the cache.")
    var offline = false

    @Argument(parsing: .allUnrecognized, help: "Filter terms (see todo list --help).")
    var filter: [String] = []

    func validate() throws {
        if vdir != nil && format != .ics && format != .json { throw ValidationError("--vdir writes iCalendar: use it with --format ics") }
        if vdir != nil && output != nil { throw ValidationError("--vdir and --output cannot be used together") }
        try refuseUnknownOptions(in: filter, of: Export.self)
        _ = try parseFilter(filter)
    }

    func run() async throws {
        let filter = try parseFilter(filter)
        let todos = try await device.withSession { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            // Only the rows the filter may keep are read (in SQL); each is still checked here.
            let query = TodoQuery(scope: .private, hints: filter.hints, creationOrder: true)
            return try await session.listedTodos(query).filter { filter.isEmpty || filter.matches($0) }
        }
        let portable = todos.map { PortableTodo($0.item, listTitle: $0.listTitle) }
        let calendar = planningCalendar
        if let vdir {
            do {
                try VdirLayout.write(portable, to: URL(fileURLWithPath: vdir, isDirectory: true), calendar: calendar)
            } catch {
                throw DeviceCommandError(String(describing: error))
            }
            printError("Wrote \(portable.count) todo\(portable.count == 1 ? "" : "s") to \(vdir)")
            return
        }
        let text: String
        var warnings: [String] = []
        switch format {
        case .ics: text = ICalendar.encode(portable, calendar: calendar, includeList: true)
        case .taskwarrior:
            let export = TaskwarriorJSON.encode(portable, calendar: calendar)
            // Escaped further where a terminal would act on it (C1 controls, bidi overrides): still the same JSON.
            text = escapingTerminalControls(inJSON: export.text)
            warnings = export.warnings
        case .json: text = escapingTerminalControls(inJSON: try TodoImportFile.encode(portable, calendar: calendar))
        }
        for warning in warnings.prefix(20) { printError(warning) }
        if warnings.count > 20 { printError("… and \(warnings.count - 20) more") }
        if let output {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw DeviceCommandError("cannot write \(output): \(error.localizedDescription)")
            }
            printError("Wrote \(portable.count) todo\(portable.count == 1 ? "" : "s") to \(output)")
        } else if isatty(STDOUT_FILENO) != 0 {
            // A person reads it: other accounts' text (C1 controls, bidi overrides) must not act on the terminal. A
            // file or a pipe gets the exact bytes.
            FileHandle.standardOutput.write(Data(inertLines(text).utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}

/// `text` made inert line by line for a terminal: each line sanitised, line ends (`\n`, `\r\n`) kept as `\n`.
func inertLines(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        sanitize(line.hasSuffix("\r") ? String(line.dropLast()) : String(line))
    }.joined(separator: "\n")
}
