import ArgumentParser
import CloudModel
import Foundation
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

/// `todo projects`: every project (list path) with its open todos counted, nested by dots.
struct Projects: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projects", abstract: "Show the projects (lists, nested by dotted titles) with their open todos counted.")

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; count the cache.")
    var offline = false

    func run() async throws {
        try await device.withSession(orSignedOut: true) { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            var own: [String: Int] = [:]
            var none = 0
            let now = Date()
            for scope in [DatabaseScope.private, .shared] {
                for list in try await session.engine.lists() where list.key.scope == scope { own[list.title, default: 0] += 0 }
                for todo in try await session.listedTodos(in: scope, includeTrashed: false)
                where !todo.item.isCompleted && !todo.item.isTrashed && !todo.isHidden(at: now) {
                    if let path = todo.listTitle { own[path, default: 0] += 1 } else { none += 1 }
                }
            }
            // Parents without a list of their own are shown (with 0) so the nesting reads.
            for path in Array(own.keys) { for parent in ProjectPath.ancestry(path) where own[parent] == nil { own[parent] = 0 } }
            let paths = own.keys.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending }
            let width = max(7, paths.map { path in 2 * (ProjectPath.ancestry(path).count - 1) + (path.split(separator: ".").last.map(\.count) ?? 0) }.max() ?? 0)
            print("Project".padding(toLength: width, withPad: " ", startingAt: 0) + "  Open")
            for path in paths {
                let depth = ProjectPath.ancestry(path).count - 1
                let name = String(repeating: "  ", count: depth) + (path.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? path)
                print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(own[path] ?? 0).leftPadded(to: 4))
            }
            print("(none)".padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(none).leftPadded(to: 4))
        }
    }
}

/// `todo tags`: every tag of an open todo with how many open todos carry it.
struct Tags: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tags", abstract: "Show the tags of open todos, each with how many carry it.")

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Do not ask the cloud; count the cache.")
    var offline = false

    func run() async throws {
        try await device.withSession(orSignedOut: true) { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            var counts: [String: (name: String, count: Int)] = [:]
            let now = Date()
            for scope in [DatabaseScope.private, .shared] {
                for todo in try await session.listedTodos(in: scope, includeTrashed: false)
                where !todo.item.isCompleted && !todo.item.isTrashed && !todo.isHidden(at: now) {
                    for tag in todo.item.tags { counts[foldedText(tag), default: (tag, 0)].count += 1 }
                }
            }
            guard !counts.isEmpty else {
                printError("no open todo has a tag")
                return
            }
            let rows = counts.values.sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }
            let width = max(3, rows.map(\.name.count).max() ?? 0)
            print("Tag".padding(toLength: width, withPad: " ", startingAt: 0) + "  Open")
            for row in rows { print(row.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(row.count).leftPadded(to: 4)) }
        }
    }
}
