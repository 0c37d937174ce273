import CloudModel
import Foundation
import Testing
import SQLiteDB
import TodoPlanning

@testable import TodoStore

/// A cached todo as a filter sees it (no list titles or dependency marks: the store's query says nothing of those).
private struct Checked: Filterable {
    var item: TodoItem
    var title: String { item.title }
    var notes: String { item.notes }
    var tags: [String] { item.tags }
    var listName: String? { item.listName }
    var due: DueDate? { item.due }
    var priority: Int { item.priority }
    var isCompleted: Bool { item.isCompleted }
    var isRepeating: Bool { item.isRepeating }
    var wait: Date? { item.wait }
    var scheduled: Date? { item.scheduled }
    var until: Date? { item.until }
    var start: Date? { item.start }
    var annotationTexts: [String] { item.annotations.map(\.text) }
}

private let utc: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    return calendar
}()

/// Thursday 2026-03-12 10:00 UTC.
private let now = Date(timeIntervalSince1970: 1_773_309_600)

private func parse(_ text: String) throws -> TodoFilter {
    try TodoFilter.parse(text, now: now, calendar: utc) { word in
        switch word {
        case "today": DueDate.day(now, in: utc)
        case "tomorrow": DueDate.day(now.addingTimeInterval(86_400), in: utc)
        case "eow": DueDate.day(now.addingTimeInterval(3 * 86_400), in: utc)
        case "nextweek": DueDate.day(now.addingTimeInterval(7 * 86_400), in: utc)
        default: nil
        }
    }
}

/// `TodoStore.todos(matching:)` reads in SQL only the rows a filter may keep: after the filter, exactly the todos a
/// read of every row filtered in Swift keeps, over generated todos of every kind the columns hold.
@Suite("SQL filters against the Swift filters")
struct QueryFilterTests {
    /// Todos of every shape: tags in any case and script (some only in `extra_fields` neighbours), all-day and timed
    /// due dates around the week, no due date, priorities out of range, done, trashed, waiting, expired, lists.
    private static func generated() -> [TodoItem] {
        let tags = [["home"], ["HOME"], ["Home", "garden"], ["homework"], ["café"], ["Cafe\u{301}"], ["work"], [], ["ho_me"], ["100%"], ["\u{212A}ey"]]
        return (0..<660).map { index in
            var item = TodoItem(key: .privateTodo(String(format: "gen-%04d", index)), title: "Todo \(index)")
            item.tags = tags[index % tags.count]
            switch index % 5 {
            case 0: item.due = nil
            case 1: item.due = DueDate.day(now.addingTimeInterval(Double(index % 23 - 9) * 86_400), in: utc)
            case 2: item.due = DueDate(now.addingTimeInterval(Double(index % 31 - 12) * 36_000), allDay: false)
            case 3: item.due = DueDate.day(now.addingTimeInterval(Double(index % 13) * 86_400), in: utc)
            default: item.due = DueDate(now.addingTimeInterval(Double(index % 7) * 3_600 - 10_000), allDay: false)
            }
            item.priority = index % 4
            item.isCompleted = index % 6 == 1
            item.isTrashed = index % 17 == 4
            if index % 9 == 2 { item.wait = now.addingTimeInterval(Double(index % 5 - 2) * 3_600) }
            if index % 19 == 3 { item.until = now.addingTimeInterval(Double(index % 3 - 1) * 60) }
            if index % 10 == 7 { item.notes = "call home about it" }
            return item
        }
    }

    private static let filters = [
        "", "+home", "+HOME", "+Home +garden", "+café", "+ho_me", "+100%", "+key", "-home", "due.before:eow", "due.after:today",
        "due:today", "due.by:tomorrow", "due:none", "due:any", "is:overdue", "pri:2+", "pri:1-", "pri:3", "is:done", "is:open",
        "+home due.before:eow", "is:waiting", "home", "+home pri:2+ due.before:nextweek", "due.before:eow due.after:today",
    ]

