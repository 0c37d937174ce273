import CloudModel
import Foundation
import SQLiteDB

/// Acknowledgements: what the cloud answered for sent changes, applied to the outbox and the records.
extension TodoStore {
    /// The cloud saved a record: adopt its system fields; clear the entry unless the record was edited since.
    public func confirmSaved(_ key: RecordKey, revision: Int64, serverRecord: Record) throws {
        try confirm([SentChange(key: key, revision: revision, result: .saved(serverRecord))])
    }

    /// The cloud deleted a record (or it was already gone): clear the entry unless edited since.
    public func confirmDeleted(_ key: RecordKey, revision: Int64) throws {
        try confirm([SentChange(key: key, revision: revision, result: .deleted)])
    }

    /// Applies the confirmations of a whole batch in ONE transaction (one the disk is not waited for: see `writeRepeatable`).
    ///
    /// Record by record, with the statements prepared once for the batch. (Two statements for the whole batch —
    /// `json_each` over the confirmations — were measured slower on SQLite 3.40: its JSON operators parse each
    /// element again for every column read.)
    public func confirm(_ changes: [SentChange]) throws {
        try confirm(batches: [changes])
    }

    /// Applies the confirmations of several batches, in order, in ONE transaction (as `confirm(_:)`; the batches
    /// are taken as they are, not copied into one list).
    public func confirm(batches: [[SentChange]]) throws {
        guard batches.contains(where: { !$0.isEmpty }) else { return }
        try writeRepeatable { db in
            for changes in batches { try Self.confirmOneByOne(changes, db: db) }
        }
    }

    /// The acknowledgement record by record, in order: the path for confirmations without a queue position.
    static func confirmOneByOne(_ changes: [SentChange], db: SQLiteDatabase) throws {
        // The statements of the usual case, looked up once for the batch rather than once per record.
        let statements = AckStatements(
            clearSent: try db.statement(Self.deleteSentSQL), clearSentByKey: try db.statement(Self.deleteSentOutboxSQL),
            adopt: try db.statement(Self.adoptSystemFieldsSQL))
        // By index, each change borrowed where it lies: `for change in changes` copied every one (a retain of each
        // string of the todo sent along), 4 % of the device's CPU sending 100,000.
        func confirmOne(_ index: Int) throws {
            switch changes[index].result {
            case .saved(let record):
                try Self.confirmSaved(changes, at: index, serverRecord: record, db: db, statements)
            case .deleted:
                let (key, sequence, revision) = (changes[index].key, changes[index].sequence, changes[index].revision)
                if sequence > 0 {
                    try db.run(Self.deleteSentDeleteBySequenceSQL, [.int(sequence), .int(revision)])
                } else {
                    try db.run(Self.deleteSentDeleteSQL, Self.keyArguments(key) + [.int(revision)])
                }
            }
        }
        var index = changes.startIndex
        while index < changes.endIndex {
            let run = clearableRun(changes, from: index)
            guard run.count > 1 else {
                try confirmOne(index)
                index += 1
                continue
            }
            if try clearAll(changes, run, db: db) {
                // Every entry of the run was still the one sent, and is cleared: the records adopt the answers.
                for position in run {
                    guard case .saved(let record) = changes[position].result else { continue }
                    try adoptOrSettle(changes, at: position, serverRecord: record, db: db, statements)
                }
            } else {
                for position in run { try confirmOne(position) }
            }
            index = run.upperBound
        }
    }

    /// Saves whose entries one statement clears together: at most this many, consecutive, each with a queue position
    /// and all sent at one revision. Cleared one statement each, the entries cost a third more.
    static let clearedTogether = 32

    /// The run of saves from `start` that `clearAll` may clear together.
    static func clearableRun(_ changes: [SentChange], from start: Int) -> Range<Int> {
        var end = start
        while end < changes.endIndex, end - start < clearedTogether, changes[end].sequence > 0,
            changes[end].revision == changes[start].revision, case .saved = changes[end].result
        {
            end += 1
        }
        return start..<end
    }

