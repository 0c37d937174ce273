import CloudModel
import Foundation
import SQLiteDB

/// What applying a page of server changes did.
public struct AppliedChanges: Sendable, Hashable {
    /// Records inserted or updated.
    public var saved: Int
    /// Records removed because the server deleted them.
    public var deleted: Int
    /// Records left alone because a local edit of theirs is pending (it will be merged on send).
    public var keptForPendingEdit: Int
    /// Of the deleted, those a from-scratch refetch did not see again: records no page named.
    public var removedStale: Int
    /// Whether the page was part of a zone arriving whole (it went into a zone this device held nothing of, or
    /// continued such a download): no history was written, and the fetch's next pages say so too.
    public var arrivedWhole = false

    /// Counts of what a page did.
    public init(saved: Int = 0, deleted: Int = 0, keptForPendingEdit: Int = 0, removedStale: Int = 0) {
        self.saved = saved
        self.deleted = deleted
        self.keptForPendingEdit = keptForPendingEdit
        self.removedStale = removedStale
    }
}

extension TodoStore {
    /// Applies one page of a zone's changes and its token in ONE transaction (also for intermediate `moreComing` tokens).
    ///
    /// Records with a pending local edit are merged with the server's version by `merge` (without it they keep their
    /// local fields and the send merges them on a conflict); a tombstone of such a record makes the edit a re-create. On the last page (`moreComing == false`)
    /// records still marked stale by a from-scratch refetch are removed, unless an edit of theirs is pending.
    /// `arrivingWhole`: an earlier page of this fetch went into an empty zone (`AppliedChanges.arrivedWhole`).
    @discardableResult
    public func applyZoneChanges(
        _ zone: ZoneKey, records: [Record], token: ChangeToken?, moreComing: Bool, merge: FieldMerge? = nil, arrivingWhole: Bool = false
    ) throws -> AppliedChanges {
        try write { db in
            var summary = AppliedChanges()
            let pending = try Self.pendingActions(of: records.lazy.map(\.recordName), in: zone, db: db)
            // Records this device holds already (a zone fetched before, or edited here before its first fetch): these are
            // changes, recorded in the history. A first fetch into an empty zone is the whole zone arriving, over all its
            // pages: none (with only the first page spared, 100,000 todos arriving wrote 99,800 "created" entries).
            let keepsHistory = try !arrivingWhole && (db.first(
                "SELECT 1 FROM records WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 LIMIT 1", Self.zoneArguments(zone)) { _ in true } ?? false)
            summary.arrivedWhole = !keepsHistory
            for record in records {
                let key = RecordKey(
                    scope: zone.scope, zoneName: zone.zoneName, zoneOwner: zone.zoneOwner, recordName: record.recordName)
                let action = pending[record.recordName]
                if record.isDeleted {
                    switch action {
                    case "save":
                        try db.run("UPDATE records SET change_tag = NULL, stale = 0 WHERE \(Self.keyWhere)", Self.keyArguments(key))
                        try db.run("UPDATE outbox SET base_fields = NULL WHERE \(Self.keyWhere)", Self.keyArguments(key))
                        summary.keptForPendingEdit += 1
                    case "delete":
                        try db.run("DELETE FROM outbox WHERE \(Self.keyWhere)", Self.keyArguments(key))
                        summary.deleted += 1
                    default:
                        try db.run("DELETE FROM records WHERE \(Self.keyWhere)", Self.keyArguments(key))
                        summary.deleted += db.changes
                    }
                } else if action != nil {
                    try db.run("UPDATE records SET stale = 0 WHERE \(Self.keyWhere)", Self.keyArguments(key))
                    if action == "save", let merge, record.recordChangeTag != nil {
                        _ = try Self.mergePendingEdit(key, serverRecord: record, merge: merge, db: db)
                    }
                    summary.keptForPendingEdit += 1
                } else {
                    var item = TodoItem(record: record, scope: zone.scope)
                    item.key = key
                    if keepsHistory {
                        let old = try Self.fetchItem(key, in: db)
                        let stamp = record.modified
                        try Self.recordHistory(
                            old: old, new: item, at: stamp?.timestamp ?? Int64(Date().timeIntervalSince1970 * 1000), device: stamp?.deviceID,
                            fromCloud: true, db: db)
                    }
                    try Self.upsert(item, in: db)
                    summary.saved += 1
                }
            }
            if let token { try Self.storeZoneToken(token, for: zone, db: db) }
            if !moreComing {
                // INDEXED BY: without it SQLite walks the primary key over the whole zone (every record, every push).
                try db.run(
                    """
                    DELETE FROM records INDEXED BY records_stale WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 AND stale = 1
                    AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.scope = records.scope AND o.zone_owner = records.zone_owner
                        AND o.zone_name = records.zone_name AND o.record_name = records.record_name)
                    """, Self.zoneArguments(zone))
                summary.deleted += db.changes
                summary.removedStale = db.changes
                try db.run(
                    """
                    UPDATE records INDEXED BY records_stale SET stale = 0, change_tag = NULL
                    WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 AND stale = 1
                    """,
                    Self.zoneArguments(zone))
            }
            return summary
        }
    }