    @Test func sqlConditionsKeepExactlyWhatTheSwiftFilterKeeps() async throws {
        try await withTemporaryStore { store, _ in
            try await store.addLocalRecords(Self.generated(), at: 1)
            // Records another device saved with fields this build does not know: they keep `extra_fields`.
            try await store.applyZoneChanges(
                .privateTodos,
                records: (0..<12).map { index in
                    serverRecord(
                        "extra-\(index)", title: "Extra \(index)",
                        extra: ["futureField": .string("x"), "tags": .list(.string, [.string(index % 2 == 0 ? "home" : "work")])])
                }, token: nil, moreComing: false)
            let everything = try await store.todos(in: .private, includeTrashed: true).filter { $0.recordType == TodoSchema.todoType }
            #expect(everything.count == 672)
            for text in Self.filters {
                let filter = try parse(text)
                for (openOnly, visible, trashed) in [(false, false, false), (true, true, false), (false, true, true), (true, false, true)] {
                    func keeps(_ item: TodoItem) -> Bool {
                        (trashed || !item.isTrashed) && (!openOnly || !item.isCompleted)
                            && (!visible || !(item.isWaiting(at: now) || item.isExpired(at: now))) && filter.matches(Checked(item: item))
                    }
                    let query = TodoQuery(scope: .private, includeTrashed: trashed, openOnly: openOnly, visibleAt: visible ? now : nil, hints: filter.hints)
                    let read = try await store.todos(matching: query)
                    let expected = Set(everything.filter(keeps).map(\.key))
                    #expect(Set(read.filter(keeps).map(\.key)) == expected, "\(text) open \(openOnly) visible \(visible) trashed \(trashed)")
                    #expect(read.count == Set(read.map(\.key)).count)
                }
            }
            // The conditions run in SQL: rows that cannot match are not read (a tag with characters LIKE does not
            // fold is read and left to the filter, and so is a record with fields in `extra_fields`).
            let home = try await store.todos(matching: TodoQuery(scope: .private, hints: try parse("+home").hints))
                .filter { !$0.key.recordName.hasPrefix("extra-") }
            #expect(!home.isEmpty && !home.contains { $0.tags == ["work"] || $0.tags.isEmpty || $0.tags == ["ho_me"] })
            let dueSoon = try await store.todos(matching: TodoQuery(scope: .private, openOnly: true, hints: try parse("due:today").hints))
            #expect(!dueSoon.isEmpty && !dueSoon.contains { $0.due == nil || $0.isCompleted })
            #expect(dueSoon.count < everything.count / 3)
        }
    }

    @Test func hintsOfTwoFiltersKeepWhatBothKeep() throws {
        let both = try parse("+home pri:2+").hints.merged(with: try parse("due.before:eow pri:3-").hints)
        #expect(both.tags == ["home"])
        #expect(both.priorities == 2...3)
        #expect(both.dueRanges.count == 1)
        #expect(try parse("is:done").hints.completed == true && (try parse("is:open").hints.completed) == false)
        #expect(try parse("home -work").hints == FilterHints())
    }

    @Test func dependencyTodosAreTheOpenOnesNamedAndTheOpenOnesWaiting() async throws {
        try await withTemporaryStore { store, _ in
            var blocked = TodoItem(key: .privateTodo("waits"), title: "waits")
            blocked.depends = ["first", "done", "gone"]
            var done = TodoItem(key: .privateTodo("done"), title: "done")
            done.isCompleted = true
            var finished = TodoItem(key: .privateTodo("finished"), title: "finished, waited")
            finished.depends = ["other"]
            finished.isCompleted = true
            let items = [blocked, TodoItem(key: .privateTodo("first"), title: "first"), done, finished, TodoItem(key: .privateTodo("other"), title: "other")]
            try await store.addLocalRecords(items, at: 1)
            let related = try await store.dependencyTodos(in: .private)
            #expect(related.waiting.map(\.key.recordName) == ["waits"])
            #expect(Set(related.open.map(\.key.recordName)) == ["first", "other"])
        }
    }

