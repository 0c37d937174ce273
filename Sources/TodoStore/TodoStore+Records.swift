import CloudModel
import Foundation
import SQLiteDB
import TodoPlanning

/// Row mapping of the `records` table.
extension TodoStore {
    static let recordColumns = plainRecordColumns(prefix: "") + """
        ,
        EXISTS (SELECT 1 FROM outbox o WHERE o.scope = records.scope AND o.zone_owner = records.zone_owner
                AND o.zone_name = records.zone_name AND o.record_name = records.record_name)
        """

    /// How many columns `plainRecordColumns` names (the pending-edit flag of `recordColumns` follows them).
    static let plainColumnCount: Int32 = 37

    /// The stored columns of a record, in `item(from:offset:)` order, without the pending-edit flag.
    static func plainRecordColumns(prefix p: String) -> String {
        """
        \(p)scope, \(p)zone_owner, \(p)zone_name, \(p)record_name, \(p)record_type, \(p)title, \(p)notes, \(p)is_completed,
        \(p)due_date, \(p)priority, \(p)is_trashed, \(p)list_ref, \(p)parent, \(p)extra_fields, \(p)change_tag, \(p)created_at,
        \(p)created_user, \(p)created_device, \(p)modified_at, \(p)modified_user, \(p)modified_device, \(p)local_edited_at,
        \(p)share_permission, \(p)edit_stamps, \(p)lost_edits, \(p)tags, \(p)all_day, \(p)repeat_rule,
        \(p)repeat_from_completion, \(p)series, \(p)occurrence, \(p)annotations, \(p)wait_at, \(p)scheduled_at, \(p)until_at,
        \(p)start_at, \(p)depends
        """
    }

    static let upsertSQL = insertSQL(rows: 1) + "\n" + upsertClause

    /// How many values `rowArguments` gives a record (the upsert's parameters per row): one per stored column.
    static let upsertParameters = Int(plainColumnCount)

    /// The insert of `rows` records new to the cache (a name it has already fails the statement), record `i`'s
    /// values bound from `?(37 i + 1)` on. `OR FAIL` spares the statement a journal (an `ABORT` of a statement of many rows would have to
    /// take back the rows before; SQLite keeps that journal in a temporary file, written for every statement): a
    /// failure fails the caller's whole transaction anyway.
    static func insertNewSQL(rows: Int) -> String {
        insertSQL(rows: rows, conflict: "OR FAIL ")
    }

    private static func insertSQL(rows: Int, conflict: String = "") -> String {
        let values = (0..<rows).map { row in
            "(" + (1...upsertParameters).map { "?\(upsertParameters * row + $0)" }.joined(separator: ", ") + ", 0)"
        }
        return """
        INSERT \(conflict)INTO records (\(plainRecordColumns(prefix: "")), stale)
        VALUES \(values.joined(separator: ",\n    "))
        """
    }

    private static let upsertClause = """
        ON CONFLICT (scope, zone_owner, zone_name, record_name) DO UPDATE SET
            record_type = excluded.record_type, title = excluded.title, notes = excluded.notes,
            is_completed = excluded.is_completed, due_date = excluded.due_date, priority = excluded.priority,
            is_trashed = excluded.is_trashed, list_ref = excluded.list_ref, parent = excluded.parent,
            extra_fields = excluded.extra_fields, change_tag = excluded.change_tag, created_at = excluded.created_at,
            created_user = excluded.created_user, created_device = excluded.created_device,
            modified_at = excluded.modified_at, modified_user = excluded.modified_user,
            modified_device = excluded.modified_device, local_edited_at = excluded.local_edited_at,
            share_permission = COALESCE(excluded.share_permission, records.share_permission),
            edit_stamps = excluded.edit_stamps, lost_edits = excluded.lost_edits, tags = excluded.tags,
            all_day = excluded.all_day, repeat_rule = excluded.repeat_rule,
            repeat_from_completion = excluded.repeat_from_completion, series = excluded.series,
            occurrence = excluded.occurrence, annotations = excluded.annotations, wait_at = excluded.wait_at,
            scheduled_at = excluded.scheduled_at, until_at = excluded.until_at, start_at = excluded.start_at,
            depends = excluded.depends, stale = 0
        """

    static let keyWhere = "scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 AND record_name = ?4"

    static func keyArguments(_ key: RecordKey) -> [SQLValue] {
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(4)
        appendKeyArguments(key, to: &arguments)
        return arguments
    }