    /// Clears the entries of `run` in one statement when every one of them is still queued at the revision sent, and
    /// answers true; otherwise changes nothing and answers false (the run is then confirmed change by change, as an
    /// entry edited, or gone, meanwhile needs).
    static func clearAll(_ changes: [SentChange], _ run: Range<Int>, db: SQLiteDatabase) throws -> Bool {
        var arguments: [SQLValue] = [.int(changes[run.lowerBound].revision)]
        arguments.reserveCapacity(run.count + 1)
        for position in run { arguments.append(.int(changes[position].sequence)) }
        // The savepoint's statements prepared once, as the delete is (parsed each time, they cost what they saved).
        try db.run("SAVEPOINT clear_sent", [])
        do {
            try db.run(run.count == clearedTogether ? clearSentRunSQL : clearSentSQL(run.count), arguments)
            if db.changes == run.count {
                try db.run("RELEASE clear_sent", [])
                return true
            }
        } catch {
            try? undoClear(db)
            throw error
        }
        try undoClear(db)
        return false
    }

    /// Takes back a `clearAll` that did not clear every entry.
    private static func undoClear(_ db: SQLiteDatabase) throws {
        try db.run("ROLLBACK TO clear_sent", [])
        try db.run("RELEASE clear_sent", [])
    }

    /// Deletes `count` entries by queue position, each only at revision ?1.
    static func clearSentSQL(_ count: Int) -> String {
        "DELETE FROM outbox WHERE revision = ?1 AND seq IN (" + (0..<count).map { "?\($0 + 2)" }.joined(separator: ", ") + ")"
    }

    static let clearSentRunSQL = clearSentSQL(clearedTogether)

    /// Prepared statements an acknowledgement reuses for every record of its batch.
    struct AckStatements {
        /// `deleteSentSQL`: the entry by queue position and revision.
        var clearSent: Statement
        /// `deleteSentOutboxSQL`: the entry by key and revision, for a confirmation without a queue position.
        var clearSentByKey: Statement
        /// `adoptSystemFieldsSQL`.
        var adopt: Statement

        /// Runs `statement` with `arguments`; answers the rows it changed.
        func run(_ statement: Statement, _ arguments: [SQLValue], _ db: SQLiteDatabase) throws -> Int {
            try db.run(statement, arguments)
            return db.changes
        }
    }

    /// The confirmation of the save at `index` of `changes`, read where it lies: passing the change itself copied it
    /// and the todo it carries (a retain and a release of each of its strings) for every record confirmed.
    static func confirmSaved(_ changes: [SentChange], at index: Int, serverRecord: Record, db: SQLiteDatabase, _ statements: AckStatements) throws {
        let (sequence, revision) = (changes[index].sequence, changes[index].revision)
        // The usual case: no edit since (the entry still has the revision sent). Clear it and adopt the server's
        // system fields; the record's fields are the ones sent, which the server stored.
        let cleared =
            sequence > 0
            ? try statements.run(statements.clearSent, [.int(sequence), .int(revision)], db)
            : try statements.run(statements.clearSentByKey, keyArguments(changes[index].key) + [.int(revision)], db)
        guard cleared > 0 else {
            try confirmSavedAfterEdit(changes[index], serverRecord: serverRecord, db: db)
            return
        }
        try adoptOrSettle(changes, at: index, serverRecord: serverRecord, db: db, statements)
    }

    /// The change at `index`, its entry cleared: its record adopts the server's system fields, unless it was deleted
    /// locally meanwhile (then the delete must go out with the new tag).
    static func adoptOrSettle(
        _ changes: [SentChange], at index: Int, serverRecord: Record, db: SQLiteDatabase, _ statements: AckStatements
    ) throws {
        if try statements.run(statements.adopt, try adoptArguments(changes[index].key, serverRecord), db) > 0 { return }
        try confirmSavedAfterEdit(changes[index], serverRecord: serverRecord, db: db)
    }

