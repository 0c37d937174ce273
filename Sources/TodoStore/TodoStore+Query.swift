import CloudModel
import Foundation
import SQLiteDB
import TodoPlanning

/// What a command-line read asks of the cache (`todo list`, `next`, `export`): the conditions SQL can decide on the
/// stored columns, so only the rows that may be shown are read and made into todos. Every condition is a necessary
/// one: the caller's filter still decides each row, and rows a build before the planning columns stored (their
/// fields still in `extra_fields`) always come back.
public struct TodoQuery: Sendable {
    /// The database read.
    public var scope: DatabaseScope
    /// Trashed todos too.
    public var includeTrashed = false
    /// Only todos not done.
    public var openOnly = false
    /// Leave out todos waiting at this moment or past their `until` then.
    public var visibleAt: Date?
    /// What the filter says of the columns.
    public var hints = FilterHints()
    /// Oldest first (by creation, then name), as `todos(in:)` gives them; else in key order, unsorted.
    public var creationOrder = false
    /// What `mapTodos(matching:_:)` reads of each todo.
    public var fields = Fields.whole

    /// What a read gives of each todo.
    public enum Fields: Sendable {
        /// The whole record: every field, the system fields, whether an edit of it waits in the outbox.
        case whole
        /// What a filter, urgency and the orders read (`TodoStore.listingItem`): no system fields but the time it
        /// was created, no edit stamps, lost edits, series or pending flag. Such an item is for ranking and counting,
        /// never to be written back or shown as a whole (read the todos shown by key).
        case listing
    }

    /// A read of `scope`'s todos (lists and share records are not todos).
    public init(
        scope: DatabaseScope, includeTrashed: Bool = false, openOnly: Bool = false, visibleAt: Date? = nil, hints: FilterHints = FilterHints(),
        creationOrder: Bool = false, fields: Fields = .whole
    ) {
        self.scope = scope
        self.includeTrashed = includeTrashed
        self.openOnly = openOnly
        self.visibleAt = visibleAt
        self.hints = hints
        self.creationOrder = creationOrder
        self.fields = fields
    }

    /// The WHERE clause and its arguments (`?1` is the scope, `?2` the todo type).
    func whereClause() -> (sql: String, arguments: [SQLValue]) {
        var arguments: [SQLValue] = [.text(scope.rawValue), .text(TodoSchema.todoType)]
        func argument(_ value: SQLValue) -> String {
            arguments.append(value)
            return "?\(arguments.count)"
        }
        // The type is checked on each row (`+`): by its index, every todo would be looked up by key a second time.
        var sure: [String] = ["scope = ?1", "+record_type = ?2"]
        // Conditions on columns planning fields may still be missing from (kept in `extra_fields` by an older build).
        var planned: [String] = []
        if !includeTrashed { sure.append("is_trashed = 0") }
        if openOnly || hints.completed == false {
            sure.append("is_completed = 0")
        } else if hints.completed == true {
            sure.append("is_completed = 1")
        }
        if let visibleAt {
            let now = argument(.int(Int64((visibleAt.timeIntervalSince1970 * 1000).rounded(.down))))
            // Waiting: a wait moment after now; expired: an until moment at or before now (both to the millisecond).
            planned.append("(wait_at IS NULL OR wait_at <= \(now) + 1)")
            planned.append("(until_at IS NULL OR until_at >= \(now))")
        }
        for tag in hints.tags {
            // LIKE folds ASCII only: a stored tag with any other character is read and left to the filter. Such a
            // tag is one whose text is longer in bytes than in characters (stored tags are valid UTF-8): SQLite
            // compares the two lengths in a third of the time a GLOB for a non-ASCII character took on each row.
            // LIKE's own characters escaped scalar by scalar (Foundation's `replacingOccurrences` went through NSString:
            // 0.84 M instructions, 5 % of `todo list +home` over 1,000 todos).
            var pattern = "%"
            for scalar in tag.unicodeScalars {
                if scalar == "\\" || scalar == "%" || scalar == "_" { pattern.unicodeScalars.append("\\") }
                pattern.unicodeScalars.append(scalar)
            }
            pattern += "%"
            planned.append("(tags LIKE \(argument(.text(pattern))) ESCAPE '\\' OR \(Self.hasNonASCIITags))")
        }
        for range in hints.dueRanges {
            switch range {
            case .none: sure.append("due_date IS NULL")
            case .any: sure.append("due_date IS NOT NULL")
            case .between(let low, let high):
                sure.append("due_date IS NOT NULL")
                // Milliseconds, a millisecond wider either way for the rounding of a moment read back as seconds.
                if low.isFinite { sure.append("due_date >= \(argument(.int(Int64((low * 1000).rounded(.down)) - 1)))") }
                if high.isFinite { sure.append("due_date <= \(argument(.int(Int64((high * 1000).rounded(.up)) + 1)))") }
            }
        }
        if hints.priorities != 0...3 {
            // As an item reads it: clamped to 0 … 3.
            sure.append("min(max(priority, 0), 3) BETWEEN \(hints.priorities.lowerBound) AND \(hints.priorities.upperBound)")
        }
        var sql = sure.joinedText(" AND ")
        if !planned.isEmpty { sql += " AND ((\(planned.joinedText(" AND "))) OR extra_fields IS NOT NULL)" }
        return (sql, arguments)
    }