    /// In the shared database a todo may name one in another zone (another owner's, or another list of the same
    /// owner): each zone of the scope is looked in, and no other scope.
    @Test func dependencyTodosFindNamesInEveryZoneOfTheScope() async throws {
        try await withTemporaryStore { store, _ in
            func shared(_ owner: String, _ zone: String, _ name: String) -> TodoItem {
                TodoItem(key: RecordKey(scope: .shared, zoneName: zone, zoneOwner: owner, recordName: name), title: name)
            }
            var waits = shared("alice", "Todos", "waits")
            waits.depends = ["in-bob", "in-trips", "private-only", "in-alice"]
            let items = [
                waits, shared("alice", "Todos", "in-alice"), shared("bob", "Todos", "in-bob"), shared("alice", "Trips", "in-trips"),
                shared("carol", "A", "unnamed"), TodoItem(key: .privateTodo("private-only"), title: "private"),
            ]
            try await store.addLocalRecords(items, at: 1)
            let related = try await store.dependencyTodos(in: .shared)
            #expect(related.waiting.map(\.key.recordName) == ["waits"])
            #expect(Set(related.open.map { "\($0.key.zoneOwner)/\($0.key.zoneName)/\($0.key.recordName)" })
                == ["alice/Todos/in-alice", "bob/Todos/in-bob", "alice/Trips/in-trips"])
        }
    }

    /// A tag filter binds its LIKE pattern: SQLite weighed a bound pattern against the indexes by preparing the
    /// statement again at its first step, unless plans are kept whatever is bound.
    @Test func aTagFilterIsPreparedOnce() async throws {
        try await withTemporaryStore { _, url in
            try SQLiteDatabase.allowBlocking {
                let db = try SQLiteDatabase(path: url.path, readOnly: true)
                let (condition, arguments) = TodoQuery(scope: .private, hints: try parse("+home +work").hints).whereClause()
                #expect(condition.contains("LIKE"))
                let statement = try db.statement("SELECT count(*) FROM records WHERE \(condition)")
                try db.run(statement, arguments)
                try db.run(statement, arguments)
                #expect(statement.timesPreparedAgain == 0)
            }
        }
    }

    /// The dependency marks read a few rows by index and key, never every row of a scope: `todo next` over 100,000
    /// todos spent 40 % of its time in two such walks when the planner chose the key over the partial indexes.
    @Test func dependencyReadsSeekAndNeverWalkTheScope() async throws {
        try await withTemporaryStore { _, url in
            try SQLiteDatabase.allowBlocking {
                let db = try SQLiteDatabase(path: url.path, readOnly: true)
                func plan(_ sql: String, _ count: Int) throws -> String { try queryPlan(sql, arguments: count, on: db) }
                #expect(try plan(TodoStore.dependencyRowQueries[0], 2).contains("USING INDEX records_depends (scope=?)"))
                #expect(try plan(TodoStore.dependencyRowQueries[1], 2).contains("USING INDEX records_extra (scope=?)"))
                // The probe that says whether either read is needed: two seeks, one in each partial index.
                let probe = try plan(TodoStore.dependencyProbeSQL, 1)
                #expect(probe.contains("USING COVERING INDEX records_depends (scope=?)") || probe.contains("USING INDEX records_depends (scope=?)"), "\(probe)")
                #expect(probe.contains("USING COVERING INDEX records_extra (scope=?)") || probe.contains("USING INDEX records_extra (scope=?)"), "\(probe)")
                #expect(try plan(TodoStore.openByNameQuery("?5, ?6"), 6)
                    .contains("USING PRIMARY KEY (scope=? AND zone_owner=? AND zone_name=? AND record_name=?)"))
                #expect(try plan(TodoStore.trashedTodosSQL, 3).contains("USING INDEX records_trashed"))
                for (sql, count, key) in TodoStore.zoneSeeks {
                    #expect(try plan(sql, count).contains("USING PRIMARY KEY (\(key))"), "\(sql)")
                }
            }
        }
    }
}
