import ArgumentParser
import CloudClient
import CloudModel
import CommandLineSupport
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
    let text = words.map { $0.contains(" ") && !$0.contains("\"") ? "\"\($0)\"" : $0 }.joinedText(" ")
    do {
        return try TodoFilter.parse(text, now: Date(), calendar: planningCalendar) { try parseDueDate($0) }
    } catch {
        throw ValidationError(String(describing: error))
    }
}

extension DeviceSession {
    /// The todos of a scope (trashed ones when asked), oldest first, each with its list's title.
    func listedTodos(in scope: DatabaseScope, includeTrashed: Bool) async throws -> [ListedTodo] {
        try await listedTodos(TodoQuery(scope: scope, includeTrashed: includeTrashed, creationOrder: true))
    }

    /// The todos `query` reads (a superset of what its filter keeps), each with its list's title and its dependency
    /// marks; only those rows are made into todos, and only the lists and dependencies read that may be named.
    func listedTodos(_ query: TodoQuery) async throws -> [ListedTodo] {
        try await mapListedTodos(query) { $0 }
    }

    /// `transform` of each todo `query` reads, as a `ListedTodo`, inside the cache's read: what is kept of each row
    /// is what `transform` gives (a line, a score), never a copy of every todo.
    func mapListedTodos<T: Sendable>(_ query: TodoQuery, _ transform: @escaping @Sendable (ListedTodo) -> T?) async throws -> [T] {
        try await mapListedTodos(query, prefilter: nil, transform)
    }

    /// `mapListedTodos(_:_:)` with a listing read's `prefilter` (`TodoStore.mapTodos(matching:prefilter:_:)`), which
    /// is also given the dependencies the marks are made from: a row it refuses is never made into a todo.
    func mapListedTodos<T: Sendable>(
        _ query: TodoQuery, prefilter: (@Sendable (ListingFacts, () -> String, ListedDependencies) -> Bool)?,
        _ transform: @escaping @Sendable (ListedTodo) -> T?
    ) async throws -> [T] {
        let (lists, dependencies) = try await listingContext(in: query.scope, includeTrashed: query.includeTrashed)
        let listed: @Sendable (TodoItem) -> T? = { item in transform(Self.listed(item, lists: lists, dependencies: dependencies)) }
        guard let prefilter else { return try await store.mapTodos(matching: query, listed) }
        return try await store.mapTodos(matching: query, prefilter: { facts, name in prefilter(facts, name, dependencies) }, listed)
    }

    /// `transform` of each todo `query` reads, handed to `body` a chunk of at most `size` rows at a time in key order,
    /// each chunk read after the last was handled: what a command writes out as it goes holds one chunk, not all.
    func forEachChunk<T: Sendable>(
        of query: TodoQuery, size: Int, _ transform: @escaping @Sendable (ListedTodo) -> T?, _ body: ([T]) async throws -> Void
    ) async throws {
        let (lists, dependencies) = try await listingContext(in: query.scope, includeTrashed: query.includeTrashed)
        var after: RecordKey?
        while true {
            let chunk = try await store.mapTodos(matching: query, after: after, limit: size) { item in
                transform(Self.listed(item, lists: lists, dependencies: dependencies))
            }
            if !chunk.values.isEmpty { try await body(chunk.values) }
            guard !chunk.isComplete, let last = chunk.last else { return }
            after = last
        }
    }

    /// The todos of `keys` as `ListedTodo`s (those the cache holds; in no particular order).
    func listedTodos(keys: [RecordKey]) async throws -> [ListedTodo] {
        var listed: [ListedTodo] = []
        for scope in Set(keys.map(\.scope)) {
            let (lists, dependencies) = try await listingContext(in: scope, includeTrashed: false)
            listed += try await store.mapTodos(keys: keys.filter { $0.scope == scope }) { Self.listed($0, lists: lists, dependencies: dependencies) }.values
        }
        return listed
    }

    /// What a listed todo shows beside its own fields, read once per listing of `scope`: its list's title by the list's
    /// key (trashed lists too when asked), and the dependencies its marks are made from.
    private func listingContext(in scope: DatabaseScope, includeTrashed: Bool) async throws -> (lists: [RecordKey: String], dependencies: ListedDependencies) {
        let lists = try await store.listTitles(in: scope, includeTrashed: includeTrashed)
        let related = try await store.dependencyTodos(in: scope)
        return (lists, Self.openDependencies(waiting: related.waiting, open: related.open))
    }

    /// The open todos the marks are made from, by record name, and the names of those an open todo waits on
    /// (`openDependencies`).
    typealias ListedDependencies = (open: [String: TodoItem], blocking: Set<String>)

