import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync

/// A project is a list path: lists nest by dotted titles (`Home.Garden` is below `Home`), so Taskwarrior's project
/// hierarchy is the lists' titles and needs no field of its own.
enum ProjectPath {
    /// Whether `path` can name a project: dot-separated parts, none empty or all spaces.
    static func isValid(_ path: String) -> Bool {
        !path.isEmpty && path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { !$0.allSatisfy(\.isWhitespace) }
    }

    /// `path` and every path above it, outermost first (`Home`, `Home.Garden`).
    static func ancestry(_ path: String) -> [String] {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false)
        return parts.indices.map { parts[...$0].joined(separator: ".") }
    }
}

/// `--project PATH` on `todo add` and `todo edit`: into the list with that title (made when there is none); `none`
/// takes it out of any list.
struct ProjectOption: ParsableArguments {
    @Option(help: ArgumentHelp("The project: a list path such as Home.Garden (the list is made when none has that title; none: out of any list).", valueName: "path"), completion: CacheCompletion.lists)
    var project: String?

    func validate() throws {
        if let project, project.lowercased() != "none", !ProjectPath.isValid(project) {
            throw ValidationError("'\(project)' is not a project: give a list path such as Home.Garden (no empty parts)")
        }
    }

    /// The list `project` names: yours or one shared with you (by title, any case), else a new list of yours; nil
    /// for `none`. Only called when the flag was given.
    func list(in session: DeviceSession) async throws -> TodoItem? {
        guard let project, project.lowercased() != "none" else { return nil }
        return try await Self.list(named: project, in: session)
    }

    /// The list titled `path` (any case), yours or shared with you, else a new list of yours.
    static func list(named path: String, in session: DeviceSession) async throws -> TodoItem {
        if let found = try await session.engine.lists().first(where: { $0.title.caseInsensitiveCompare(path) == .orderedSame }) {
            return found
        }
        return try await session.engine.addList(title: path)
    }
}

/// `todo projects [FILTER...]`: every project (list path) with something open, its open todos counted (its
/// children's included), nested by dots; the counting `todo summary` does.
struct Projects: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projects", abstract: "Show the projects (lists, nested by dotted titles) with their open todos counted.",
        discussion: """
            A parent counts the open todos of the lists below it, waiting ones included, as todo summary and \
            Taskwarrior's projects count them; a project with nothing open is not shown. Your lists and those shared \
            with you; the context (todo context) and filter terms narrow what is counted.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; count the cache.")
    var offline = false

    @Argument(parsing: .allUnrecognized, help: "Filter terms, as todo list takes them.")
    var filter: [String] = []

    func validate() throws {
        try refuseUnknownOptions(in: filter, of: Projects.self)
        _ = try parseFilter(filter)
    }

    func run() async throws {
        let filter = try parseFilter(filter)
        try await device.withFreshSession(orSignedOut: true, offline: offline) { session in
            let context = try activeContext(session.options)
            let open = try await session.reportTodos(matching: filter, context: context, at: Date()).filter { $0.standing == .open }
            for line in ProjectSummary(open.map { (path: $0.todo.listTitle, isCompleted: false) }).projectsText() { print(line) }
            if let context { printError(contextLine(context)) }
            if let line = signedOutLine(await session.engine.status()) { printError(line) }
        }
    }
}

/// `todo tags [FILTER...]`: every tag of an open todo with how many open todos carry it.
struct Tags: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags", abstract: "Show the tags of open todos, each with how many carry it.",
        discussion: """
            Open todos count, waiting ones included, as todo projects and Taskwarrior's tags count them; tags \
            differing only in case count together. The context (todo context) and filter terms narrow what is counted.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; count the cache.")
    var offline = false

    @Argument(parsing: .allUnrecognized, help: "Filter terms, as todo list takes them.")
    var filter: [String] = []

    func validate() throws {
        try refuseUnknownOptions(in: filter, of: Tags.self)
        _ = try parseFilter(filter)
    }

    func run() async throws {
        let filter = try parseFilter(filter)
        try await device.withFreshSession(orSignedOut: true, offline: offline) { session in
            let context = try activeContext(session.options)
            let open = try await session.reportTodos(matching: filter, context: context, at: Date()).filter { $0.standing == .open }
            let rows = TagCounts(open.map(\.todo.item.tags)).rows
            if rows.isEmpty {
                printError("no open todo has a tag")
            } else {
                let width = max(3, rows.map(\.name.count).max() ?? 0)
                print("Tag".padding(toLength: width, withPad: " ", startingAt: 0) + "  Open")
                for row in rows { print(row.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(row.count).leftPadded(to: 4)) }
            }
            if let context { printError(contextLine(context)) }
            if let line = signedOutLine(await session.engine.status()) { printError(line) }
        }
    }
}
