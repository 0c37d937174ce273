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
    var wait: Date? { item.wait }
    var scheduled: Date? { item.scheduled }
    var until: Date? { item.until }
    var start: Date? { item.start }
    /// The open todos (present in the cache) it waits on; a blocker trashed, done or gone is not among them.
    var blockers: [TodoItem] = []
    /// Whether an open todo waits on it.
    var isBlocking = false
    var isBlocked: Bool { !blockers.isEmpty }

    /// Whether the usual views leave it out at `now`: waiting, or past its `until` (trashed at the next sync).
    func isHidden(at now: Date) -> Bool { item.isWaiting(at: now) || item.isExpired(at: now) }
    var annotationTexts: [String] { item.annotations.map(\.text) }
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
        let todos = records.filter { $0.recordType == TodoSchema.todoType }
        let dependencies = Self.openDependencies(of: todos)
        return todos.map { item in
            let title = item.listName.flatMap {
                lists[RecordKey(scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner, recordName: $0)]
            }
            var todo = ListedTodo(item: item, listTitle: title)
            todo.blockers = item.depends.compactMap { dependencies.open[$0] }
            todo.isBlocking = !item.isCompleted && dependencies.blocking.contains(item.key.recordName)
            return todo
        }
    }

    /// The open todos that `todos` depend on, by record name, and the names of todos an open todo waits on. A blocker
    /// only counts while it is open and in the cache: trashed, done, or removed with a list that is no longer shared,
    /// it no longer blocks (and is not shown), though the name stays in the record until edited.
    static func openDependencies(of todos: [TodoItem]) -> (open: [String: TodoItem], blocking: Set<String>) {
        let waiting = todos.filter { !$0.depends.isEmpty && !$0.isCompleted && !$0.isTrashed }
        guard !waiting.isEmpty else { return ([:], []) }
        let open = Dictionary(
            todos.filter { !$0.isCompleted && !$0.isTrashed }.map { ($0.key.recordName, $0) },
            uniquingKeysWith: { first, _ in first })
        var blocking = Set<String>()
        for item in waiting { for name in item.depends where open[name] != nil { blocking.insert(name) } }
        return (open, blocking)
    }
}

/// `todo list [FILTER...] [--json] [--all] [--public] [--shared] [--offline]`.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List open todos (after fetching what changed), optionally only those a filter matches.",
        discussion: """
            A filter is the app's / syntax: words match the title, notes or annotations; +tag and -tag; list:NAME; due:today, \
            due:none, due:overdue, due.before:DATE, due.after:DATE, due.by:DATE; pri:2+ (at least), pri:1- (at most); \
            is:done, is:open, is:repeating, is:overdue, is:waiting, is:scheduled, is:active, is:blocked, is:blocking; \
            wait:, scheduled: and until: with .before:, .after: and .by: as due takes them. All terms must match, e.g. \
            todo list +garden due.before:eow. Done todos are shown with is:done or --all, waiting ones with is:waiting \
            or --all; the order is by due date, then priority, unless config.toml saves another ([view] sort) or --sort \
            gives one (next: by urgency, as todo next ranks). The context (todo context) applies too.
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @Flag(help: "Show every todo: done, waiting and trashed ones too.")
    var all = false

    @Flag(name: .customLong("public"), help: "List the public board instead of your private todos.")
    var publicBoard = false

    @Flag(help: "List todos of lists others share with you.")
    var shared = false

    @Flag(help: "Do not ask the cloud; show the cache.")
    var offline = false

    @Option(help: ArgumentHelp("The order: due, priority, created, title or next (urgency); the saved one when not given.", valueName: "order"))
    var sort: String?

    @Argument(parsing: .allUnrecognized, help: "Filter terms (see above).")
    var filter: [String] = []

    func validate() throws {
        try refuseUnknownOptions(in: filter, of: List.self)
        _ = try parseFilter(filter)
        if let sort, TodoUI.SortOrder(rawValue: sort) == nil {
            throw ValidationError("--sort must be one of due, priority, created, title, next, not '\(sort)'")
        }
    }

    func run() async throws {
        let filter = try parseFilter(filter)
        let asksForDone = filter.summary.split(separator: " ").contains("is:done")
        let asksForWaiting = filter.summary.split(separator: " ").contains("is:waiting")
        try await device.withSession(orSignedOut: true) { session in
            if !offline { await session.engine.sync(.manualRefresh) }
            let scope: DatabaseScope = publicBoard ? .public : shared ? .shared : .private
            // Signed out, the cache answers (docs/ACCOUNTS.md, "When a session ends"), with one line saying so.
            let todos = try await session.listedTodos(in: scope, includeTrashed: all)
            let now = Date()
            let kept = all ? todos : todos.filter { (asksForDone || !$0.item.isCompleted) && (asksForWaiting || !$0.isHidden(at: now)) }
            let context = try activeContext(session.options)
            let matched = filter.isEmpty && context == nil ? kept : kept.filter { filter.matches($0) && context?.filter.matches($0) != false }
            let order = sort.flatMap(TodoUI.SortOrder.init(rawValue:)) ?? savedSort(session.options)
            // Active todos first (what is being worked on now), each group in the order asked for.
            let sorted = ListOrder(order, urgency: try urgency(session.options)).sorted(matched)
            let shown = sorted.filter(\.item.isActive) + sorted.filter { !$0.item.isActive }
            let snapshot = await session.engine.status()
            if json {
                try printTodosJSON(shown, urgency: try urgency(session.options))
            } else {
                for todo in shown { print(todoLine(todo)) }
            }
            if shown.isEmpty { printError("no todos match") }
            if let context, !json { printError(contextLine(context)) }
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
