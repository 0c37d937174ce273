import CloudModel
import Foundation
import SQLiteDB

/// One coalesced local change waiting to be sent.
public struct PendingChange: Sendable, Hashable {
    /// What to send.
    public enum Action: Sendable, Hashable {
        /// Save the record as the device has it now.
        case save(TodoItem)
        /// Delete the record, whose last known server version had this change tag.
        case delete(recordType: String, changeTag: ChangeTag?)
    }

    public var key: RecordKey
    public var action: Action
    /// The fields of the server version the first pending edit started from; nil for a record new to the server.
    public var baseFields: [String: FieldValue]?
    /// Bumped by every local edit; a confirmation only clears the entry if no edit came in between.
    public var revision: Int64
    /// Set when the cloud refused the change for good; not resent automatically.
    public var failedReason: String?
    /// Its place in the queue (later edits of the record keep it); 0 for a change not read from the store.
    public var sequence: Int64

    /// A pending change.
    public init(
        key: RecordKey, action: Action, baseFields: [String: FieldValue]?, revision: Int64, failedReason: String? = nil,
        sequence: Int64 = 0
    ) {
        self.key = key
        self.action = action
        self.baseFields = baseFields
        self.revision = revision
        self.failedReason = failedReason
        self.sequence = sequence
    }

    /// Whether this is a delete.
    public var isDelete: Bool { if case .delete = action { true } else { false } }
}

/// What the cloud answered for one sent change.
public struct SentChange: Sendable, Hashable {
    /// The outcome of one operation.
    public enum Result: Sendable, Hashable {
        /// Saved; the record as the server answered it. Only its system fields (change tag, created, modified) are
        /// adopted: the fields the server stored are the ones sent, so the answer need not echo them.
        case saved(Record)
        /// Deleted (or already gone).
        case deleted
    }

    public var key: RecordKey
    /// The outbox revision that was sent.
    public var revision: Int64
    public var result: Result
    /// The outbox entry's queue position (`PendingChange.sequence`); 0 when not known, and the entry is found by key.
    public var sequence: Int64
    /// The record as it was sent: what the server now holds, the merge base of an edit made while it was in flight.
    /// Read only in that rare case, so it is kept where it lies (the sent batch, shared) rather than copied.
    public var sent: TodoItem? {
        guard let batch else { return sentItem }
        if case .save(let item) = batch.changes[batch.index].action { return item }
        return nil
    }
    /// The sent batch and the change's place in it (nil: made from parts, `sentItem` then holds what was sent).
    private let batch: (changes: [PendingChange], index: Int)?
    private let sentItem: TodoItem?

    /// A confirmation of a sent change.
    public init(key: RecordKey, revision: Int64, result: Result, sequence: Int64 = 0, sent: TodoItem? = nil) {
        self.key = key
        self.revision = revision
        self.result = result
        self.sequence = sequence
        batch = nil
        sentItem = sent
    }

    /// The confirmation of `change` (as read from the outbox and sent) with the cloud's answer.
    public init(_ change: PendingChange, result: Result) {
        self.init([change], at: 0, result: result)
    }

    /// The confirmation of the change at `index` of `changes` with the cloud's answer, read where it lies: copying the
    /// change, or the todo it carries, retained and released each of its strings (and copied 600 bytes) a record sent.
    public init(_ changes: [PendingChange], at index: Int, result: Result) {
        key = changes[index].key
        revision = changes[index].revision
        self.result = result
        sequence = changes[index].sequence
        batch = (changes, index)
        sentItem = nil
    }

    /// Equal when they confirm the same change alike, the record sent included (however it is kept).
    public static func == (lhs: SentChange, rhs: SentChange) -> Bool {
        lhs.key == rhs.key && lhs.revision == rhs.revision && lhs.result == rhs.result && lhs.sequence == rhs.sequence && lhs.sent == rhs.sent
    }

    /// Hashes what `==` compares, the record sent aside (equal changes hash alike without it).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(revision)
        hasher.combine(result)
        hasher.combine(sequence)
    }
}

/// How a conflict resolution decides fields: given base, local and server fields, the fields to keep.
public typealias FieldMerge = @Sendable (
    _ base: [String: FieldValue]?, _ local: TodoItem, _ server: Record
) -> [String: FieldValue]