    /// `keyArguments`, appended to `arguments`.
    static func appendKeyArguments(_ key: RecordKey, to arguments: inout [SQLValue]) {
        arguments.append(.text(key.scope.rawValue))
        arguments.append(.text(key.zoneOwner))
        arguments.append(.text(key.zoneName))
        arguments.append(.text(key.recordName))
    }

    static func zoneArguments(_ zone: ZoneKey) -> [SQLValue] {
        [.text(zone.scope.rawValue), .text(zone.zoneOwner), .text(zone.zoneName)]
    }

    static func upsert(_ item: TodoItem, in db: SQLiteDatabase) throws {
        try db.run(upsertSQL, try rowArguments(item))
    }

    /// `localEditedAt`, when given, stands for the item's own (a local edit's time, set without copying the item).
    static func rowArguments(_ item: TodoItem, localEditedAt: Int64? = nil) throws -> [SQLValue] {
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(Int(plainColumnCount))
        try appendRowArguments(item, localEditedAt: localEditedAt, to: &arguments)
        return arguments
    }

    /// `rowArguments`, appended to `arguments` (a statement of many rows gathers them in one list, not row by row).
    static func appendRowArguments(_ item: TodoItem, localEditedAt: Int64? = nil, to arguments: inout [SQLValue]) throws {
        appendKeyArguments(item.key, to: &arguments)
        arguments.append(.text(item.recordType))
        arguments.append(.text(item.title))
        arguments.append(.text(item.notes))
        arguments.append(.int(item.isCompleted ? 1 : 0))
        arguments.append(item.dueDate.map { .int(FieldValue.milliseconds($0)) } ?? .null)
        arguments.append(.int(Int64(item.priority)))
        arguments.append(.int(item.isTrashed ? 1 : 0))
        arguments.append(try json(item.list))
        arguments.append(try json(item.parent))
        arguments.append(item.extraFields.isEmpty ? .null : try json(item.extraFields))
        arguments.append(item.system.changeTag.map(SQLValue.text) ?? .null)
        appendStamp(item.system.created, to: &arguments)
        appendStamp(item.system.modified, to: &arguments)
        arguments.append((localEditedAt ?? item.localEditedAt).map(SQLValue.int) ?? .null)
        arguments.append(item.sharePermission.map { .text($0.rawValue) } ?? .null)
        arguments.append(item.editStamps.map(SQLValue.text) ?? .null)
        arguments.append(item.lostEdits.map(SQLValue.text) ?? .null)
        arguments.append(item.tags.isEmpty ? .null : .text(StringListColumn.encode(item.tags)))
        arguments.append(.int(item.dueAllDay ? 1 : 0))
        arguments.append(item.repeatRule.map(SQLValue.text) ?? .null)
        arguments.append(.int(item.repeatFromCompletion ? 1 : 0))
        arguments.append(item.series.map(SQLValue.text) ?? .null)
        arguments.append(.int(Int64(item.occurrence)))
        arguments.append(item.annotations.isEmpty ? .null : .text(StringListColumn.encode(item.annotations.map(\.wire))))
        func appendMoment(_ moment: Date?) { arguments.append(moment.map { .int(FieldValue.milliseconds($0)) } ?? .null) }
        appendMoment(item.wait)
        appendMoment(item.scheduled)
        appendMoment(item.until)
        appendMoment(item.start)
        arguments.append(item.depends.isEmpty ? .null : .text(StringListColumn.encode(item.depends)))
    }

    static func appendStamp(_ stamp: RecordStamp?, to arguments: inout [SQLValue]) {
        if let stamp {
            arguments.append(.int(stamp.timestamp))
            arguments.append(.text(stamp.userRecordName))
            arguments.append(stamp.deviceID.map(SQLValue.text) ?? .null)
        } else {
            arguments.append(.null)
            arguments.append(.null)
            arguments.append(.null)
        }
    }

    static func item(from row: Row) throws -> TodoItem {
        var once = RowReadCaches.none
        return try item(from: row, caches: &once)
    }

    /// `item(from:)` in a read of many rows: what rows repeat (references, tag lists, names) is made once.
    static func item(from row: Row, caches: inout RowReadCaches) throws -> TodoItem {
        try TodoItem(row: row, offset: 0, key: key(from: row, offset: 0, caches: &caches), pending: row.int(plainColumnCount) != 0, caches: &caches)
    }

