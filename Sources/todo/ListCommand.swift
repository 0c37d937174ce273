import ArgumentParser
import CloudClient
import CloudModel
import Foundation
import Terminal
import TodoPlanning
import TodoApp
import TodoStore
import TodoSync
import TodoUI

/// A todo with its list's title, as filters see it.
struct ListedTodo: Filterable {
    var item: TodoItem
    /// The title of its list, nil when in none.
    var listTitle: String?

    var title: String { item.title }
    var notes: String { item.notes }
    var tags: [String] { item.tags }
    var listName: String? { listTitle }
    var due: DueDate? { item.due }
    var priority: Int { item.priority }
    var isCompleted: Bool { item.isCompleted }
    var isRepeating: Bool { item.isRepeating }
}

/// Reads a filter the way `/` in the app does, with the command line's date grammar.
func parseFilter(_ words: [String]) throws -> TodoFilter {
    let text = words.map { $0.contains(" ") && !$0.contains("\"") ? "\"\($0)\"" : $0 }.joined(separator: " ")
    do {
        return try TodoFilter.parse(text, now: Date(), calendar: planningCalendar) { try parseDueDate($0) }
    } catch {
        throw ValidationError(String(describing: error))
    }
}

extension DeviceSession {
    /// The todos of a scope (trashed ones when asked), each with its list's title.
    func listedTodos(in scope: DatabaseScope, includeTrashed: Bool) async throws -> [ListedTodo] {
        let records = try await store.todos(in: scope, includeTrashed: includeTrashed)
        let lists = Dictionary(records.filter(\.isList).map { ($0.key, $0.title) }, uniquingKeysWith: { first, _ in first })
        return records.filter { $0.recordType == TodoSchema.todoType }.map { item in
            let title = item.listName.flatMap {
                lists[RecordKey(scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner, recordName: $0)]
            }
            return ListedTodo(item: item, listTitle: title)
        }
    }
}

/// `todo list [FILTER...] [--json] [--all] [--public] [--shared] [--offline]`.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List open todos (after fetching what changed), optionally only those a filter matches.",
        discussion: """
            A filter is the app's / syntax: words match the title or notes; +tag and -tag; list:NAME; due:today, \
            due:none, due:overdue, due.before:DATE, due.after:DATE, due.by:DATE; pri:2+ (at least), pri:1- (at most); \
            is:done, is:open, is:repeating, is:overdue. All terms must match, e.g. todo list +garden due.before:eow. \
            Done todos are shown with is:done or --all; the order is by due date, then priority, unless config.toml \
            saves another ([view] sort).
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @Flag(help: "Show every todo: done and trashed ones too.")
    var all = false

    @Flag(name: .customLong("public"), help: "List the public board instead of your private todos.")
    var publicBoard = false

    @Flag(help: "List todos of lists others share with you.")
    var shared = false

    @Flag(help: "Do not ask the cloud; show the cache.")
    var offline = false

    @Argument(parsing: .allUnrecognized, help: "Filter terms (see above).")
    var filter: [String] = []

    func validate() throws {
        try refuseUnknownOptions(in: filter, of: List.self)
        _ = try parseFilter(filter)
    }

    func run() async throws {
        let filter = try parseFilter(filter)
        let asksForDone = filter.summary.split(separator: " ").contains("is:done")
        try await device.withSession(orSignedOut: true) { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            let scope: DatabaseScope = publicBoard ? .public : shared ? .shared : .private
            // Signed out, the cache answers (docs/ACCOUNTS.md, "When a session ends"), with one line saying so.
            let todos = try await session.listedTodos(in: scope, includeTrashed: all)
            let kept = all || asksForDone ? todos : todos.filter { !$0.item.isCompleted }
            let matched = filter.isEmpty ? kept : kept.filter { filter.matches($0) }
            let shown = ListOrder(savedSort(session.options)).sorted(matched)
            let snapshot = await session.engine.status()
            if json {
                try printTodosJSON(shown, urgency: try urgency(session.options))
            } else {
                for todo in shown { print(todoLine(todo)) }
            }
            if shown.isEmpty { printError("no todos match") }
            if let line = signedOutLine(snapshot) {
                printError(line)
            } else if !json && (snapshot.connection != .online || snapshot.pendingCount > 0) {
                printError("Shown from this device's cache (\(snapshot.statusLine))")
            }
        }
    }

    /// The sort saved in config.toml (`[view] sort`, as the app's `o` leaves it); nil when none is saved or it cannot be read.
    private func savedSort(_ options: DeviceOptions) -> TodoUI.SortOrder? {
        (try? ConfigFile(options).settings().view.sort).flatMap { $0.flatMap(TodoUI.SortOrder.init(rawValue:)) }
    }
}

/// The one line a verb that answers from the cache prints when the device is signed out: that it is, why, and the
/// command that signs it in again; nil when signed in.
func signedOutLine(_ snapshot: SyncSnapshot) -> String? {
    guard snapshot.connection == .signedOut else { return nil }
    let why = snapshot.lastError.map { plainMessage($0) } ?? "signed out"
    let pending = snapshot.pendingCount > 0 ? "; \(snapshot.pendingCount) pending change(s) kept" : ""
    return "shown from this device's cache (\(why.hasPrefix("signed out") || why.hasPrefix("not signed in") ? why : "signed out: " + why)\(pending))"
}