extension TodoStore {
    // MARK: Local edits (record and outbox in one transaction)

    /// Saves a local edit (or creation) and queues it, in one transaction; the first pending edit fixes the merge base.
    @discardableResult
    public func saveLocalEdit(_ item: TodoItem, at now: Int64) throws -> TodoItem {
        try write { db in try Self.saveLocalEdit(item, at: now, db: db) }
    }

    static func saveLocalEdit(_ item: TodoItem, at now: Int64, db: SQLiteDatabase) throws -> TodoItem {
        let existing = try Self.fetchItem(item.key, in: db)
        var saved = item
        saved.system = existing?.system ?? item.system
        saved.sharePermission = existing?.sharePermission ?? item.sharePermission
        saved.localEditedAt = now
        saved.hasPendingChanges = true
        try Self.upsert(saved, in: db)
        try Self.recordHistory(old: existing, new: saved, at: now, device: nil, fromCloud: false, db: db)
        let base: SQLValue = try existing.flatMap { $0.system.isUploaded ? try Self.json($0.fields) : nil } ?? .null
        try db.run(
            """
            INSERT INTO outbox (scope, zone_owner, zone_name, record_name, action, record_type, change_tag, base_fields, enqueued_at)
            VALUES (?1, ?2, ?3, ?4, 'save', ?5, NULL, ?6, ?7)
            ON CONFLICT (scope, zone_owner, zone_name, record_name) DO UPDATE SET
                action = 'save', record_type = excluded.record_type, revision = outbox.revision + 1, failed_reason = NULL
            """, Self.keyArguments(item.key) + [.text(item.recordType), base, .int(now)])
        return saved
    }

    /// Saves many local edits (an import) and queues them, all in one transaction.
    public func saveLocalEdits(_ items: [TodoItem], at now: Int64) throws {
        try write { db in
            for item in items { _ = try Self.saveLocalEdit(item, at: now, db: db) }
        }
    }

