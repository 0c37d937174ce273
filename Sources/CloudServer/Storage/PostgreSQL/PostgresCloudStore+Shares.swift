import CloudModel
import Foundation
import PostgresNIO

/// Shares, participants, computed roots and participants' views, in PostgreSQL. Sets of names are bound as one
/// `text[]` and compared with `= ANY`.
extension PostgresStoreTransaction {
    private static func storedZone(_ row: PostgresRow) throws -> StoredZone {
        let (pk, container, owner, name, compacted) = try row.decode((Int64, String, String, String, Int64).self)
        return StoredZone(pk: pk, database: DatabaseKey(container: container, scope: .private, owner: owner), name: name, compactedSeq: compacted)
    }

    private static func zoneAndShare(_ row: PostgresRow) throws -> (zone: StoredZone, share: ShareRow) {
        let zone = try storedZone(row)
        let cells = row.makeRandomAccess()
        return (zone, ShareRow(zonePK: zone.pk, recordName: try cells[5].decode(String.self), rootRecordName: try cells[6].decode(String.self)))
    }

    // MARK: Shares

    func zoneHasShares(zonePK: Int64) async throws -> Bool {
        // Asked on every record write: once per transaction and zone (its own share writes update the answer).
        if let known = shareZones[zonePK] { return known }
        let has = try await touched("SELECT 1 FROM shares WHERE zone_pk = \(zonePK) LIMIT 1")
        shareZones[zonePK] = has
        return has
    }

    func share(zonePK: Int64, recordName: String) async throws -> ShareRow? {
        try await first("SELECT root_record_name FROM shares WHERE zone_pk = \(zonePK) AND record_name = \(recordName)") {
            ShareRow(zonePK: zonePK, recordName: recordName, rootRecordName: try $0.decode(String.self))
        }
    }

    func share(zonePK: Int64, root: String) async throws -> ShareRow? {
        try await first("SELECT record_name FROM shares WHERE zone_pk = \(zonePK) AND root_record_name = \(root)") {
            ShareRow(zonePK: zonePK, recordName: try $0.decode(String.self), rootRecordName: root)
        }
    }

    func insertShare(_ share: ShareRow) async throws {
        try await run("INSERT INTO shares(zone_pk, record_name, root_record_name) VALUES (\(share.zonePK), \(share.recordName), \(share.rootRecordName))")
        shareZones[share.zonePK] = true
    }

    func deleteShare(zonePK: Int64, recordName: String) async throws {
        try await run("DELETE FROM shares WHERE zone_pk = \(zonePK) AND record_name = \(recordName)")
        shareZones[zonePK] = nil
    }

    func participants(zonePK: Int64, shareRecordName: String) async throws -> [ParticipantRow] {
        try await all(
            """
            SELECT user_record_name, permission, accepted FROM share_participants
            WHERE zone_pk = \(zonePK) AND share_record_name = \(shareRecordName) ORDER BY position
            """
        ) {
            let (user, permission, accepted) = try $0.decode((String, String, Bool).self)
            return ParticipantRow(userRecordName: user, permission: ShareParticipantPermission(rawValue: permission) ?? .readOnly, accepted: accepted)
        }
    }

    func setParticipants(zonePK: Int64, shareRecordName: String, _ participants: [ParticipantRow]) async throws {
        try await run("DELETE FROM share_participants WHERE zone_pk = \(zonePK) AND share_record_name = \(shareRecordName)")
        guard !participants.isEmpty else { return }
        let users = participants.map(\.userRecordName)
        let positions = participants.indices.map { Int32($0) }
        let permissions = participants.map(\.permission.rawValue)
        let accepted = participants.map(\.accepted)
        try await run(
            """
            INSERT INTO share_participants
            SELECT \(zonePK), \(shareRecordName), u, p, m, a FROM unnest(\(users)::text[], \(positions)::int4[], \(permissions)::text[], \(accepted)::bool[])
                AS t(u, p, m, a)
            """)
    }

