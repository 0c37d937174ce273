import CloudModel
import Foundation
import SQLiteDB
import TodoPlanning

/// Listing reads: the columns a filter, urgency and an order read, for commands that rank or count many todos and
/// show a few (`todo next` reads 80,000 open todos to print 25, then reads those 25 whole).
extension TodoStore {
    /// The columns of `listingItem(from:caches:)`, in its order.
    static let listingColumns = """
        scope, zone_owner, zone_name, record_name, record_type, title, notes, is_completed, due_date, priority, is_trashed,
        list_ref, parent, extra_fields IS NOT NULL, created_at, tags, all_day, repeat_rule, annotations, wait_at,
        scheduled_at, until_at, start_at, depends
        """

    /// The titles of `scope`'s lists by key (trashed ones too when asked): what a listed todo shows of its list. Four
    /// columns, not a whole record each: the statement alone cost a tenth of the instructions of a `todo list +home`.
    public func listTitles(in scope: DatabaseScope, includeTrashed: Bool) throws -> [RecordKey: String] {
        try read { db in
            var titles: [RecordKey: String] = [:]
            let sql = includeTrashed ? Self.listTitlesSQL : Self.listTitlesSQL + " AND is_trashed = 0"
            _ = try db.query(sql, [.text(scope.rawValue), .text(TodoSchema.listType)]) { row in
                titles[RecordKey(scope: scope, zoneName: row.text(1), zoneOwner: row.text(0), recordName: row.text(2))] = row.text(3)
            }
            return titles
        }
    }

    /// `?2` is the list type: naming `nonTodoTypes` lets the planner read the lists through the partial type index.
    static let listTitlesSQL =
        "SELECT zone_owner, zone_name, record_name, title FROM records WHERE scope = ?1 AND record_type = ?2 AND \(nonTodoTypes)"

    /// The todos `query` may keep as listing items (see `TodoQuery.Fields.listing`), turned into values inside the
    /// read one row at a time, in key order (or creation order when it asks). With a `prefilter`, each row's urgency
    /// inputs are read from its columns first, with its record name on demand, and a row it refuses is never made into
    /// a todo: `todo next` scores 80,000 rows to make a few hundred.
    public func mapTodos<T: Sendable>(
        matching query: TodoQuery, prefilter: (@Sendable (ListingFacts, () -> String) -> Bool)?, _ transform: @Sendable (TodoItem) throws -> T?
    ) throws -> [T] {
        let (condition, arguments) = query.whereClause()
        return try read { db in
            let order = query.creationOrder ? " ORDER BY COALESCE(created_at, local_edited_at), record_name" : ""
            var values: [T] = []
            var caches = RowReadCaches()
            // The file mapped for this read: SQLite reads each page in place instead of copying it out of the kernel's
            // cache (a fifth of `todo next` over 100,000 todos). Unmapped after, so a long-lived process (the app)
            // does not keep the file's pages as its own resident memory.
            try db.execute("PRAGMA mmap_size = \(Self.listingMapSize)")
            defer { try? db.execute("PRAGMA mmap_size = 0") }
            _ = try db.query("SELECT \(Self.listingColumns) FROM records WHERE \(condition)\(order)", arguments) { row in
                let item: TodoItem
                if row.int(13) != 0, let whole = try Self.fetchItem(Self.key(from: row, offset: 0, caches: &caches), in: db, caches: &caches) {
                    // Fields may wait in `extra_fields` (an older build stored it): the whole record says what it holds.
                    if let prefilter, !prefilter(ListingFacts(whole), { whole.key.recordName }) { return }
                    item = whole
                } else {
                    if let prefilter, !prefilter(try Self.listingFacts(from: row, caches: &caches), { row.text(3) }) { return }
                    item = try Self.listingItem(from: row, caches: &caches)
                }
                if let value = try transform(item) { values.append(value) }
            }
            return values
        }
    }

    /// How much of the cache file a listing read maps (1 GB: any cache of this app).
    static let listingMapSize = 1 << 30

    /// `mapTodos(matching:prefilter:_:)` without a prefilter.
    func mapListingTodos<T: Sendable>(matching query: TodoQuery, _ transform: @Sendable (TodoItem) throws -> T?) throws -> [T] {
        try mapTodos(matching: query, prefilter: nil, transform)
    }