    /// Applies records of the public board (no tombstones there) and, when given, the new poll mark, in one transaction.
    @discardableResult
    public func applyPublicRecords(_ records: [Record], pollMark: Int64?) throws -> AppliedChanges {
        try write { db in
            var summary = AppliedChanges()
            let pending = try Self.pendingActions(of: records.lazy.map(\.recordName), in: .publicBoard, db: db)
            for record in records where !record.isDeleted {
                if pending[record.recordName] != nil {
                    summary.keptForPendingEdit += 1
                    continue
                }
                var item = TodoItem(record: record, scope: .public)
                item.key = .publicRecord(record.recordName)
                try Self.upsert(item, in: db)
                summary.saved += 1
            }
            if let pollMark { try Self.setState(SyncStateKey.lastPublicPoll, String(pollMark), db: db) }
            return summary
        }
    }

    /// Removes a zone the cloud reported deleted: its records, token and pending edits (one transaction).
    public func removeZone(_ zone: ZoneKey) throws {
        try write { db in
            let arguments = Self.zoneArguments(zone)
            try db.run("DELETE FROM records WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", arguments)
            try db.run("DELETE FROM zone_tokens WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", arguments)
            try db.run("DELETE FROM outbox WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", arguments)
            if zone == .privateTodos { try Self.setState(SyncStateKey.createdCustomZone, nil, db: db) }
        }
    }

    /// Drops a zone's token (expired) and marks its records stale, so the refetch from scratch can reconcile.
    public func restartZoneFetch(_ zone: ZoneKey) throws {
        try write { db in
            let arguments = Self.zoneArguments(zone)
            try db.run("DELETE FROM zone_tokens WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", arguments)
            try db.run("UPDATE records SET stale = 1 WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", arguments)
        }
    }

    /// Makes every record of a zone a re-create: forgets change tags and queues a save for each (zone gone on the server).
    @discardableResult
    public func prepareReupload(of zone: ZoneKey, now: Int64) throws -> Int {
        try write { db in
            let arguments = Self.zoneArguments(zone)
            try db.run(
                "DELETE FROM outbox WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 AND action = 'delete'", arguments)
            try db.run(
                "UPDATE outbox SET base_fields = NULL, failed_reason = NULL, revision = revision + 1 WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3",
                arguments)
            try db.run(
                "UPDATE records SET change_tag = NULL, stale = 0 WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3",
                arguments)
            try db.run(
                """
                INSERT INTO outbox (scope, zone_owner, zone_name, record_name, action, record_type, enqueued_at)
                SELECT scope, zone_owner, zone_name, record_name, 'save', record_type, ?4 FROM records
                WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3
                ON CONFLICT (scope, zone_owner, zone_name, record_name) DO NOTHING
                """, arguments + [.int(now)])
            try db.run("DELETE FROM zone_tokens WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", arguments)
            return Int(
                try db.first("SELECT count(*) FROM outbox WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", arguments) {
                    $0.int(0)
                } ?? 0)
        }
    }

    /// The queued action ("save" or "delete") of each record named in `names` that has one in `zone`'s outbox.
    ///
    /// Looked up name by name through the outbox's key index, after one probe that finds an empty outbox (a first
    /// download) at once: reading the zone's whole outbox instead cost every page, an empty one included, a read of
    /// every queued change (10 ms before a device with 10,000 unsent todos could send them).
    static func pendingActions(of names: some Sequence<String>, in zone: ZoneKey, db: SQLiteDatabase) throws -> [String: String] {
        var arguments = zoneArguments(zone)
        var actions: [String: String] = [:]
        guard try db.first(Self.anyPendingSQL, arguments, { _ in true }) != nil else { return actions }
        let lookup = try db.statement(Self.pendingActionSQL)
        // One list of arguments for every lookup, its name replaced, not a new list per record (a from-scratch
        // refetch with changes queued looks up every record of the zone).
        arguments.append(.null)
        for name in names {
            arguments[3] = .text(name)
            if let action = try db.first(lookup, arguments, { $0.text(0) }) { actions[name] = action }
        }
        return actions
    }

    static let anyPendingSQL = "SELECT 1 FROM outbox WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3 LIMIT 1"
    static let pendingActionSQL = "SELECT action FROM outbox WHERE \(keyWhere)"
}
