import ArgumentParser
import CommandLineSupport
import Foundation
import TodoApp
import TodoPlanning
import TodoSync
import Terminal
import TodoUI

/// `todo import FILE|DIR [--format ics|taskwarrior|json]`: adds the todos of a file in one transaction, then sends them.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add todos from an iCalendar file or directory, a Taskwarrior export, or this app's JSON.",
        discussion: """
            The format is found from the content unless --format says it: ics (a file of VTODOs, or a directory of \
            .ics files per list as vdirsyncer and todoman keep them), taskwarrior (what `task export` writes), json \
            ([{"title", "notes"?, "due"?, "priority"?, "done"?, "tags"?, "repeat"?, "list"?, "id"?}], what \
            `todo export` writes). A todo whose ID (UID, uuid) this device holds already is updated rather than added \
            again, so importing a file twice adds nothing twice; it prints `Imported N todos: added N, updated M, \
            unchanged K`. The todos are stored and queued in one transaction \
            (all or none), then sent (not with --no-send); when the cloud does not answer they stay queued.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "The file, or an iCalendar directory.")
    var file: String

    @Option(help: "ics, taskwarrior or json (default: found from the content).")
    var format: InterchangeFormat?

    @Flag(name: .shortAndLong, help: "No progress line.")
    var quiet = false

    @Flag(name: .customLong("no-send"), help: "Store and queue only; `todo sync` (or the app) sends them later.")
    var noSend = false

    func run() async throws { try await request.run() }

    /// What this command line asks, as plain values.
    var request: ImportRequest { ImportRequest(device: device.flags, file: file, format: format, quiet: quiet, noSend: noSend) }
}

/// What `todo import` is asked, as plain values: `Import` reads them with ArgumentParser, `QuickCommandLine` without.
struct ImportRequest: Sendable, Equatable {
    var device = DeviceFlags()
    var file: String
    var format: InterchangeFormat?
    var quiet = false
    var noSend = false

    /// The largest file read, in bytes.
    static let maximumSize = 512 * 1024 * 1024

    /// Adds the file's todos in one transaction, then sends them (not with `noSend`).
    func run() async throws {
        let (todos, warnings, skippedUntitled) = try read()
        if let index = todos.firstIndex(where: { !$0.fitsCloudRecord }) {
            // Refused up front, whole: the cloud would refuse it anyway, and a partial import is harder to redo.
            let todo = todos[index]
            throw DeviceCommandError(
                "todo \(index + 1) of \(file), \(quotedForMessage(todo.title)), is \(Self.megabytes(todo.recordBytes)) written out; "
                    + "the cloud takes at most 1 MB a todo. Shorten its notes, then import again (nothing was imported)")
        }
        for warning in warnings.prefix(20) { printError(warning) }
        if warnings.count > 20 { printError("… and \(warnings.count - 20) more notes") }
        let progress = ProgressLine(enabled: !quiet)
        try await device.withSession { session in
            let total = todos.count
            var counts = ImportCounts()
            if total > 0 {
                progress.show("Adding todos: 0 of \(total)")
                counts = try await session.engine.importTodos(todos) { done in progress.show("Adding todos: \(done) of \(total)") }.counts
            }
            progress.clear()
            print("Imported " + Formatting.counted(total, "todo") + ": " + counts.summary)
            if skippedUntitled > 0 {
                printError("Skipped \(skippedUntitled) \(skippedUntitled == 1 ? "entry" : "entries") without a title")
            }
            guard total > 0 else { return }
            if noSend {
                printError("Not sent yet: \(await session.engine.status().pendingCount) pending; todo sync sends them")
                return
            }
            try await progress.whileSending(session) { try await sendAndReport(session) }
        }
        KeptUntilExit.keep(todos)
    }

    /// The todos of the file or directory, notes about what was skipped or changed, and how many had no title.
    private func read() throws -> (todos: [NewTodo], warnings: [String], skippedUntitled: Int) {
        let url = URL(fileURLWithPath: file)
        let calendar = planningCalendar
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else { throw DeviceCommandError("cannot read \(file): no such file") }
        if isDirectory.boolValue {
            guard format == nil || format == .ics else { throw DeviceCommandError("\(file) is a directory: only iCalendar (ics) is read from directories") }
            do {
                var read = try VdirLayout.read(directory: url, calendar: calendar)
                // `todo export --vdir` keeps todos of no list in `Todos/`: they come back in no list.
                for index in read.todos.indices where read.todos[index].listName == VdirLayout.unlistedDirectory {
                    read.todos[index].listName = nil
                }
                return portable(read)
            } catch {
                throw DeviceCommandError("\(file): \(error)")
            }
        }
        let bytes = try ImportSource.contents(of: file, maximumSize: Self.maximumSize)
        guard let format = format ?? InterchangeFormat.detect(bytes) else {
            throw DeviceCommandError("\(file): neither iCalendar, a Taskwarrior export nor this app's JSON; say which with --format")
        }
        do {
            switch format {
            case .json:
                let contents = try TodoImportFile.parse(bytes, dueDate: { try parseDueDate($0) })
                return (contents.todos, [], contents.skippedUntitled)
            case .ics:
                guard let text = String(validating: bytes, as: UTF8.self) else { throw DeviceCommandError("\(file) is not UTF-8 text") }
                return try portable(ICalendar.decode(text, calendar: calendar))
            case .taskwarrior:
                return try portable(TaskwarriorJSON.decode(bytes, calendar: calendar))
            }
        } catch let error as DeviceCommandError {
            throw error
        } catch {
            throw DeviceCommandError("\(file): \(error)")
        }
    }

    /// `bytes` for a message: `1.6 MB`.
    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.2f MB", Double(bytes) / 1_048_576)
    }

    private func portable(_ read: PortableImport) -> (todos: [NewTodo], warnings: [String], skippedUntitled: Int) {
        var warnings = read.warnings
        var untitled = 0
        var todos: [NewTodo] = []
        todos.reserveCapacity(read.todos.count)
        for todo in read.todos {
            if todo.title.allSatisfy(\.isWhitespace) {
                untitled += 1
                continue
            }
            todos.append(NewTodo(todo, warnings: &warnings))
        }
        return (todos, warnings, untitled)
    }
}
