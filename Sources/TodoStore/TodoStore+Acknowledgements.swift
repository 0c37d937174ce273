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
    /// Confirmations that know their queue position (every one the engine makes) take two statements for the
    /// whole batch: one clears every entry still holding the revision sent, one adopts the cloud's system fields
    /// on the records of the cleared saves. The rest — an entry edited (or dropped and queued anew) while its
    /// change was in flight, a record deleted meanwhile, a confirmation by key alone — is settled record by record.
    public func confirm(_ changes: [SentChange]) throws {
        guard !changes.isEmpty else { return }
        try writeRepeatable { db in
            if Self.canConfirmTogether(changes) {
                try Self.confirmTogether(changes, db: db)
            } else {
                try Self.confirmOneByOne(changes, db: db)
            }
        }
    }

    /// Whether the batched path settles `changes` exactly as one-by-one would: every one names its queue position,
    /// and no record is named twice (confirmations of one record must run in order; a batch the engine sends never
    /// names one twice). Records are told apart by name alone: two of one name in different zones merely take the
    /// slower path.
    static func canConfirmTogether(_ changes: [SentChange]) -> Bool {
        guard changes.count > 1 else { return false }
        var names = Set<String>(minimumCapacity: changes.count)
        for index in changes.indices {
            guard changes[index].sequence > 0, names.insert(changes[index].key.recordName).inserted else { return false }
        }
        return true
    }

    /// The batched acknowledgement (see `confirm`).
    static func confirmTogether(_ changes: [SentChange], db: SQLiteDatabase) throws {
        // 1. Clear every entry that still holds the revision sent (a delete's only if it is still a delete).
        var sent = JSONWriter(reserving: 24 * changes.count + 2)
        sent.raw("[")
        // By index, so no confirmation (and the record it carries) is copied on the way.
        for index in changes.indices {
            sent.separator(index)
            sent.raw("[")
            sent.int(changes[index].sequence)
            sent.raw(",")
            sent.int(changes[index].revision)
            if case .deleted = changes[index].result { sent.raw(",1]") } else { sent.raw(",0]") }
        }
        sent.raw("]")
        var cleared = Set<Int64>(minimumCapacity: changes.count)
        for sequence in try db.query(clearSentBatchSQL, [.text(String(decoding: sent.bytes, as: UTF8.self))], { $0.int(0) }) {
            cleared.insert(sequence)
        }
        // 2. The cleared saves adopt the cloud's system fields; their fields are the ones sent, which the cloud stored.
        var adopt = JSONWriter(reserving: 200 * changes.count + 2)
        adopt.raw("[")
        var adopting = 0
        for index in changes.indices {
            guard case .saved(let record) = changes[index].result, cleared.contains(changes[index].sequence) else { continue }
            let key = changes[index].key
            adopt.separator(adopting)
            adopting += 1
            adopt.raw("[")
            adopt.string(key.scope.rawValue)
            adopt.raw(",")
            adopt.string(key.zoneOwner)
            adopt.raw(",")
            adopt.string(key.zoneName)
            adopt.raw(",")
            adopt.string(key.recordName)
            adopt.raw(",")
            if let tag = record.recordChangeTag { adopt.string(tag) } else { adopt.raw("null") }
            appendStampItems(record.created, to: &adopt)
            appendStampItems(record.modified, to: &adopt)
            adopt.raw("]")
        }
        adopt.raw("]")
        var keys: [RecordKey] = []
        if adopting > 0 {
            keys = try db.query(adoptSystemFieldsBatchSQL, [.text(String(decoding: adopt.bytes, as: UTF8.self))]) { row in
                RecordKey(
                    scope: DatabaseScope(rawValue: row.text(0)) ?? .private, zoneName: row.text(2), zoneOwner: row.text(1),
                    recordName: row.text(3))
            }
        }
        // A cleared entry's key is unique among the cleared (one outbox row per record): if every one was adopted,
        // the keys need no look-up.
        let adopted: Set<RecordKey>? = keys.count == adopting ? nil : Set(keys)
        // 3. The rare rest, one by one: saves whose entry was edited meanwhile, or whose record was deleted meanwhile
        // (that delete must go out with the new tag). A delete's entry not cleared was edited since: it stays.
        for index in changes.indices {
            guard case .saved(let record) = changes[index].result else { continue }
            if cleared.contains(changes[index].sequence), adopted?.contains(changes[index].key) ?? true { continue }
            try confirmSavedAfterEdit(changes[index], serverRecord: record, db: db)
        }
    }

    /// A stamp's three columns as JSON array items (after a comma each): timestamp, user, device (null when absent).
    private static func appendStampItems(_ stamp: RecordStamp?, to writer: inout JSONWriter) {
        guard let stamp else {
            writer.raw(",null,null,null")
            return
        }
        writer.raw(",")
        writer.int(stamp.timestamp)
        writer.raw(",")
        writer.string(stamp.userRecordName)
        writer.raw(",")
        if let device = stamp.deviceID { writer.string(device) } else { writer.raw("null") }
    }

    /// Deletes the entries `?1` names (`[[seq, revision, isDelete], …]`) that still hold that revision; answers their seq.
    static let clearSentBatchSQL = """
        DELETE FROM outbox WHERE seq IN (
            SELECT o.seq FROM json_each(?1) AS j JOIN outbox AS o ON o.seq = j.value ->> 0
            WHERE o.revision = j.value ->> 1 AND (j.value ->> 2 = 0 OR o.action = 'delete'))
        RETURNING seq
        """

    /// `adoptSystemFieldsSQL` for every record `?1` names (`[[scope, owner, zone, name, tag, created ×3, modified ×3], …]`);
    /// answers the keys of the records it changed.
    static let adoptSystemFieldsBatchSQL = """
        UPDATE records SET change_tag = j.value ->> 4, created_at = j.value ->> 5, created_user = j.value ->> 6,
            created_device = j.value ->> 7, modified_at = j.value ->> 8, modified_user = j.value ->> 9,
            modified_device = j.value ->> 10, local_edited_at = NULL, stale = 0
        FROM json_each(?1) AS j
        WHERE records.scope = j.value ->> 0 AND records.zone_owner = j.value ->> 1 AND records.zone_name = j.value ->> 2
            AND records.record_name = j.value ->> 3
        RETURNING scope, zone_owner, zone_name, record_name
        """

    /// The acknowledgement record by record, in order: the path for confirmations without a queue position.
    static func confirmOneByOne(_ changes: [SentChange], db: SQLiteDatabase) throws {
        // The statements of the usual case, looked up once for the batch rather than once per record.
        let statements = AckStatements(
            clearSent: try db.statement(Self.deleteSentSQL), clearSentByKey: try db.statement(Self.deleteSentOutboxSQL),
            adopt: try db.statement(Self.adoptSystemFieldsSQL))
        for change in changes {
            switch change.result {
            case .saved(let record):
                try Self.confirmSaved(change, serverRecord: record, db: db, statements)
            case .deleted:
                if change.sequence > 0 {
                    try db.run(Self.deleteSentDeleteBySequenceSQL, [.int(change.sequence), .int(change.revision)])
                } else {
                    try db.run(Self.deleteSentDeleteSQL, Self.keyArguments(change.key) + [.int(change.revision)])
                }
            }
        }
    }

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

    static func confirmSaved(_ change: SentChange, serverRecord: Record, db: SQLiteDatabase, _ statements: AckStatements) throws {
        let key = change.key
        // The usual case: no edit since (the entry still has the revision sent). Clear it and adopt the server's
        // system fields; the record's fields are the ones sent, which the server stored.
        let cleared =
            change.sequence > 0
            ? try statements.run(statements.clearSent, [.int(change.sequence), .int(change.revision)], db)
            : try statements.run(statements.clearSentByKey, keyArguments(key) + [.int(change.revision)], db)
        if cleared > 0 {
            if try statements.run(statements.adopt, try adoptArguments(key, serverRecord), db) > 0 { return }
            // Deleted locally meanwhile: fall through, the delete must go out with the new tag.
        }
        try confirmSavedAfterEdit(change, serverRecord: serverRecord, db: db)
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