    /// The record whose columns start at `o` (in `plainRecordColumns` order); `known`, when given, is its key as
    /// read already from another table's columns of the row (its four columns are then not read again).
    static func item(from row: Row, offset o: Int32, key known: RecordKey? = nil) throws -> TodoItem {
        var once = RowReadCaches.none
        return try item(from: row, offset: o, key: known, caches: &once)
    }

    /// `item(from:offset:key:)` in a read of many rows (see `RowReadCaches`).
    static func item(from row: Row, offset o: Int32, key known: RecordKey? = nil, caches: inout RowReadCaches) throws -> TodoItem {
        try TodoItem(row: row, offset: o, key: known ?? key(from: row, offset: o, caches: &caches), pending: false, caches: &caches)
    }

    /// The key in the four columns from `o`; the zone's owner and name, which every row of a zone repeats, made once.
    static func key(from row: Row, offset o: Int32, caches: inout RowReadCaches) -> RecordKey {
        RecordKey(
            scope: row.withText(o, scope) ?? .private, zoneName: caches.names.value(row, o + 2, Self.string) ?? "",
            zoneOwner: caches.names.value(row, o + 1, Self.string) ?? "", recordName: row.text(o + 3))
    }

    /// The scope a column's bytes name, compared as bytes (no string is made for each row's scope); nil for any
    /// other text.
    static func scope(_ bytes: UnsafeBufferPointer<UInt8>) -> DatabaseScope? {
        if bytes.elementsEqual(DatabaseScope.private.rawValue.utf8) { return .private }
        if bytes.elementsEqual(DatabaseScope.shared.rawValue.utf8) { return .shared }
        if bytes.elementsEqual(DatabaseScope.public.rawValue.utf8) { return .public }
        return nil
    }