    func ownedShares(container: String, owner: String) async throws -> [(zone: StoredZone, share: ShareRow)] {
        try await all(
            """
            SELECT z.pk, z.container, z.owner, z.name, z.compacted_seq, s.record_name, s.root_record_name
            FROM zones z JOIN shares s ON s.zone_pk = z.pk
            WHERE z.container = \(container) AND z.scope = 'private' AND z.owner = \(owner) ORDER BY z.name, s.root_record_name
            """, Self.zoneAndShare)
    }

    func sharesListing(container: String, participant: String) async throws -> [(zone: StoredZone, share: ShareRow)] {
        try await all(
            """
            SELECT z.pk, z.container, z.owner, z.name, z.compacted_seq, s.record_name, s.root_record_name
            FROM share_participants p
            JOIN shares s ON s.zone_pk = p.zone_pk AND s.record_name = p.share_record_name
            JOIN zones z ON z.pk = p.zone_pk
            WHERE p.user_record_name = \(participant) AND z.container = \(container) ORDER BY z.owner, z.name, s.root_record_name
            """, Self.zoneAndShare)
    }

    func sharedZones(container: String, participant: String) async throws -> [StoredZone] {
        try await all(
            """
            SELECT DISTINCT z.pk, z.container, z.owner, z.name, z.compacted_seq
            FROM share_participants p JOIN zones z ON z.pk = p.zone_pk
            WHERE p.user_record_name = \(participant) AND p.accepted AND z.container = \(container) ORDER BY z.owner, z.name
            """, Self.storedZone)
    }

    func acceptedRoots(zonePK: Int64, participant: String) async throws -> [String: ShareParticipantPermission] {
        var roots: [String: ShareParticipantPermission] = [:]
        let rows = try await all(
            """
            SELECT s.root_record_name, p.permission FROM share_participants p
            JOIN shares s ON s.zone_pk = p.zone_pk AND s.record_name = p.share_record_name
            WHERE p.zone_pk = \(zonePK) AND p.user_record_name = \(participant) AND p.accepted
            """
        ) { try $0.decode((String, String).self) }
        for (root, permission) in rows { roots[root] = ShareParticipantPermission(rawValue: permission) ?? .readOnly }
        return roots
    }

    func acceptedParticipants(zonePK: Int64, roots: Set<String>) async throws -> Set<String> {
        guard !roots.isEmpty else { return [] }
        return Set(
            try await all(
                """
                SELECT DISTINCT p.user_record_name FROM shares s
                JOIN share_participants p ON p.zone_pk = s.zone_pk AND p.share_record_name = s.record_name
                WHERE s.zone_pk = \(zonePK) AND p.accepted AND s.root_record_name = ANY(\(Array(roots)))
                """
            ) { try $0.decode(String.self) })
    }

    func participantsOfZone(zonePK: Int64) async throws -> [String: Bool] {
        var result: [String: Bool] = [:]
        let rows = try await all(
            "SELECT user_record_name, bool_or(accepted) FROM share_participants WHERE zone_pk = \(zonePK) GROUP BY user_record_name"
        ) { try $0.decode((String, Bool).self) }
        for (user, accepted) in rows { result[user] = accepted }
        return result
    }

    // MARK: Views

    func viewEpoch(zonePK: Int64, participant: String) async throws -> Int64 {
        try await first("SELECT epoch FROM share_views WHERE zone_pk = \(zonePK) AND user_record_name = \(participant)") {
            try $0.decode(Int64.self)
        } ?? 0
    }

    func setViewEpoch(zonePK: Int64, participant: String, epoch: Int64) async throws {
        try await run(
            """
            INSERT INTO share_views VALUES (\(zonePK), \(participant), \(epoch))
            ON CONFLICT (zone_pk, user_record_name) DO UPDATE SET epoch = excluded.epoch
            """)
    }