    /// `item` with its list's title (from `lists`) and its dependency marks.
    static func listed(
        _ item: TodoItem, lists: [RecordKey: String], dependencies: (open: [String: TodoItem], blocking: Set<String>)
    ) -> ListedTodo {
        let title = item.listName.flatMap {
            lists[RecordKey(scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner, recordName: $0)]
        }
        var todo = ListedTodo(item: item, listTitle: title)
        if !item.depends.isEmpty { todo.blockers = item.depends.compactMap { dependencies.open[$0] } }
        todo.isBlocking = !item.isCompleted && dependencies.blocking.contains(item.key.recordName)
        return todo
    }

    /// The open todos that `waiting` (the open todos that wait on others) and the todos shown depend on, by record
    /// name (`open`: those of them open and in the cache, oldest first), and the names of todos an open todo waits
    /// on. A blocker only counts while it is open and in the cache: trashed, done, or removed with a list that is no
    /// longer shared, it no longer blocks (and is not shown), though the name stays in the record until edited.
    static func openDependencies(waiting: [TodoItem], open: [TodoItem]) -> (open: [String: TodoItem], blocking: Set<String>) {
        guard !open.isEmpty else { return ([:], []) }
        let open = Dictionary(open.map { ($0.key.recordName, $0) }, uniquingKeysWith: { first, _ in first })
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

    func validate() throws { try request.validate() }

    func run() async throws { try await request.run() }

    /// What this command line asks, as plain values.
    var request: ListRequest {
        ListRequest(device: device.flags, json: json, all: all, publicBoard: publicBoard, shared: shared, offline: offline, sort: sort, filter: filter)
    }
}

/// What `todo list` is asked, as plain values: `List` reads them with ArgumentParser, `QuickCommandLine` without.
struct ListRequest: Sendable, Equatable {
    var device = DeviceFlags()
    var json = false
    var all = false
    var publicBoard = false
    var shared = false
    var offline = false
    var sort: String?
    var filter: [String] = []

    /// Refuses what the command line cannot mean, its device options aside (`List.validate`).
    func validate() throws {
        try refuseUnknownOptions(in: filter, of: List.self)
        _ = try parseFilter(filter)
        if let sort, TodoUI.SortOrder(rawValue: sort) == nil {
            throw ValidationError("--sort must be one of due, priority, created, title, next, not '\(sort)'")
        }
    }

    /// Lists the todos asked for.
    func run() async throws {
        let filter = try parseFilter(filter)
        let asksForDone = filter.hasTerm("is:done")
        let asksForWaiting = filter.hasTerm("is:waiting")
        try await device.withFreshSession(orSignedOut: true, offline: offline) { session in
            let scope: DatabaseScope = publicBoard ? .public : shared ? .shared : .private
            let now = Date()
            let context = try activeContext(session.options)
            // The cache reads only the rows the filter and the context may keep (in SQL, on the stored columns);
            // each is still checked below. Signed out, the cache answers (docs/ACCOUNTS.md, "When a session ends").
            let query = TodoQuery(
                scope: scope, includeTrashed: all, openOnly: !all && !asksForDone, visibleAt: all || asksForWaiting ? nil : now,
                hints: context.map { filter.hints.merged(with: $0.filter.hints) } ?? filter.hints)
            let showsAll = all
            let keeps: @Sendable (ListedTodo) -> Bool = { todo in
                (showsAll || ((asksForDone || !todo.item.isCompleted) && (asksForWaiting || !todo.isHidden(at: now))))
                    && filter.matches(todo) && context?.filter.matches(todo) != false
            }
            let order = try ListOrder(sort.flatMap(TodoUI.SortOrder.init(rawValue:)) ?? savedSort(session.options)) { try urgency(session.options) }
            let snapshot = await session.engine.status()
            let shownCount: Int
            // Active todos first (what is being worked on now), each group in the order asked for.
            if json {
                let sorted = order.sorted(try await session.mapListedTodos(query) { keeps($0) ? $0 : nil })
                let shown = sorted.filter(\.item.isActive) + sorted.filter { !$0.item.isActive }
                try printTodosJSON(shown, urgency: try order.urgency ?? urgency(session.options))
                shownCount = shown.count
            } else {
                // Each row becomes its line inside the cache's read: the todos themselves are not kept.
                let scoring = order.urgency
                let sorted = order.sorted(try await session.mapListedTodos(query) { keeps($0) ? ListedLine($0, urgency: scoring) : nil })
                for line in sorted where line.isActive { print(line.line) }
                for line in sorted where !line.isActive { print(line.line) }
                shownCount = sorted.count
            }
            if shownCount == 0 { printError("no todos match") }
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