    /// The text of a column's bytes.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A moment column (ms since 1970), nil when empty.
    static func moment(_ row: Row, _ column: Int32) -> Date? {
        row.optionalInt(column).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    static func stamp(_ row: Row, _ column: Int32, _ caches: inout RowReadCaches) -> RecordStamp? {
        guard let timestamp = row.optionalInt(column) else { return nil }
        return RecordStamp(
            timestamp: timestamp, userRecordName: caches.names.value(row, column + 1, Self.string) ?? "",
            deviceID: caches.names.value(row, column + 2, Self.string))
    }

    static func json<T: Encodable>(_ value: T?) throws -> SQLValue {
        guard let value else { return .null }
        return .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try decodeJSON(type, Data(text.utf8))
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, _ bytes: UnsafeBufferPointer<UInt8>) throws -> T {
        try decodeJSON(type, Data(buffer: bytes))
    }

    private static func decodeJSON<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw StoreError.database("unreadable \(T.self) in the cache: \(error)")
        }
    }

    static func fetchItem(_ key: RecordKey, in db: SQLiteDatabase) throws -> TodoItem? {
        try db.first(fetchItemSQL, keyArguments(key)) { try item(from: $0) }
    }

    static func fetchItem(_ key: RecordKey, in db: SQLiteDatabase, caches: inout RowReadCaches) throws -> TodoItem? {
        try db.first(fetchItemSQL, keyArguments(key)) { try item(from: $0, caches: &caches) }
    }

    static let fetchItemSQL = "SELECT \(recordColumns) FROM records WHERE \(keyWhere)"

    // MARK: Reading

    /// One record by key, nil when the device does not have it.
    public func todo(_ key: RecordKey) throws -> TodoItem? {
        counters.recordsRead([key])
        return try read { db in try Self.fetchItem(key, in: db) }
    }

    /// The records of a scope (all scopes when nil), oldest first; trashed ones only when asked.
    public func todos(in scope: DatabaseScope? = nil, includeTrashed: Bool = false) throws -> [TodoItem] {
        try read { db in
            var sql = "SELECT \(Self.recordColumns) FROM records WHERE 1 = 1"
            var arguments: [SQLValue] = []
            if let scope {
                sql += " AND scope = ?1"
                arguments.append(.text(scope.rawValue))
            }
            if !includeTrashed { sql += " AND is_trashed = 0" }
            sql += " ORDER BY COALESCE(created_at, local_edited_at), record_name"
            // Memory of large reads: exact capacity (no doubling copies) and one copy of the user and device names
            // every row repeats.
            let countSQL = "SELECT count(*) FROM records WHERE 1 = 1" + (scope == nil ? "" : " AND scope = ?1")
                + (includeTrashed ? "" : " AND is_trashed = 0")
            var items: [TodoItem] = []
            items.reserveCapacity(Int(try db.first(countSQL, arguments) { $0.int(0) } ?? 0))
            var caches = RowReadCaches()
            _ = try db.query(sql, arguments) { row in items.append(try Self.item(from: row, caches: &caches)) }
            return items
        }
    }

    /// Turns the visible (untrashed) records of a scope into values one at a time, in key order, starting after
    /// `after` (nil: at the start) and stopping after `limit` records: a reader that keeps its own rows reads them
    /// in chunks, and a copy of every record never exists at once. `last` is the key of the last record read (its
    /// value may be nil); `isComplete` says no record follows.
    public func mapTodos<T: Sendable>(
        in scope: DatabaseScope, after: RecordKey? = nil, limit: Int = .max, _ transform: @Sendable (TodoItem) -> T?
    ) throws -> (values: [T], last: RecordKey?, isComplete: Bool) {
        try read { db in
            var arguments: [SQLValue] = [.text(scope.rawValue)]
            var sql = "SELECT \(Self.recordColumns) FROM records WHERE scope = ?1 AND is_trashed = 0"
            if let after {
                sql += " AND (zone_owner, zone_name, record_name) > (?2, ?3, ?4)"
                arguments += [.text(after.zoneOwner), .text(after.zoneName), .text(after.recordName)]
            }
            // The primary key's order: no sort, and the next chunk starts where this one ended.
            sql += " ORDER BY zone_owner, zone_name, record_name LIMIT \(max(0, min(limit, Int(Int32.max))))"
            let total = Int(try db.first("SELECT count(*) FROM records WHERE scope = ?1 AND is_trashed = 0", [.text(scope.rawValue)]) { $0.int(0) } ?? 0)
            var values: [T] = []
            values.reserveCapacity(min(limit, total))
            var last: RecordKey?
            var read = 0
            var caches = RowReadCaches()
            _ = try db.query(sql, arguments) { row in
                let item = try Self.item(from: row, caches: &caches)
                last = item.key
                read += 1
                if let value = transform(item) { values.append(value) }
            }
            return (values, last, read < limit)
        }
    }

    /// Turns the records of `keys` into values in one read; keys the device does not hold, or whose value is nil,
    /// come back as `absent`.
    public func mapTodos<T: Sendable>(
        keys: [RecordKey], _ transform: @Sendable (TodoItem) -> T?
    ) throws -> (values: [T], absent: [RecordKey]) {
        counters.recordsRead(keys)
        return try read { db in
            var values: [T] = []
            var absent: [RecordKey] = []
            var caches = RowReadCaches()
            for key in keys {
                if let item = try Self.fetchItem(key, in: db, caches: &caches), let value = transform(item) {
                    values.append(value)
                } else {
                    absent.append(key)
                }
            }
            return (values, absent)
        }
    }

    /// The records of one zone, trashed included.
    public func todos(inZone zone: ZoneKey) throws -> [TodoItem] {
        try read { db in
            try db.query(
                "SELECT \(Self.recordColumns) FROM records WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 ORDER BY record_name",
                Self.zoneArguments(zone)
            ) { try Self.item(from: $0) }
        }
    }

    /// The records of one type (all zones, or one), trashed included: lists and shares without reading every todo
    /// (through the partial `records_type` index; todos themselves, were they asked for, by reading the table).
    public func records(ofType recordType: String, inZone zone: ZoneKey? = nil) throws -> [TodoItem] {
        let indexed = recordType == TodoSchema.todoType ? "" : " AND \(Self.nonTodoTypes)"
        return try read { db in
            guard let zone else {
                return try db.query(
                    "SELECT \(Self.recordColumns) FROM records WHERE record_type = ?1\(indexed) ORDER BY scope, record_name",
                    [.text(recordType)]
                ) { try Self.item(from: $0) }
            }
            return try db.query(
                """
                SELECT \(Self.recordColumns) FROM records
                WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 AND record_type = ?4\(indexed) ORDER BY record_name
                """, Self.zoneArguments(zone) + [.text(recordType)]
            ) { try Self.item(from: $0) }
        }
    }

    /// How many records the device holds (trashed included).
    public func recordCount(in scope: DatabaseScope? = nil) throws -> Int {
        try read { db in
            if let scope {
                return Int(try db.first("SELECT count(*) FROM records WHERE scope = ?1", [.text(scope.rawValue)]) { $0.int(0) } ?? 0)
            }
            return Int(try db.first("SELECT count(*) FROM records") { $0.int(0) } ?? 0)
        }
    }

    /// How many records are shown as rows (untrashed, share records aside), in every scope.
    public func visibleRecordCount() throws -> Int {
        try read { db in
            Int(
                try db.first("SELECT count(*) FROM records WHERE is_trashed = 0 AND record_type != ?1", [.text(ShareSchema.recordType)]) {
                    $0.int(0)
                } ?? 0)
        }
    }

    /// The todos an ID given on the command line names, by `RecordNames.matching`'s rule, in SQL: the one whose short
    /// ID or whole name is exactly `id`, else those whose short ID (up to 8 characters given) or whole name (more
    /// given) starts with it. Lists and shares are never named; at most `limit` are returned, in name order.
    public func todos(matchingID id: String, limit: Int = 11) throws -> [TodoItem] {
        let id = id.lowercased()
        guard RecordNames.isNameable(id) else { return [] }
        let exactly = "(record_name = ?1 OR substr(record_name, -8) = ?1)"
        let starting = id.count <= RecordNames.shortIDLength ? "substr(record_name, -8, length(?1)) = ?1" : "substr(record_name, 1, length(?1)) = ?1"
        for part in [exactly, starting] {
            let matches = try read { db in
                try db.query(
                    "SELECT \(Self.recordColumns) FROM records WHERE record_type = ?2 AND \(part) ORDER BY record_name LIMIT ?3",
                    [.text(id), .text(TodoSchema.todoType), .int(Int64(max(1, limit)))]
                ) { try Self.item(from: $0) }
            }
            if !matches.isEmpty { return matches }
        }
        return []
    }
}