    /// Key and system fields of a saved record, for `adoptSystemFieldsSQL`.
    static func adoptArguments(_ key: RecordKey, _ record: Record) throws -> [SQLValue] {
        var arguments = keyArguments(key)
        arguments.reserveCapacity(11)
        arguments.append(record.recordChangeTag.map(SQLValue.text) ?? .null)
        appendStamp(record.created, to: &arguments)
        appendStamp(record.modified, to: &arguments)
        return arguments
    }

    /// The rare case: the record was edited or deleted locally while its save was in flight.
    static func confirmSavedAfterEdit(_ change: SentChange, serverRecord: Record, db: SQLiteDatabase) throws {
        let key = change.key
        let entry = try db.first(Self.outboxEntrySQL, keyArguments(key)) { (revision: $0.int(0), sequence: $0.int(1)) }
        guard var item = try fetchItem(key, in: db) else {
            // Deleted locally while the save was in flight: the delete must go out, with the new tag.
            try db.run(
                """
                INSERT INTO outbox (scope, zone_owner, zone_name, record_name, action, record_type, change_tag, enqueued_at)
                VALUES (?1, ?2, ?3, ?4, 'delete', ?5, ?6, 0)
                ON CONFLICT (scope, zone_owner, zone_name, record_name) DO UPDATE SET action = 'delete', change_tag = excluded.change_tag
                """,
                keyArguments(key) + [.text(serverRecord.recordType ?? TodoSchema.todoType), serverRecord.recordChangeTag.map(SQLValue.text) ?? .null])
            return
        }
        item.system = SystemFields(changeTag: serverRecord.recordChangeTag, created: serverRecord.created, modified: serverRecord.modified)
        if let entry, entry.revision == change.revision, change.sequence == 0 || entry.sequence == change.sequence {
            // The entry sent, unedited (its record was rewritten some other way): done.
            item.localEditedAt = nil
            try upsert(item, in: db)
            try db.run(Self.deleteOutboxSQL, keyArguments(key))
        } else {
            try upsert(item, in: db)
            // The server now holds what was sent: that is the base the newer edit is merged against.
            let serverFields = change.sent?.fields ?? serverRecord.fields ?? [:]
            try db.run("UPDATE outbox SET base_fields = ?5 WHERE \(keyWhere)", keyArguments(key) + [try json(serverFields)])
            // A delete queued meanwhile must carry the new tag.
            try db.run(
                "UPDATE outbox SET change_tag = ?5 WHERE \(keyWhere) AND action = 'delete'",
                keyArguments(key) + [serverRecord.recordChangeTag.map(SQLValue.text) ?? .null])
        }
    }

    static let outboxEntrySQL = "SELECT revision, seq FROM outbox WHERE \(keyWhere)"
    static let deleteOutboxSQL = "DELETE FROM outbox WHERE \(keyWhere)"
    static let deleteSentSQL = "DELETE FROM outbox WHERE seq = ?1 AND revision = ?2"
    static let deleteSentOutboxSQL = "DELETE FROM outbox WHERE \(keyWhere) AND revision = ?5"
    static let deleteSentDeleteBySequenceSQL = "DELETE FROM outbox WHERE seq = ?1 AND revision = ?2 AND action = 'delete'"
    static let deleteSentDeleteSQL = "DELETE FROM outbox WHERE \(keyWhere) AND revision = ?5 AND action = 'delete'"
    /// A confirmed save: the server's system fields; the local edit is no longer pending.
    static let adoptSystemFieldsSQL = """
        UPDATE records SET change_tag = ?5, created_at = ?6, created_user = ?7, created_device = ?8, modified_at = ?9,
            modified_user = ?10, modified_device = ?11, local_edited_at = NULL, stale = 0
        WHERE \(keyWhere)
        """
}