    /// Whether a row's tags hold a character outside ASCII (its bytes outnumber its characters).
    static let hasNonASCIITags = "length(tags) <> length(CAST(tags AS BLOB))"
}

extension TodoStore {
    /// The todos `query` may keep, in key order (no sort) unless it asks for creation order: each row read once, and only the rows that pass its
    /// conditions made into todos.
    public func todos(matching query: TodoQuery) throws -> [TodoItem] {
        let (condition, arguments) = query.whereClause()
        return try read { db in
            var caches = RowReadCaches()
            let order = query.creationOrder ? " ORDER BY COALESCE(created_at, local_edited_at), record_name" : ""
            return try db.query("SELECT \(Self.recordColumns) FROM records WHERE \(condition)\(order)", arguments) { row in
                try Self.item(from: row, caches: &caches)
            }
        }
    }

    /// Turns the todos `query` may keep into values inside the read, one row at a time, in key order (or creation
    /// order when it asks): a caller that needs a line or a score of each row never holds every todo at once. Only
    /// this read heeds `query.fields`; the others read whole todos.
    public func mapTodos<T: Sendable>(matching query: TodoQuery, _ transform: @Sendable (TodoItem) throws -> T?) throws -> [T] {
        if query.fields == .listing { return try mapListingTodos(matching: query, transform) }
        let (condition, arguments) = query.whereClause()
        return try read { db in
            let order = query.creationOrder ? " ORDER BY COALESCE(created_at, local_edited_at), record_name" : ""
            var values: [T] = []
            var caches = RowReadCaches()
            _ = try db.query("SELECT \(Self.recordColumns) FROM records WHERE \(condition)\(order)", arguments) { row in
                if let value = try transform(try Self.item(from: row, caches: &caches)) { values.append(value) }
            }
            return values
        }
    }

    /// `mapTodos(matching:_:)` a chunk at a time, in key order: at most `limit` rows after `after` (nil: from the
    /// start). `last` is the key of the last row read, `isComplete` that no row follows: an export of 100,000 todos
    /// holds one chunk at a time.
    public func mapTodos<T: Sendable>(
        matching query: TodoQuery, after: RecordKey?, limit: Int, _ transform: @Sendable (TodoItem) throws -> T?
    ) throws -> (values: [T], last: RecordKey?, isComplete: Bool) {
        var (condition, arguments) = query.whereClause()
        if let after {
            let first = arguments.count + 1
            condition += " AND (zone_owner, zone_name, record_name) > (?\(first), ?\(first + 1), ?\(first + 2))"
            arguments += [.text(after.zoneOwner), .text(after.zoneName), .text(after.recordName)]
        }
        let sql = "SELECT \(Self.recordColumns) FROM records WHERE \(condition) ORDER BY zone_owner, zone_name, record_name LIMIT \(max(1, limit))"
        return try read { db in
            var values: [T] = []
            var last: RecordKey?
            var count = 0
            var caches = RowReadCaches()
            _ = try db.query(sql, arguments) { row in
                let item = try Self.item(from: row, caches: &caches)
                last = item.key
                count += 1
                if let value = try transform(item) { values.append(value) }
            }
            return (values, last, count < max(1, limit))
        }
    }