extension TodoItem {
    /// The record whose columns start at `o` (in `plainRecordColumns` order), with its key read already.
    ///
    /// Each property is set here: the item built with the short initializer and then filled in was copied whole
    /// twice a row (512 bytes and 25 references each, with their releases), now once (2.4 % of an export).
    init(row: Row, offset o: Int32, key: RecordKey, pending: Bool, caches: inout RowReadCaches) throws {
        self.key = key
        recordType = row.text(o + 4)
        title = row.text(o + 5)
        notes = row.text(o + 6)
        isCompleted = row.int(o + 7) != 0
        // Read as `readAllDayDue` reads it, here: calling the mutating method copied the item.
        let allDay = row.int(o + 26) != 0
        dueDate = TodoItem.readDue(TodoStore.moment(row, o + 8), allDay: allDay)
        dueAllDay = allDay
        priority = TodoItem.priorityRange.clamp(row.int(o + 9))
        isTrashed = row.int(o + 10) != 0
        list = try caches.lists.value(row, o + 11) { try TodoStore.decodeJSON(Reference.self, $0) }
        parent = try caches.parents.value(row, o + 12) { try TodoStore.decodeJSON(ParentReference.self, $0) }
        extraFields = try row.optionalText(o + 13).map { try TodoStore.decodeJSON([String: FieldValue].self, $0) } ?? [:]
        system = SystemFields(
            changeTag: row.optionalText(o + 14), created: TodoStore.stamp(row, o + 15, &caches), modified: TodoStore.stamp(row, o + 18, &caches))
        localEditedAt = row.optionalInt(o + 21)
        sharePermission = row.optionalText(o + 22).flatMap(SharePermission.init(rawValue:))
        hasPendingChanges = pending
        editStamps = row.optionalText(o + 23)
        lostEdits = row.optionalText(o + 24)
        tags = caches.tags.value(row, o + 25, StringListColumn.decode) ?? []
        repeatRule = row.optionalText(o + 27)
        repeatFromCompletion = row.int(o + 28) != 0
        series = row.optionalText(o + 29)
        occurrence = TodoItem.occurrenceRange.clamp(row.int(o + 30))
        annotations = row.optionalText(o + 31).map { StringListColumn.decode($0).compactMap(Annotation.init(wire:)) } ?? []
        wait = TodoStore.moment(row, o + 32)
        scheduled = TodoStore.moment(row, o + 33)
        until = TodoStore.moment(row, o + 34)
        start = TodoStore.moment(row, o + 35)
        depends = row.optionalText(o + 36).map(StringListColumn.decode) ?? []
        // Stored by a build that did not know these fields: they wait in the extra fields.
        if !extraFields.isEmpty, !TodoItem.Field.all.isDisjoint(with: extraFields.keys) {
            apply(fields: fields.merging(extraFields) { _, waiting in waiting })
        }
    }
}