    // MARK: Roots

    func recordLink(zonePK: Int64, name: String) async throws -> RecordLink? {
        try await first("SELECT parent, root, record_type, deleted FROM records WHERE zone_pk = \(zonePK) AND record_name = \(name)") {
            let (parent, root, type, deleted) = try $0.decode((String?, String?, String, Bool).self)
            return RecordLink(parent: parent, root: root, recordType: type, deleted: deleted)
        }
    }

    func setRoot(zonePK: Int64, name: String, root: String) async throws {
        try await run("UPDATE records SET root = \(root) WHERE zone_pk = \(zonePK) AND record_name = \(name)")
    }

    func moveRecord(zonePK: Int64, name: String, root: String, seq: Int64) async throws {
        try await run("UPDATE records SET root = \(root), seq = \(seq) WHERE zone_pk = \(zonePK) AND record_name = \(name)")
    }

    func recordsUnder(zonePK: Int64, root: String) async throws -> [(name: String, parent: String?)] {
        try await all("SELECT record_name, parent FROM records WHERE zone_pk = \(zonePK) AND root = \(root)") {
            let (name, parent) = try $0.decode((String, String?).self)
            return (name: name, parent: parent)
        }
    }

    func allLinks(zonePK: Int64) async throws -> [(name: String, parent: String?, recordType: String)] {
        try await all("SELECT record_name, parent, record_type FROM records WHERE zone_pk = \(zonePK)") {
            let (name, parent, type) = try $0.decode((String, String?, String).self)
            return (name: name, parent: parent, recordType: type)
        }
    }

    func noteRootExit(zonePK: Int64, name: String, oldRoot: String, seq: Int64, now: Int64) async throws {
        try await run(
            """
            INSERT INTO root_exits VALUES (\(zonePK), \(name), \(oldRoot), \(seq), \(now))
            ON CONFLICT (zone_pk, record_name, old_root) DO UPDATE SET seq = excluded.seq, changed_at = excluded.changed_at
            """)
    }

    // MARK: Participants' reads

    func visibleChanges(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool, roots: Set<String>) async throws
        -> [StoredRecord]
    {
        guard !roots.isEmpty else { return [] }
        let list = Array(roots)
        let rows = try await all(
            """
            SELECT \(unescaped: Self.recordSelect) FROM records
            WHERE zone_pk = \(zonePK) AND root = ANY(\(list)) AND seq > \(seq) \(unescaped: includeTombstones ? "" : "AND NOT deleted")
            ORDER BY seq LIMIT \(limit)
            """, Self.storedRecord)
        guard includeTombstones else { return rows }
        // Records that moved out of the participant's roots (and are not back in one): tombstones.
        let exits = try await all(
            """
            SELECT e.record_name, MAX(e.seq) FROM root_exits e
            WHERE e.zone_pk = \(zonePK) AND e.seq > \(seq) AND e.old_root = ANY(\(list))
              AND NOT EXISTS (SELECT 1 FROM records r WHERE r.zone_pk = e.zone_pk AND r.record_name = e.record_name AND r.root = ANY(\(list)))
            GROUP BY e.record_name ORDER BY 2 LIMIT \(limit)
            """
        ) { row -> (name: String, seq: Int64) in let (name, seq) = try row.decode((String, Int64).self); return (name, seq) }
        return StoredRecord.participantPage(rows, exits: exits, zonePK: zonePK, limit: limit)
    }

    func visibleLiveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?, roots: Set<String>) async throws -> [StoredRecord] {
        guard !roots.isEmpty else { return [] }
        return try await all(
            """
            SELECT \(unescaped: Self.recordSelect) FROM records
            WHERE zone_pk = \(zonePK) AND root = ANY(\(Array(roots))) AND record_type = \(recordType)
              AND modified_ts > \(modifiedAfter ?? Int64.min) AND NOT deleted
            """, Self.storedRecord)
    }
}
