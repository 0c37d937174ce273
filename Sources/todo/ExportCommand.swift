import ArgumentParser
import CloudModel
import CommandLineSupport
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

    func validate() throws { try request.validate() }

    func run() async throws { try await request.run() }

    /// What this command line asks, as plain values.
    var request: ExportRequest {
        ExportRequest(device: device.flags, format: format, output: output, vdir: vdir, offline: offline, filter: filter)
    }
}

/// What `todo export` is asked, as plain values: `Export` reads them with ArgumentParser, `QuickCommandLine` without.
struct ExportRequest: Sendable, Equatable {
    var device = DeviceFlags()
    var format: InterchangeFormat = .json
    var output: String?
    var vdir: String?
    var offline = false
    var filter: [String] = []

    /// Refuses what the command line cannot mean, its device options aside (`Export.validate`).
    func validate() throws {
        if vdir != nil && format != .ics && format != .json { throw ValidationError("--vdir writes iCalendar: use it with --format ics") }
        if vdir != nil && output != nil { throw ValidationError("--vdir and --output cannot be used together") }
        try refuseUnknownOptions(in: filter, of: Export.self)
        _ = try parseFilter(filter)
    }

    /// Writes the todos asked for in the format asked for.
    func run() async throws {
        let filter = try parseFilter(filter)
        if format == .taskwarrior && vdir == nil {
            try await exportTaskwarrior(filter)
            return
        }
        let todos = try await device.withFreshSession(offline: offline) { session in
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

extension ExportRequest {
    /// Rows read, encoded and written at a time by a Taskwarrior export. A chunk's text is held in several copies on
    /// its way out: chunks of 1,000 rows peaked 0.5 MB higher over 1,000 todos (1.5 MB over 10,000) for 2 % fewer
    /// instructions.
    static let chunk = 250

    /// `--format taskwarrior` a chunk at a time, in key order (time-ordered names: about the order they were made):
    /// each chunk of rows is read, encoded and written before the next is read, so an export of 100,000 todos holds
    /// one chunk of them, and Taskwarrior's JSON array is the same text as when encoded whole.
    private func exportTaskwarrior(_ filter: TodoFilter) async throws {
        let sink = try ExportSink(output: output)
        var warnings: [String] = []
        var more = 0
        var count = 0
        var wroteOne = false
        let now = Date()
        let calendar = planningCalendar
        do {
            try await device.withFreshSession(offline: offline) { session in
                let query = TodoQuery(scope: .private, hints: filter.hints)
                try await session.forEachChunk(of: query, size: Self.chunk) { todo -> PortableTodo? in
                    filter.isEmpty || filter.matches(todo) ? PortableTodo(todo.item, listTitle: todo.listTitle) : nil
                } _: { portable in
                    let export = TaskwarriorJSON.encode(portable, calendar: calendar, now: now)
                    // The objects of this chunk, without the array's brackets ("[\n" … "\n]\n").
                    let objects = export.text.dropFirst(2).dropLast(3)
                    guard !objects.isEmpty else { return }
                    try sink.write((wroteOne ? ",\n" : "[\n") + escapingTerminalControls(inJSON: String(objects)))
                    wroteOne = true
                    count += portable.count
                    for warning in export.warnings {
                        // Each chunk's log says how many it left out; they are counted together here.
                        if warning.hasSuffix(" more warnings were left out."), let left = Int(warning.prefix { $0 != " " }) {
                            more += left
                        } else {
                            warnings.append(warning)
                        }
                    }
                }
            }
            try sink.write((wroteOne ? "" : "[\n") + "\n]\n")
            try sink.finish()
        } catch {
            sink.abandon()
            throw error
        }
        for warning in warnings.prefix(20) { printError(warning) }
        if warnings.count + more > 20 { printError("… and \(warnings.count + more - 20) more") }
        if let output { printError("Wrote \(count) todo\(count == 1 ? "" : "s") to \(output)") }
    }
}

/// Where an export goes as it is written: a file (written beside it and renamed over it at the end, so a failed
/// export leaves the old file), standard output as it is (a file or a pipe), or standard output made inert line by
/// line (a terminal).
final class ExportSink {
    private let handle: FileHandle
    private let path: String?
    private let partial: String?
    private let inert: Bool

    init(output: String?) throws {
        if let output {
            let target = URL(fileURLWithPath: output)
            let partial = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(getpid()).partial").path
            guard FileManager.default.createFile(atPath: partial, contents: nil), let handle = FileHandle(forWritingAtPath: partial) else {
                throw DeviceCommandError("cannot write \(output): the directory cannot be written")
            }
            self.handle = handle
            path = output
            self.partial = partial
            inert = false
        } else {
            handle = FileHandle.standardOutput
            path = nil
            partial = nil
            inert = isatty(STDOUT_FILENO) != 0
        }
    }

    /// Writes `text` (whole lines, or the array's punctuation).
    func write(_ text: String) throws {
        do {
            try handle.write(contentsOf: Data((inert ? inertLines(text) : text).utf8))
        } catch {
            throw DeviceCommandError("cannot write \(path ?? "the export"): \(error.localizedDescription)")
        }
    }

    /// Puts the file in place (a file export).
    func finish() throws {
        guard let path, let partial else { return }
        try? handle.close()
        guard rename(partial, path) == 0 else {
            abandon()
            throw DeviceCommandError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes what a failed file export wrote.
    func abandon() {
        guard let partial else { return }
        try? handle.close()
        try? FileManager.default.removeItem(atPath: partial)
    }
}