    /// The urgency inputs of a row of `listingColumns` whose fields are all in their columns, as its listing item has them.
    static func listingFacts(from row: Row, caches: inout RowReadCaches) throws -> ListingFacts {
        let list = try caches.lists.value(row, 11) { try decodeJSON(Reference.self, $0) }
        let parent = try caches.parents.value(row, 12) { try decodeJSON(ParentReference.self, $0) }
        let allDay = row.int(16) != 0
        let due = row.optionalInt(8).map { milliseconds -> DueDate in
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            return DueDate(allDay ? DueDate.floatingDay(ofStored: date) : date, allDay: allDay)
        }
        return ListingFacts(
            due: due, priority: TodoItem.priorityRange.clamp(row.int(9)), tags: caches.tags.value(row, 15, StringListColumn.decode) ?? [],
            annotationCount: row.isNull(18) ? 0 : StringListColumn.decode(row.text(18)).compactMap(Annotation.init(wire:)).count,
            created: row.optionalInt(14).map { Date(timeIntervalSince1970: Double($0) / 1000) }, inList: (parent?.recordName ?? list?.recordName) != nil,
            start: moment(row, 22), scheduled: moment(row, 20), wait: moment(row, 19), until: moment(row, 21),
            depends: row.optionalText(23).map(StringListColumn.decode) ?? [])
    }

    /// A todo with what listing reads of it, from a row of `listingColumns`: its key, type, title, notes, completion,
    /// due date, priority, trash mark, list, tags, repeat rule, annotations, wait, scheduled, until, start, depends and
    /// when it was created (the stamp's time alone). A row that still keeps fields in `extra_fields` (stored by an
    /// older build) is read whole instead, as `item(from:)` moves them.
    static func listingItem(from row: Row, caches: inout RowReadCaches) throws -> TodoItem {
        let key = key(from: row, offset: 0, caches: &caches)
        var item = TodoItem(key: key, recordType: row.text(4), title: row.text(5))
        item.notes = row.text(6)
        item.isCompleted = row.int(7) != 0
        item.dueDate = row.optionalInt(8).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        item.priority = TodoItem.priorityRange.clamp(row.int(9))
        item.isTrashed = row.int(10) != 0
        item.list = try caches.lists.value(row, 11) { try decodeJSON(Reference.self, $0) }
        item.parent = try caches.parents.value(row, 12) { try decodeJSON(ParentReference.self, $0) }
        item.system.created = row.optionalInt(14).map { RecordStamp(timestamp: $0, userRecordName: "") }
        item.tags = caches.tags.value(row, 15, StringListColumn.decode) ?? []
        item.dueAllDay = row.int(16) != 0
        item.repeatRule = row.optionalText(17)
        item.annotations = row.optionalText(18).map { StringListColumn.decode($0).compactMap(Annotation.init(wire:)) } ?? []
        item.wait = moment(row, 19)
        item.scheduled = moment(row, 20)
        item.until = moment(row, 21)
        item.start = moment(row, 22)
        item.depends = row.optionalText(23).map(StringListColumn.decode) ?? []
        item.readAllDayDue()
        return item
    }
}

/// What urgency reads of a todo (`UrgencyFacts` but for its dependency marks), and whether it is hidden: read from a
/// row's columns before the row is made into a todo (`TodoStore.mapTodos(matching:prefilter:_:)`).
public struct ListingFacts: Sendable {
    public var due: DueDate?
    public var priority: Int
    public var tags: [String]
    public var annotationCount: Int
    public var created: Date?
    public var inList: Bool
    public var start: Date?
    public var scheduled: Date?
    public var wait: Date?
    public var until: Date?
    /// The record names it waits on.
    public var depends: [String]

    /// Whether it waits for a later date at `now`.
    public func isWaiting(at now: Date) -> Bool { wait.map { $0 > now } ?? false }

    /// Whether the usual views leave it out at `now`: waiting, or past its `until`.
    public func isHidden(at now: Date) -> Bool { isWaiting(at: now) || (until.map { $0 <= now } ?? false) }

    /// What urgency is computed from at `now`, with the dependency marks the caller worked out.
    public func urgencyFacts(isBlocking: Bool, isBlocked: Bool, at now: Date) -> UrgencyFacts {
        UrgencyFacts(
            due: due, priority: priority, tags: tags, annotationCount: annotationCount, created: created, inList: inList,
            isActive: start != nil, scheduled: scheduled, isBlocking: isBlocking, isBlocked: isBlocked, isWaiting: isWaiting(at: now))
    }
}

extension ListingFacts {
    /// What urgency reads of `item`.
    public init(_ item: TodoItem) {
        self.init(
            due: item.due, priority: item.priority, tags: item.tags, annotationCount: item.annotations.count,
            created: item.system.created.map { Date(timeIntervalSince1970: Double($0.timestamp) / 1000) }, inList: item.listName != nil,
            start: item.start, scheduled: item.scheduled, wait: item.wait, until: item.until, depends: item.depends)
    }
}
