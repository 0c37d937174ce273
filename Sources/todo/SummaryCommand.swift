import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

/// `todo summary [FILTER...] [--offline]`: per project (list path), open and done counts with a bar.
struct Summary: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary", abstract: "Per project (list path), open and done todos, percent done and a bar (Taskwarrior's summary).",
        discussion: """
            A project is a list: lists nest by dotted names, so Home.Garden is shown below Home and Home counts it \
            too. Todos in no list are counted under (none). Open todos include waiting ones, as todo projects counts \
            them; a project with nothing open is left out unless --all. Your lists and those shared with you; trashed \
            todos are left out; the context (todo context) and filter terms narrow what is counted. Colour on a \
            terminal, plain text (# done, . open) under NO_COLOR or into a pipe.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; count the cache.")
    var offline = false

    @Flag(help: "Show every project, those with nothing open too (Taskwarrior's summary.all.projects).")
    var all = false

    @Argument(parsing: .allUnrecognized, help: "Filter terms, as todo list takes them.")
    var filter: [String] = []

    func validate() throws {
        try refuseUnknownOptions(in: filter, of: Summary.self)
        _ = try parseFilter(filter)
    }

    func run() async throws {
        let filter = try parseFilter(filter)
        try await device.withFreshSession(orSignedOut: true, offline: offline) { session in
            let context = try activeContext(session.options)
            let counted = try await session.reportTodos(matching: filter, context: context, at: Date())
            let summary = ProjectSummary(counted.map { (path: $0.todo.listTitle, isCompleted: $0.standing == .done) }, everyProject: all)
            for line in summary.text(width: terminalColumns(), ink: .forStandardOutput()) { print(line) }
            if let context { printError(contextLine(context)) }
            if let line = signedOutLine(await session.engine.status()) { printError(line) }
        }
    }
}

/// The width reports are laid out for: the terminal's columns when standard output is one, else `$COLUMNS`, else 80.
func terminalColumns() -> Int {
    var size = winsize()
    if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
    return 80
}
