import CloudModel
import Foundation
import SQLiteDB

extension SQLiteCloudStore {
    /// Sharing: shares and their participants, each record's computed root, participants' views.
    ///
    /// `records.root` is maintained only in zones that have a share (it is NULL elsewhere, and filled in
    /// for the whole zone when its first share is made), so writes to unshared zones pay nothing; the
    /// partial index holds only those rows. `root_exits` remembers records that left a shared root, so
    /// participants get a tombstone for them.
    static let sharingMigration: (name: String, sql: String) = (
        "v2",
        """
        ALTER TABLE records ADD COLUMN root TEXT;
        CREATE INDEX records_root ON records(zone_pk, root, seq) WHERE root IS NOT NULL;
        CREATE TABLE shares(
            zone_pk INTEGER NOT NULL REFERENCES zones(pk) ON DELETE CASCADE,
            record_name TEXT NOT NULL, root_record_name TEXT NOT NULL,
            PRIMARY KEY(zone_pk, record_name), UNIQUE(zone_pk, root_record_name)) WITHOUT ROWID;
        CREATE TABLE share_participants(
            zone_pk INTEGER NOT NULL, share_record_name TEXT NOT NULL, user_record_name TEXT NOT NULL,
            position INTEGER NOT NULL, permission TEXT NOT NULL, accepted INTEGER NOT NULL,
            PRIMARY KEY(zone_pk, share_record_name, user_record_name),
            FOREIGN KEY(zone_pk, share_record_name) REFERENCES shares(zone_pk, record_name) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX share_participants_user ON share_participants(user_record_name, zone_pk);
        CREATE TABLE share_views(
            zone_pk INTEGER NOT NULL REFERENCES zones(pk) ON DELETE CASCADE, user_record_name TEXT NOT NULL,
            epoch INTEGER NOT NULL, PRIMARY KEY(zone_pk, user_record_name)) WITHOUT ROWID;
        CREATE TABLE root_exits(
            zone_pk INTEGER NOT NULL REFERENCES zones(pk) ON DELETE CASCADE, record_name TEXT NOT NULL,
            old_root TEXT NOT NULL, seq INTEGER NOT NULL, changed_at INTEGER NOT NULL,
            PRIMARY KEY(zone_pk, record_name, old_root)) WITHOUT ROWID;
        CREATE INDEX root_exits_feed ON root_exits(zone_pk, seq);
        """
    )
}

extension SQLiteStoreTransaction {
    /// A set of names bound as one JSON array, read in SQL with `json_each`.
    // Without statistics SQLite prefers the primary key (zone_pk) to the partial root index and would
    // scan a whole zone for a few shared records: the root queries name the index.

    func jsonList(_ names: some Sequence<String>) -> SQLValue {
        var writer = JSONWriter(reserving: 64)
        writer.strings(names)
        return .text(String(decoding: writer.bytes, as: UTF8.self))
    }

    private static func storedZone(_ row: Row, offset: Int32) -> StoredZone {
        StoredZone(
            pk: row.int(offset),
            database: DatabaseKey(container: row.text(offset + 1), scope: .private, owner: row.text(offset + 2)),
            name: row.text(offset + 3), compactedSeq: row.int(offset + 4))
    }

    // MARK: Shares

    func zoneHasShares(zonePK: Int64) throws -> Bool {
        if cachesShareZones, let known = shareZoneCache[zonePK] { return known }
        let has = try db.first("SELECT EXISTS(SELECT 1 FROM shares WHERE zone_pk = ?1)", [.int(zonePK)]) { $0.int(0) != 0 } ?? false
        if cachesShareZones { shareZoneCache[zonePK] = has }
        return has
    }

    func share(zonePK: Int64, recordName: String) throws -> ShareRow? {
        try db.first(
            "SELECT root_record_name FROM shares WHERE zone_pk = ?1 AND record_name = ?2", [.int(zonePK), .text(recordName)]
        ) { ShareRow(zonePK: zonePK, recordName: recordName, rootRecordName: $0.text(0)) }
    }

    func share(zonePK: Int64, root: String) throws -> ShareRow? {
        try db.first(
            "SELECT record_name FROM shares WHERE zone_pk = ?1 AND root_record_name = ?2", [.int(zonePK), .text(root)]
        ) { ShareRow(zonePK: zonePK, recordName: $0.text(0), rootRecordName: root) }
    }

    func insertShare(_ share: ShareRow) throws {
        try db.run(
            "INSERT INTO shares(zone_pk, record_name, root_record_name) VALUES (?1, ?2, ?3)",
            [.int(share.zonePK), .text(share.recordName), .text(share.rootRecordName)])
        shareZoneCache[share.zonePK] = true
    }

    func deleteShare(zonePK: Int64, recordName: String) throws {
        try db.run("DELETE FROM shares WHERE zone_pk = ?1 AND record_name = ?2", [.int(zonePK), .text(recordName)])
        shareZoneCache[zonePK] = nil
    }