    /// Adds records new to this device (an import) and queues a save of each, all in ONE transaction: every record
    /// or none. `progress` hears, from inside the transaction, how many are written (every `progressEvery`).
    ///
    /// The bulk form of `saveLocalEdit` for records no copy of which exists yet (fresh names): no record is read
    /// first, no merge base is kept (the cloud has none), and the two statements are prepared once for the batch.
    /// A name the cache has already (or one given twice) fails the whole write, as a second outbox entry would.
    /// `replacing` are edits of records the device holds (an import of names it has), saved in the same transaction.
    /// Answers the queue position of each of `items`' entries, in order.
    @discardableResult
    public func addLocalRecords(
        _ items: [TodoItem], replacing: [TodoItem] = [], at now: Int64, progressEvery: Int = 1_000,
        progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> [Int64] {
        guard !items.isEmpty || !replacing.isEmpty else { return [] }
        return try write { db in
            for item in replacing { _ = try Self.saveLocalEdit(item, at: now, db: db) }
            let every = max(1, progressEvery)
            let bulk = Self.bulkStatements(writing: items.count)
            let bulkRows = bulk.rows
            var recordArguments: [SQLValue] = []
            recordArguments.reserveCapacity(Self.upsertParameters * bulkRows)
            var queueArguments: [SQLValue] = []
            queueArguments.reserveCapacity(6 * bulkRows)
            var sequences: [Int64] = []
            sequences.reserveCapacity(items.count)
            // `bulkRows` records, and their entries, a statement. By index, each item read where it lies: a copy of
            // each (and one more to set its edit time) was two copies of 512 bytes and their releases a todo.
            var start = items.startIndex
            var reported = 0
            // The full statements looked up once: the cache finds a statement by its text, 4 KB to hash each time.
            let full = items.count >= bulkRows ? (try db.statement(bulk.insert), try db.statement(bulk.queue)) : nil
            while start < items.endIndex {
                let end = min(start + bulkRows, items.endIndex)
                let rows = end - start
                let (saveRecords, queueSaves) =
                    if let full, rows == bulkRows { full } else {
                        (try db.statement(Self.insertNewSQL(rows: rows)), try db.statement(Self.queueNewRecordsSQL(rows: rows)))
                    }
                recordArguments.removeAll(keepingCapacity: true)
                queueArguments.removeAll(keepingCapacity: true)
                for index in start..<end {
                    try Self.appendRowArguments(items[index], localEditedAt: now, to: &recordArguments)
                    Self.appendKeyArguments(items[index].key, to: &queueArguments)
                    queueArguments.append(.text(items[index].recordType))
                    queueArguments.append(.int(now))
                }
                try db.run(saveRecords, recordArguments)
                try db.run(queueSaves, queueArguments)
                // The entries took consecutive positions (AUTOINCREMENT gives each new row one past the largest ever,
                // and nothing else writes inside this transaction): the statement's last is the last of them.
                let last = db.lastInsertRowID
                sequences.append(contentsOf: (last - Int64(rows) + 1)...last)
                // Every step of `every` records written so far, each once.
                while let progress, reported + every <= end {
                    reported += every
                    progress(reported)
                }
                start = end
            }
            progress?(items.count)
            return sequences
        }
    }

    /// Records an import writes in one statement (and as many outbox entries in another): one statement run per record
    /// spent a quarter of its SQLite instructions on opening cursors and resetting registers for each. Preparing the
    /// statements is paid once an import and grows with their rows (an import of 1,000 prepared for 9.0 M
    /// instructions at 32 rows, 4.0 M at 16): below `wideBulkFrom` records, 16 rows a statement (an import of 1,000
    /// without sending 98.1 -> 92.6 M instructions, of 10,000 773.7 -> 770.9 M); from there on 32, whose runs cost
    /// less a row (100,000: 7,365 M against 7,444 M at 16).
    static func bulkStatements(writing count: Int) -> BulkStatements { count >= wideBulkFrom ? wideBulk : narrowBulk }
    /// Records from which an import writes 32 a statement.
    static let wideBulkFrom = 50_000
    /// The statements of an import below `wideBulkFrom` records.
    static let narrowBulk = BulkStatements(rows: 16)
    /// The statements of an import from `wideBulkFrom` records on.
    static let wideBulk = BulkStatements(rows: 32)

    /// The records insert and the outbox insert an import runs for `rows` records at a time.
    struct BulkStatements {
        let rows: Int
        let insert: String
        let queue: String

        init(rows: Int) {
            self.rows = rows
            insert = TodoStore.insertNewSQL(rows: rows)
            queue = TodoStore.queueNewRecordsSQL(rows: rows)
        }
    }

    /// Queues the saves of `rows` records the cloud has never seen (no change tag, no merge base), entry `i`'s values
    /// bound from `?(6 i + 1)` on.
    static func queueNewRecordsSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            let p = 6 * row
            return "(?\(p + 1), ?\(p + 2), ?\(p + 3), ?\(p + 4), 'save', ?\(p + 5), ?\(p + 6))"
        }
        // OR FAIL: no statement journal (see `insertNewSQL`).
        return "INSERT OR FAIL INTO outbox (scope, zone_owner, zone_name, record_name, action, record_type, enqueued_at) VALUES "
            + values.joined(separator: ", ")
    }

    /// Deletes a record locally and queues the delete (one transaction); a record the server never had just vanishes.
    public func deleteLocally(_ key: RecordKey, at now: Int64) throws {
        try write { db in try Self.deleteLocally(key, at: now, db: db) }
    }

    /// Saves and deletes several records locally, queueing each, all in one transaction (a list and its todos).
    public func applyLocalChanges(saving items: [TodoItem], deleting keys: [RecordKey], at now: Int64) throws {
        try write { db in
            for item in items { _ = try Self.saveLocalEdit(item, at: now, db: db) }
            for key in keys { try Self.deleteLocally(key, at: now, db: db) }
        }
    }

    static func deleteLocally(_ key: RecordKey, at now: Int64, db: SQLiteDatabase) throws {
        guard let existing = try Self.fetchItem(key, in: db) else { throw StoreError.notFound(key.recordName) }
        try db.run("DELETE FROM records WHERE \(Self.keyWhere)", Self.keyArguments(key))
        guard let tag = existing.system.changeTag else {
            try db.run("DELETE FROM outbox WHERE \(Self.keyWhere)", Self.keyArguments(key))
            return
        }
        let base: SQLValue = try Self.json(existing.fields)
        try db.run(
            """
            INSERT INTO outbox (scope, zone_owner, zone_name, record_name, action, record_type, change_tag, base_fields, enqueued_at)
            VALUES (?1, ?2, ?3, ?4, 'delete', ?5, ?6, ?7, ?8)
            ON CONFLICT (scope, zone_owner, zone_name, record_name) DO UPDATE SET
                action = 'delete', change_tag = excluded.change_tag, revision = outbox.revision + 1, failed_reason = NULL
            """, Self.keyArguments(key) + [.text(existing.recordType), .text(tag), base, .int(now)])
    }

    // MARK: The outbox

    /// Pending changes in the order they were first queued, after the one at `sequence` when given; failed ones only when asked.
    public func pendingChanges(limit: Int = Int.max, includeFailed: Bool = false, after sequence: Int64? = nil) throws -> [PendingChange] {
        try read { db in try Self.pendingChanges(limit: limit, includeFailed: includeFailed, after: sequence, db: db) }
    }

    /// `pendingChanges(limit:includeFailed:after:)` on a connection (the store's, or an `OutboxReader`'s).
    static func pendingChanges(limit: Int, includeFailed: Bool, after sequence: Int64?, db: SQLiteDatabase) throws -> [PendingChange] {
        try mapErrors {
            // One pass: each outbox row with its record (a LEFT JOIN; a save whose record is gone is skipped).
            let sql = includeFailed ? Self.pendingAllSQL : Self.pendingUnfailedSQL
            var changes: [PendingChange] = []
            let arguments: [SQLValue] = [.int(Int64(min(limit, Int(Int64.max)))), .int(sequence ?? Int64.min)]
            if limit < 100_000 { changes.reserveCapacity(limit) }
            // One set of caches for the read: zone names and owners, stamps' users and devices, lists and tags made once.
            var caches = RowReadCaches()
            // Appended as read: a list of optionals copied into this one copied every change (a retain per field).
            _ = try db.query(sql, arguments) { row in
                let key = Self.key(from: row, offset: 0, caches: &caches)
                let baseFields = try row.optionalText(7).map { try Self.decodeJSON([String: FieldValue].self, $0) }
                let revision = row.int(8)
                let failed = row.optionalText(9)
                let sequence = row.int(10)
                if row.text(4) == "delete" {
                    changes.append(
                        PendingChange(
                            key: key, action: .delete(recordType: row.text(5), changeTag: row.optionalText(6)), baseFields: baseFields,
                            revision: revision, failedReason: failed, sequence: sequence))
                    return
                }
                guard !row.isNull(11) else { return }
                // The join matched the outbox row's key: the record's key is that one.
                var item = try Self.item(from: row, offset: 11, key: key, caches: &caches)
                item.hasPendingChanges = true
                changes.append(
                    PendingChange(
                        key: key, action: .save(consume item), baseFields: baseFields, revision: revision, failedReason: failed, sequence: sequence))
            }
            return changes
        }
    }

    static func pendingSQL(includeFailed: Bool) -> String {
        """
        SELECT o.scope, o.zone_owner, o.zone_name, o.record_name, o.action, o.record_type, o.change_tag, o.base_fields,
            o.revision, o.failed_reason, o.seq, \(plainRecordColumns(prefix: "r."))
        FROM outbox o LEFT JOIN records r ON r.scope = o.scope AND r.zone_owner = o.zone_owner AND r.zone_name = o.zone_name
            AND r.record_name = o.record_name
        WHERE o.seq > ?2 \(includeFailed ? "" : "AND o.failed_reason IS NULL") ORDER BY o.seq LIMIT ?1
        """
    }

    static let pendingAllSQL = pendingSQL(includeFailed: true)
    static let pendingUnfailedSQL = pendingSQL(includeFailed: false)

    /// How many changes wait in the outbox (failed ones included).
    public func pendingCount() throws -> Int {
        try read { db in Int(try db.first("SELECT count(*) FROM outbox") { $0.int(0) } ?? 0) }
    }

    /// How many pending changes the cloud refused for good.
    public func failedCount() throws -> Int {
        try read { db in Int(try db.first("SELECT count(*) FROM outbox WHERE failed_reason IS NOT NULL") { $0.int(0) } ?? 0) }
    }

    /// A save of `key` conflicted: merge against the server copy and make the server's tag the one to send next.
    ///
    /// Runs `merge` inside the transaction, on the record as it is now. Answers whether anything remains to send
    /// (false when the merged fields equal the server's: the entry is then cleared).
    @discardableResult
    public func resolveConflict(_ key: RecordKey, serverRecord: Record, merge: FieldMerge) throws -> Bool {
        try write { db in try Self.mergePendingEdit(key, serverRecord: serverRecord, merge: merge, db: db) }
    }

    /// Merges the pending edit of `key` with a newer server version (a conflict's, or one fetched while the edit
    /// waits): the merged record is kept and the server's tag and fields become the base of what is sent next.
    static func mergePendingEdit(_ key: RecordKey, serverRecord: Record, merge: FieldMerge, db: SQLiteDatabase) throws -> Bool {
        let row = try db.first("SELECT action, base_fields FROM outbox WHERE \(Self.keyWhere)", Self.keyArguments(key)) {
            ($0.text(0), $0.optionalText(1))
        }
        guard let (action, baseText) = row else { return false }
        let serverFields = serverRecord.fields ?? [:]
        if action == "delete" {
            try db.run(
                "UPDATE outbox SET change_tag = ?5, base_fields = ?6 WHERE \(Self.keyWhere)",
                Self.keyArguments(key) + [serverRecord.recordChangeTag.map(SQLValue.text) ?? .null, try Self.json(serverFields)])
            return true
        }
        guard var item = try Self.fetchItem(key, in: db) else { return false }
        let original = item
        let base = try baseText.map { try Self.decodeJSON([String: FieldValue].self, $0) }
        let merged = merge(base, item, serverRecord)
        item.apply(fields: merged)
        // What the other device's change brought into this one's pending edit.
        try Self.recordHistory(
            old: original, new: item, at: serverRecord.modified?.timestamp ?? Int64(Date().timeIntervalSince1970 * 1000),
            device: serverRecord.modified?.deviceID, fromCloud: true, db: db)
        // The merged `list` field decides the hierarchy; `parent` follows it.
        if item.recordType == TodoSchema.todoType, item.list != nil || serverRecord.parent == nil || base?[TodoItem.Field.list] != nil {
            item.setList(item.list?.recordName)
        } else {
            item.parent = serverRecord.parent
        }
        item.system = SystemFields(
            changeTag: serverRecord.recordChangeTag, created: serverRecord.created, modified: serverRecord.modified)
        if item.recordType.isEmpty, let type = serverRecord.recordType { item.recordType = type }
        if merged == serverFields, item.parent == serverRecord.parent {
            item.localEditedAt = nil
            try Self.upsert(item, in: db)
            try db.run("DELETE FROM outbox WHERE \(Self.keyWhere)", Self.keyArguments(key))
            return false
        }
        try Self.upsert(item, in: db)
        try db.run(
            "UPDATE outbox SET base_fields = ?5 WHERE \(Self.keyWhere)", Self.keyArguments(key) + [try Self.json(serverFields)])
        return true
    }

    /// The server no longer has the record (or zone): send the local copy as a new record next time.
    public func forgetServerVersion(_ key: RecordKey) throws {
        try write { db in
            try db.run("UPDATE records SET change_tag = NULL WHERE \(Self.keyWhere)", Self.keyArguments(key))
            try db.run("UPDATE outbox SET base_fields = NULL WHERE \(Self.keyWhere)", Self.keyArguments(key))
        }
    }

    /// The cloud refused a change for good: keep it, with the reason, and stop resending it automatically.
    public func markFailed(_ key: RecordKey, revision: Int64, reason: String) throws {
        try write { db in
            try db.run(
                "UPDATE outbox SET failed_reason = ?5 WHERE \(Self.keyWhere) AND revision = ?6",
                Self.keyArguments(key) + [.text(reason), .int(revision)])
        }
    }

    /// Lets failed changes be tried again (a manual sync).
    public func retryFailedChanges() throws {
        try write { db in try db.run("UPDATE outbox SET failed_reason = NULL WHERE failed_reason IS NOT NULL") }
    }

    /// Drops a pending change without sending it (e.g. a refused change the user abandons), restoring nothing.
    public func discardPendingChange(_ key: RecordKey) throws {
        try write { db in try db.run("DELETE FROM outbox WHERE \(Self.keyWhere)", Self.keyArguments(key)) }
    }
}