    /// What the dependency marks of a scope's todos need: every open, untrashed todo that waits on others (`waiting`),
    /// and every open, untrashed todo that any todo of the scope names as a dependency (`open`), oldest first. A few
    /// rows, found by index (v8): those with dependencies, those whose fields may still wait in `extra_fields`, and the
    /// ones they name, looked up by key in each of the scope's zones.
    public func dependencyTodos(in scope: DatabaseScope) throws -> (waiting: [TodoItem], open: [TodoItem]) {
        try read { db in
            let arguments: [SQLValue] = [.text(scope.rawValue), .text(TodoSchema.todoType)]
            var seen = Set<RecordKey>()
            var waiting: [TodoItem] = []
            var wanted = Set<String>()
            // Whether the scope holds rows of either kind at all, in one small statement: most hold neither, and
            // preparing the two reads of whole records cost more than running them (5 % of a `todo list +home`).
            let present = try db.first(Self.dependencyProbeSQL, [.text(scope.rawValue)]) { [$0.int(0) != 0, $0.int(1) != 0] } ?? [true, true]
            for (index, sql) in Self.dependencyRowQueries.enumerated() where present[index] {
                for item in try db.query(sql, arguments, Self.item(from:)) where !item.depends.isEmpty && seen.insert(item.key).inserted {
                    wanted.formUnion(item.depends)
                    if !item.isCompleted && !item.isTrashed { waiting.append(item) }
                }
            }
            guard !wanted.isEmpty else { return (waiting, []) }
            // By name in each of the scope's zones (a name may be in any of them): a lookup by key each.
            var open: [TodoItem] = []
            for zone in try Self.zones(of: scope, in: db) {
                for chunk in Array(wanted).chunked(500) {
                    let list = (0..<chunk.count).map { "?\($0 + 5)" }.joined(separator: ", ")
                    open += try db.query(
                        Self.openByNameQuery(list), arguments + [.text(zone.owner), .text(zone.name)] + chunk.map(SQLValue.text)
                    ) { try Self.item(from: $0) }
                }
            }
            // The order `todos(in:)` gave, so the first of two same-named records (two shared zones) is the same one.
            open.sort {
                let first = $0.system.created?.timestamp ?? $0.localEditedAt ?? Int64.min
                let second = $1.system.created?.timestamp ?? $1.localEditedAt ?? Int64.min
                return first != second ? first < second : $0.key.recordName < $1.key.recordName
            }
            return (waiting, open)
        }
    }

    /// The rows of a scope (`?1`) and type (`?2`) with dependencies, then those whose fields may wait in
    /// `extra_fields`: each through its partial index (the planner would otherwise walk the whole scope by key).
    static let dependencyRowQueries = [
        "SELECT \(recordColumns) FROM records INDEXED BY records_depends WHERE scope = ?1 AND +record_type = ?2 AND depends IS NOT NULL",
        "SELECT \(recordColumns) FROM records INDEXED BY records_extra WHERE scope = ?1 AND +record_type = ?2 AND extra_fields IS NOT NULL",
    ]

    /// Whether scope `?1` has a row with dependencies, and one whose fields may wait in `extra_fields`: a seek in
    /// each partial index of `dependencyRowQueries`.
    static let dependencyProbeSQL = """
        SELECT EXISTS (SELECT 1 FROM records INDEXED BY records_depends WHERE scope = ?1 AND depends IS NOT NULL),
            EXISTS (SELECT 1 FROM records INDEXED BY records_extra WHERE scope = ?1 AND extra_fields IS NOT NULL)
        """

    /// The zones of `scope` that hold records, each found by one seek in the key past the last (a loose scan), not
    /// by reading every row: the next zone name of the same owner, else the first zone of the next owner.
    static func zones(of scope: DatabaseScope, in db: SQLiteDatabase) throws -> [(owner: String, name: String)] {
        var zones: [(owner: String, name: String)] = []
        let zone: (Row) -> (owner: String, name: String) = { ($0.text(0), $0.text(1)) }
        var next = try db.first(zoneSeeks[0].sql, [.text(scope.rawValue)], zone)
        while let current = next {
            zones.append(current)
            let arguments: [SQLValue] = [.text(scope.rawValue), .text(current.owner), .text(current.name)]
            next = try db.first(zoneSeeks[1].sql, arguments, zone)
            if next == nil { next = try db.first(zoneSeeks[2].sql, Array(arguments.prefix(2)), zone) }
        }
        return zones
    }

    /// The seeks of `zones(of:in:)`: the first zone of scope `?1`, the next zone of owner `?2` after `?3`, the first
    /// zone of the owner after `?2`; each with its parameter count and the key range it seeks (for the plan tests).
    static let zoneSeeks: [(sql: String, parameters: Int, key: String)] = [
        ("SELECT zone_owner, zone_name FROM records WHERE scope = ?1 ORDER BY zone_owner, zone_name LIMIT 1", 1, "scope=?"),
        (
            "SELECT zone_owner, zone_name FROM records WHERE scope = ?1 AND zone_owner = ?2 AND zone_name > ?3 ORDER BY zone_name LIMIT 1", 3,
            "scope=? AND zone_owner=? AND zone_name>?"
        ),
        (
            "SELECT zone_owner, zone_name FROM records WHERE scope = ?1 AND zone_owner > ?2 ORDER BY zone_owner, zone_name LIMIT 1", 2,
            "scope=? AND zone_owner>?"
        ),
    ]

    /// The open, untrashed todos of scope `?1`, type `?2`, zone `?3`/`?4` named in `list` (parameters from `?5`).
    static func openByNameQuery(_ list: String) -> String {
        "SELECT \(recordColumns) FROM records WHERE scope = ?1 AND zone_owner = ?3 AND zone_name = ?4 AND record_name IN (\(list)) "
            + "AND +record_type = ?2 AND is_completed = 0 AND is_trashed = 0"
    }
}

extension Array {
    /// The elements in runs of at most `size`.
    fileprivate func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