    func participants(zonePK: Int64, shareRecordName: String) throws -> [ParticipantRow] {
        try db.query(
            """
            SELECT user_record_name, permission, accepted FROM share_participants
            WHERE zone_pk = ?1 AND share_record_name = ?2 ORDER BY position
            """, [.int(zonePK), .text(shareRecordName)]
        ) {
            ParticipantRow(
                userRecordName: $0.text(0), permission: ShareParticipantPermission(rawValue: $0.text(1)) ?? .readOnly,
                accepted: $0.int(2) != 0)
        }
    }

    func setParticipants(zonePK: Int64, shareRecordName: String, _ participants: [ParticipantRow]) throws {
        try db.run(
            "DELETE FROM share_participants WHERE zone_pk = ?1 AND share_record_name = ?2", [.int(zonePK), .text(shareRecordName)])
        for (position, participant) in participants.enumerated() {
            try db.run(
                "INSERT INTO share_participants VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                [
                    .int(zonePK), .text(shareRecordName), .text(participant.userRecordName), .int(Int64(position)),
                    .text(participant.permission.rawValue), .int(participant.accepted ? 1 : 0),
                ])
        }
    }

    func ownedShares(container: String, owner: String) throws -> [(zone: StoredZone, share: ShareRow)] {
        try db.query(
            """
            SELECT z.pk, z.container, z.owner, z.name, z.compacted_seq, s.record_name, s.root_record_name
            FROM zones z JOIN shares s ON s.zone_pk = z.pk
            WHERE z.container = ?1 AND z.scope = 'private' AND z.owner = ?2 ORDER BY z.name, s.root_record_name
            """, [.text(container), .text(owner)]
        ) { row in
            let zone = Self.storedZone(row, offset: 0)
            return (zone, ShareRow(zonePK: zone.pk, recordName: row.text(5), rootRecordName: row.text(6)))
        }
    }

    func sharesListing(container: String, participant: String) throws -> [(zone: StoredZone, share: ShareRow)] {
        try db.query(
            """
            SELECT z.pk, z.container, z.owner, z.name, z.compacted_seq, s.record_name, s.root_record_name
            FROM share_participants p
            JOIN shares s ON s.zone_pk = p.zone_pk AND s.record_name = p.share_record_name
            JOIN zones z ON z.pk = p.zone_pk
            WHERE p.user_record_name = ?1 AND z.container = ?2 ORDER BY z.owner, z.name, s.root_record_name
            """, [.text(participant), .text(container)]
        ) { row in
            let zone = Self.storedZone(row, offset: 0)
            return (zone, ShareRow(zonePK: zone.pk, recordName: row.text(5), rootRecordName: row.text(6)))
        }
    }

    func sharedZones(container: String, participant: String) throws -> [StoredZone] {
        try db.query(
            """
            SELECT DISTINCT z.pk, z.container, z.owner, z.name, z.compacted_seq
            FROM share_participants p JOIN zones z ON z.pk = p.zone_pk
            WHERE p.user_record_name = ?1 AND p.accepted = 1 AND z.container = ?2 ORDER BY z.owner, z.name
            """, [.text(participant), .text(container)]
        ) { Self.storedZone($0, offset: 0) }
    }

    func acceptedRoots(zonePK: Int64, participant: String) throws -> [String: ShareParticipantPermission] {
        var roots: [String: ShareParticipantPermission] = [:]
        let rows = try db.query(
            """
            SELECT s.root_record_name, p.permission FROM share_participants p
            JOIN shares s ON s.zone_pk = p.zone_pk AND s.record_name = p.share_record_name
            WHERE p.zone_pk = ?1 AND p.user_record_name = ?2 AND p.accepted = 1
            """, [.int(zonePK), .text(participant)]
        ) { ($0.text(0), ShareParticipantPermission(rawValue: $0.text(1)) ?? .readOnly) }
        for (root, permission) in rows { roots[root] = permission }
        return roots
    }

    func acceptedParticipants(zonePK: Int64, roots: Set<String>) throws -> Set<String> {
        guard !roots.isEmpty else { return [] }
        return Set(
            try db.query(
                """
                SELECT DISTINCT p.user_record_name FROM shares s
                JOIN share_participants p ON p.zone_pk = s.zone_pk AND p.share_record_name = s.record_name
                WHERE s.zone_pk = ?1 AND p.accepted = 1 AND s.root_record_name IN (SELECT value FROM json_each(?2))
                """, [.int(zonePK), jsonList(roots)]
            ) { $0.text(0) })
    }

    func participantsOfZone(zonePK: Int64) throws -> [String: Bool] {
        var result: [String: Bool] = [:]
        let rows = try db.query(
            "SELECT user_record_name, MAX(accepted) FROM share_participants WHERE zone_pk = ?1 GROUP BY user_record_name",
            [.int(zonePK)]
        ) { ($0.text(0), $0.int(1) != 0) }
        for (user, accepted) in rows { result[user] = accepted }
        return result
    }

    // MARK: Views

    func viewEpoch(zonePK: Int64, participant: String) throws -> Int64 {
        try db.first(
            "SELECT epoch FROM share_views WHERE zone_pk = ?1 AND user_record_name = ?2", [.int(zonePK), .text(participant)]
        ) { $0.int(0) } ?? 0
    }

    func setViewEpoch(zonePK: Int64, participant: String, epoch: Int64) throws {
        try db.run("INSERT OR REPLACE INTO share_views VALUES (?1, ?2, ?3)", [.int(zonePK), .text(participant), .int(epoch)])
    }

    // MARK: Roots

    func recordLink(zonePK: Int64, name: String) throws -> RecordLink? {
        try db.first(
            "SELECT parent, root, record_type, deleted FROM records WHERE zone_pk = ?1 AND record_name = ?2",
            [.int(zonePK), .text(name)]
        ) { RecordLink(parent: $0.optionalText(0), root: $0.optionalText(1), recordType: $0.text(2), deleted: $0.int(3) != 0) }
    }

    func setRoot(zonePK: Int64, name: String, root: String) throws {
        try db.run("UPDATE records SET root = ?3 WHERE zone_pk = ?1 AND record_name = ?2", [.int(zonePK), .text(name), .text(root)])
    }

    func moveRecord(zonePK: Int64, name: String, root: String, seq: Int64) throws {
        try db.run(
            "UPDATE records SET root = ?3, seq = ?4 WHERE zone_pk = ?1 AND record_name = ?2",
            [.int(zonePK), .text(name), .text(root), .int(seq)])
    }

    func recordsUnder(zonePK: Int64, root: String) throws -> [(name: String, parent: String?)] {
        try db.query(
            "SELECT record_name, parent FROM records INDEXED BY records_root WHERE zone_pk = ?1 AND root = ?2",
            [.int(zonePK), .text(root)]
        ) { (name: $0.text(0), parent: $0.optionalText(1)) }
    }

    func allLinks(zonePK: Int64) throws -> [(name: String, parent: String?, recordType: String)] {
        try db.query("SELECT record_name, parent, record_type FROM records WHERE zone_pk = ?1", [.int(zonePK)]) {
            (name: $0.text(0), parent: $0.optionalText(1), recordType: $0.text(2))
        }
    }

    func noteRootExit(zonePK: Int64, name: String, oldRoot: String, seq: Int64, now: Int64) throws {
        try db.run(
            "INSERT OR REPLACE INTO root_exits VALUES (?1, ?2, ?3, ?4, ?5)",
            [.int(zonePK), .text(name), .text(oldRoot), .int(seq), .int(now)])
    }

    // MARK: Participants' reads

    func visibleChanges(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool, roots: Set<String>) throws
        -> [StoredRecord]
    {
        guard !roots.isEmpty else { return [] }
        let list = jsonList(roots)
        let live = includeTombstones ? "" : "AND deleted = 0"
        let rows = try db.query(
            """
            SELECT \(Self.recordColumns) FROM records INDEXED BY records_root
            WHERE zone_pk = ?1 AND root IN (SELECT value FROM json_each(?3)) AND seq > ?2 \(live) ORDER BY seq LIMIT ?4
            """, [.int(zonePK), .int(seq), list, .int(Int64(limit))], Self.storedRecord)
        guard includeTombstones else { return rows }
        // Records that moved out of the participant's roots (and are not back in one): tombstones.
        let exits = try db.query(
            """
            SELECT e.record_name, MAX(e.seq) FROM root_exits e
            WHERE e.zone_pk = ?1 AND e.seq > ?2 AND e.old_root IN (SELECT value FROM json_each(?3))
              AND NOT EXISTS (SELECT 1 FROM records r WHERE r.zone_pk = ?1 AND r.record_name = e.record_name
                              AND r.root IN (SELECT value FROM json_each(?3)))
            GROUP BY e.record_name ORDER BY 2 LIMIT ?4
            """, [.int(zonePK), .int(seq), list, .int(Int64(limit))]
        ) { (name: $0.text(0), seq: $0.int(1)) }
        return StoredRecord.participantPage(rows, exits: exits, zonePK: zonePK, limit: limit)
    }

    func visibleLiveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?, roots: Set<String>) throws -> [StoredRecord] {
        guard !roots.isEmpty else { return [] }
        return try db.query(
            """
            SELECT \(Self.recordColumns) FROM records INDEXED BY records_root
            WHERE zone_pk = ?1 AND root IN (SELECT value FROM json_each(?4)) AND record_type = ?2 AND modified_ts > ?3
              AND deleted = 0
            """, [.int(zonePK), .text(recordType), .int(modifiedAfter ?? Int64.min), jsonList(roots)], Self.storedRecord)
    }

    // MARK: Compaction

    /// Drops exit notes older than `before` (ms), moving each zone's expiry horizon past them.
    func compactRootExits(before: Int64) throws {
        try db.run(
            """
            UPDATE zones SET compacted_seq = MAX(compacted_seq, (SELECT MAX(seq) FROM root_exits e
                WHERE e.zone_pk = zones.pk AND e.changed_at < ?1))
            WHERE EXISTS (SELECT 1 FROM root_exits e WHERE e.zone_pk = zones.pk AND e.changed_at < ?1)
            """, [.int(before)])
        try db.run("DELETE FROM root_exits WHERE changed_at < ?1", [.int(before)])
    }
}
