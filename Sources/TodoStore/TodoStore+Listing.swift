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

    /// The todos `query` may keep as listing items (see `TodoQuery.Fields.listing`), turned into values inside the
    /// read one row at a time, in key order (or creation order when it asks).
    func mapListingTodos<T: Sendable>(matching query: TodoQuery, _ transform: @Sendable (TodoItem) throws -> T?) throws -> [T] {
        let (condition, arguments) = query.whereClause()
        return try read { db in
            let order = query.creationOrder ? " ORDER BY COALESCE(created_at, local_edited_at), record_name" : ""
            var values: [T] = []
            var caches = RowReadCaches()
            _ = try db.query("SELECT \(Self.listingColumns) FROM records WHERE \(condition)\(order)", arguments) { row in
                if let value = try transform(try Self.listingItem(from: row, in: db, caches: &caches)) { values.append(value) }
            }
            return values
        }
    }

    /// A todo with what listing reads of it, from a row of `listingColumns`: its key, type, title, notes, completion,
    /// due date, priority, trash mark, list, tags, repeat rule, annotations, wait, scheduled, until, start, depends and
    /// when it was created (the stamp's time alone). A row that still keeps fields in `extra_fields` (stored by an
    /// older build) is read whole, as `item(from:)` moves them.
    static func listingItem(from row: Row, in db: SQLiteDatabase, caches: inout RowReadCaches) throws -> TodoItem {
        let key = key(from: row, offset: 0, caches: &caches)
        if row.int(13) != 0, let whole = try fetchItem(key, in: db, caches: &caches) { return whole }
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
        item.wait = row.optionalInt(19).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        item.scheduled = row.optionalInt(20).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        item.until = row.optionalInt(21).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        item.start = row.optionalInt(22).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        item.depends = row.optionalText(23).map(StringListColumn.decode) ?? []
        item.readAllDayDue()
        return item
    }
}
