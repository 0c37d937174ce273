import CloudModel
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One transaction of the PostgreSQL store on its leased connection: zones, records, feeds, subscriptions, compaction.
/// Statements are bound (binary parameters), never built from values.
final class PostgresStoreTransaction: StoreTransaction {
    let connection: PostgresConnection
    let logger: Logger
    /// The last position handed out per feed in this transaction; its row is locked until COMMIT.
    private var feeds: [FeedKey: Int64] = [:]
    /// Whether a zone has shares, as this transaction found or made it.
    var shareZones: [Int64: Bool] = [:]
    /// Push notices to send at the end of the transaction (see `finish`).
    var notices: [(channel: String, payload: String)] = []
    /// Records this transaction inserted or replaced (see `PostgresStatistics`).
    var recordsWritten = 0
    /// Whether this is a write transaction: a zone it looks up is locked at once, its feed head read with it.
    let writing: Bool
    /// Feed heads of the zones looked up (and locked) by this write transaction, for `nextSequence`.
    private var lockedZoneHeads: [Int64: Int64] = [:]
    /// Feed heads of the databases whose custom zones this write transaction looked up (rows locked with the zone's).
    private var lockedDatabaseHeads: [DatabaseKey: Int64] = [:]
    /// Database feed entries noted and not written yet (the latest per zone), written by `finish` with the counters
    /// or by `flushZoneChanges` before anything reads or deletes that feed.
    private var zoneChanges: [ZoneChangeKey: (kind: ZoneChangeKind, seq: Int64, now: Int64)] = [:]

    /// One zone's entry in its database's feed.
    private struct ZoneChangeKey: Hashable {
        var database: DatabaseKey
        var zoneName: String
    }
    /// The candidates of this transaction's latest `records/query`, copied once per request (see `QueryScratch.Cache`).
    let queryScratch = QueryScratch.Cache()
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()

    init(connection: PostgresConnection, logger: Logger, writing: Bool = false) {
        self.connection = connection
        self.logger = logger
        self.writing = writing
    }

    // MARK: Running statements

    func run(_ query: PostgresQuery) async throws {
        queryScratch.drop()  // a statement without rows may have written
        _ = try await connection.query(query, logger: logger)
    }

    func all<R>(_ query: PostgresQuery, _ read: (PostgresRow) throws -> R) async throws -> [R] {
        var result: [R] = []
        for try await row in try await connection.query(query, logger: logger) { result.append(try read(row)) }
        return result
    }

    func first<R>(_ query: PostgresQuery, _ read: (PostgresRow) throws -> R) async throws -> R? {
        for try await row in try await connection.query(query, logger: logger) { return try read(row) }
        return nil
    }

    /// Whether a statement ending in `RETURNING 1` touched a row.
    func touched(_ query: PostgresQuery) async throws -> Bool {
        try await first(query) { _ in true } ?? false
    }

    // MARK: Feed positions

    func nextSequence(_ feed: FeedKey) async throws -> Int64 {
        if let last = feeds[feed] {
            feeds[feed] = last + 1
            return last + 1
        }
        // Once per transaction and feed: the counter, its row locked until COMMIT (another writer of the feed waits).
        let head: Int64
        switch feed {
        case .zone(let pk):
            if let locked = lockedZoneHeads[pk] {
                head = locked  // read, under the row's lock, when the zone was looked up
            } else {
                guard let value = try await first("SELECT seq FROM zones WHERE pk = \(pk) FOR UPDATE", { try $0.decode(Int64.self) }) else {
                    throw ServerError(.zoneNotFound, "the zone was deleted meanwhile")
                }
                head = value
            }
        case .database(let key):
            if let locked = lockedDatabaseHeads[key] {
                head = locked  // read, under the row's lock, with one of its zones
            } else {
                head = try await first(
                    """
                    INSERT INTO databases(container, scope, owner) VALUES (\(key.container), \(key.scope.rawValue), \(key.owner))
                    ON CONFLICT (container, scope, owner) DO UPDATE SET seq = databases.seq RETURNING seq
                    """, { try $0.decode(Int64.self) }) ?? 0
            }
        }
        feeds[feed] = head + 1
        return head + 1
    }

    /// Writes what the transaction kept for its end, in ONE statement before COMMIT: each feed's counter, and the
    /// notices it carries (`pg_notify`: delivered at COMMIT, dropped by ROLLBACK, as where they were asked).
    func finish() async throws {
        guard !feeds.isEmpty || !notices.isEmpty || !zoneChanges.isEmpty else { return }
        var binds = PostgresBindings()
        func parameter(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String { try binds.placeholder(value) }
        var updates: [String] = []
        if let entries = try zoneChangesInsert(into: &binds) { updates.append(entries) }
        for (feed, last) in feeds {
            switch feed {
            case .zone(let pk):
                updates.append("UPDATE zones SET seq = \(try parameter(last)) WHERE pk = \(try parameter(pk))")
            case .database(let key):
                updates.append(
                    "UPDATE databases SET seq = \(try parameter(last)) WHERE container = \(try parameter(key.container)) "
                        + "AND scope = \(try parameter(key.scope.rawValue)) AND owner = \(try parameter(key.owner))")
            }
        }
        let sends = try notices.map { "pg_notify(\(try parameter($0.channel)), \(try parameter($0.payload)))" }
        // Data-modifying WITH clauses run once, whether or not the SELECT reads them.
        let with = updates.isEmpty ? "" : "WITH " + updates.enumerated().map { "f\($0) AS (\($1))" }.joined(separator: ", ") + " "
        try await run(PostgresQuery(unsafeSQL: with + "SELECT " + (sends.isEmpty ? "1" : sends.joined(separator: ", ")), binds: binds))
        feeds.removeAll()
        notices.removeAll()
        zoneChanges.removeAll()
        // The heads read under lock are written back above: stale from here on.
        lockedZoneHeads.removeAll()
        lockedDatabaseHeads.removeAll()
    }

    /// The INSERT of the noted database feed entries (one row per zone), its values appended to `binds`; nil when
    /// none are noted.
    private func zoneChangesInsert(into binds: inout PostgresBindings) throws -> String? {
        guard !zoneChanges.isEmpty else { return nil }
        func parameter(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String { try binds.placeholder(value) }
        var rows: [String] = []
        for (key, entry) in zoneChanges {
            let database = key.database
            rows.append(
                "(\(try parameter(database.container)), \(try parameter(database.scope.rawValue)), \(try parameter(database.owner)), "
                    + "\(try parameter(key.zoneName)), \(try parameter(Int16(entry.kind.rawValue))), \(try parameter(entry.seq)), "
                    + "\(try parameter(entry.now)))")
        }
        return "INSERT INTO zone_changes VALUES " + rows.joined(separator: ", ")
            + " ON CONFLICT (container, scope, owner, name) DO UPDATE SET kind = excluded.kind, seq = excluded.seq, changed_at = excluded.changed_at"
    }

    /// Writes the noted database feed entries now: before a statement reads or deletes that feed.
    func flushZoneChanges() async throws {
        var binds = PostgresBindings()
        guard let insert = try zoneChangesInsert(into: &binds) else { return }
        try await run(PostgresQuery(unsafeSQL: insert, binds: binds))
        zoneChanges.removeAll()
    }

    // MARK: Zones

    /// In a write transaction the zone's row is locked as it is found (`FOR UPDATE`, as `nextSequence` would lock it
    /// before the first record written there) and its feed head kept; for a custom zone of a private database, whose
    /// writes each add an entry to the database's feed, that feed's row is locked and read with it. Two round trips
    /// less per `records/modify`.
    func zone(_ database: DatabaseKey, name: String) async throws -> StoredZone? {
        if writing, database.scope == .private, name != ZoneID.defaultZoneName,
            let (zone, zoneHead, databaseHead) = try await first(
                """
                SELECT z.pk, z.compacted_seq, EXISTS(SELECT 1 FROM shares WHERE zone_pk = z.pk), z.seq, d.seq
                FROM zones z JOIN databases d ON d.container = z.container AND d.scope = z.scope AND d.owner = z.owner
                WHERE z.container = \(database.container) AND z.scope = \(database.scope.rawValue) AND z.owner = \(database.owner)
                    AND z.name = \(name)
                FOR UPDATE OF z, d
                """, { row -> (StoredZone, Int64, Int64) in
                    let (pk, compacted, shared, zoneHead, databaseHead) = try row.decode((Int64, Int64, Bool, Int64, Int64).self)
                    shareZones[pk] = shared
                    return (StoredZone(pk: pk, database: database, name: name, compactedSeq: compacted), zoneHead, databaseHead)
                })
        {
            // (A feed this transaction already advanced keeps its own count: `nextSequence` asks `feeds` first.)
            lockedZoneHeads[zone.pk] = zoneHead
            lockedDatabaseHeads[database] = databaseHead
            return zone
        }
        // Otherwise (a read, another scope, or a database without its feed row yet): the zone alone.
        let lock = writing ? "FOR UPDATE OF zones" : ""
        return try await first(
            """
            SELECT pk, compacted_seq, EXISTS(SELECT 1 FROM shares WHERE zone_pk = zones.pk), seq FROM zones
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner) AND name = \(name)
            \(unescaped: lock)
            """
        ) {
            let (pk, compacted, shared, head) = try $0.decode((Int64, Int64, Bool, Int64).self)
            // Whether it has shares comes with it: every record write asks (see `zoneHasShares`).
            shareZones[pk] = shared
            if writing { lockedZoneHeads[pk] = head }
            return StoredZone(pk: pk, database: database, name: name, compactedSeq: compacted)
        }
    }

    func zones(_ database: DatabaseKey) async throws -> [StoredZone] {
        try await all(
            """
            SELECT pk, name, compacted_seq FROM zones
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner) ORDER BY name
            """
        ) {
            let (pk, name, compacted) = try $0.decode((Int64, String, Int64).self)
            return StoredZone(pk: pk, database: database, name: name, compactedSeq: compacted)
        }
    }

    func createZone(_ database: DatabaseKey, name: String) async throws -> StoredZone {
        let pk = try await first(
            """
            INSERT INTO zones(container, scope, owner, name) VALUES (\(database.container), \(database.scope.rawValue), \(database.owner), \(name))
            RETURNING pk
            """, { try $0.decode(Int64.self) }) ?? 0
        try await run(
            """
            DELETE FROM purged_zones
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner) AND name = \(name)
            """)
        return StoredZone(pk: pk, database: database, name: name, compactedSeq: 0)
    }

    func deleteZone(_ zone: StoredZone, purged: Bool) async throws {
        // Shares, views and exits go with the zone row (ON DELETE CASCADE); its records are deleted with it (the row
        // deleted first: a writer of the zone, which locks that row, waits, then finds the zone gone).
        try await run(
            "WITH gone AS (DELETE FROM zones WHERE pk = \(zone.pk) RETURNING pk) DELETE FROM records WHERE zone_pk IN (SELECT pk FROM gone)")
        feeds[.zone(pk: zone.pk)] = nil
        shareZones[zone.pk] = nil
        if purged {
            let key = zone.database
            try await run(
                """
                INSERT INTO purged_zones VALUES (\(key.container), \(key.scope.rawValue), \(key.owner), \(zone.name)) ON CONFLICT DO NOTHING
                """)
        }
    }

    func isPurged(_ database: DatabaseKey, name: String) async throws -> Bool {
        try await touched(
            """
            SELECT 1 FROM purged_zones
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner) AND name = \(name)
            """)
    }

    // MARK: Records

    func record(zonePK: Int64, name: String) async throws -> StoredRecord? {
        try await first(
            "SELECT \(unescaped: Self.recordSelect) FROM records WHERE zone_pk = \(zonePK) AND record_name = \(name)", Self.storedRecord)
    }

    func records(zonePK: Int64, names: [String]) async throws -> [String: StoredRecord] {
        guard !names.isEmpty else { return [:] }
        var found: [String: StoredRecord] = [:]
        for record in try await all(
            "SELECT \(unescaped: Self.recordSelect) FROM records WHERE zone_pk = \(zonePK) AND record_name = ANY(\(names))",
            Self.storedRecord)
        {
            found[record.recordName] = record
        }
        return found
    }

    /// Writes a whole record, replacing the row of its name (its computed root is cleared, as a new row has none).
    func putRecord(_ r: StoredRecord) async throws {
        recordsWritten += 1
        try await run(
            """
            INSERT INTO records(\(unescaped: Self.recordColumns)) VALUES (
                \(r.zonePK), \(r.recordName), \(r.recordType), \(r.changeTag), \(r.seq), \(r.deleted), \(r.created.timestamp),
                \(r.created.userRecordName), \(r.created.deviceID), \(r.modified.timestamp), \(r.modified.userRecordName),
                \(r.modified.deviceID), \(r.parent), \(ByteBuffer(bytes: r.fieldsJSON)))
            ON CONFLICT (zone_pk, record_name) DO UPDATE SET
                record_type = excluded.record_type, change_tag = excluded.change_tag, seq = excluded.seq, deleted = excluded.deleted,
                created_ts = excluded.created_ts, created_user = excluded.created_user, created_device = excluded.created_device,
                modified_ts = excluded.modified_ts, modified_user = excluded.modified_user,
                modified_device = excluded.modified_device, parent = excluded.parent, fields = excluded.fields, root = NULL
            """)
    }

    func insertRecord(_ r: StoredRecord) async throws -> Bool {
        try await insertRecords([r]) == [true]
    }

    /// One statement for the whole batch: the columns as arrays, unnested into rows.
    func insertRecords(_ records: [StoredRecord]) async throws -> [Bool] {
        guard !records.isEmpty else { return [] }
        let count = records.count
        recordsWritten += count
        var zones = [Int64](), names = [String](), types = [String](), tags = [String](), seqs = [Int64](), deleted = [Bool]()
        var createdTS = [Int64](), createdUsers = [String](), createdDevices = [String](), createdDeviceNull = [Bool]()
        var modifiedTS = [Int64](), modifiedUsers = [String](), modifiedDevices = [String](), modifiedDeviceNull = [Bool]()
        var parents = [String](), parentNull = [Bool](), fields = [ByteBuffer]()
        zones.reserveCapacity(count)
        fields.reserveCapacity(count)
        for r in records {
            zones.append(r.zonePK)
            names.append(r.recordName)
            types.append(r.recordType)
            tags.append(r.changeTag)
            seqs.append(r.seq)
            deleted.append(r.deleted)
            createdTS.append(r.created.timestamp)
            createdUsers.append(r.created.userRecordName)
            createdDevices.append(r.created.deviceID ?? "")
            createdDeviceNull.append(r.created.deviceID == nil)
            modifiedTS.append(r.modified.timestamp)
            modifiedUsers.append(r.modified.userRecordName)
            modifiedDevices.append(r.modified.deviceID ?? "")
            modifiedDeviceNull.append(r.modified.deviceID == nil)
            parents.append(r.parent ?? "")
            parentNull.append(r.parent == nil)
            fields.append(ByteBuffer(bytes: r.fieldsJSON))
        }
        // Text arrays cannot carry NULL here: a flag per nullable column says which values are absent.
        let written = try await all(
            """
            INSERT INTO records(\(unescaped: Self.recordColumns))
            SELECT z, n, t, g, s, d, cts, cu, CASE WHEN cdn THEN NULL ELSE cd END, mts, mu, CASE WHEN mdn THEN NULL ELSE md END,
                CASE WHEN pn THEN NULL ELSE p END, f
            FROM unnest(
                \(zones)::int8[], \(names)::text[], \(types)::text[], \(tags)::text[], \(seqs)::int8[], \(deleted)::bool[],
                \(createdTS)::int8[], \(createdUsers)::text[], \(createdDevices)::text[], \(createdDeviceNull)::bool[],
                \(modifiedTS)::int8[], \(modifiedUsers)::text[], \(modifiedDevices)::text[], \(modifiedDeviceNull)::bool[],
                \(parents)::text[], \(parentNull)::bool[], \(fields)::bytea[])
                AS u(z, n, t, g, s, d, cts, cu, cd, cdn, mts, mu, md, mdn, p, pn, f)
            ON CONFLICT (zone_pk, record_name) DO NOTHING
            RETURNING zone_pk, record_name
            """
        ) { row -> String in
            let (zone, name) = try row.decode((Int64, String).self)
            return "\(zone)/\(name)"
        }
        let writtenSet = Set(written)
        return records.map { writtenSet.contains("\($0.zonePK)/\($0.recordName)") }
    }

    func removeRecord(zonePK: Int64, name: String) async throws {
        try await run("DELETE FROM records WHERE zone_pk = \(zonePK) AND record_name = \(name)")
    }

    func changes(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool) async throws -> [StoredRecord] {
        if includeTombstones {
            return try await all(
                """
                SELECT \(unescaped: Self.recordSelect) FROM records WHERE zone_pk = \(zonePK) AND seq > \(seq) ORDER BY seq LIMIT \(limit)
                """, Self.storedRecord)
        }
        return try await all(
            """
            SELECT \(unescaped: Self.recordSelect) FROM records WHERE zone_pk = \(zonePK) AND seq > \(seq) AND NOT deleted
            ORDER BY seq LIMIT \(limit)
            """, Self.storedRecord)
    }

    func liveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?) async throws -> [StoredRecord] {
        try await all(
            """
            SELECT \(unescaped: Self.recordSelect) FROM records
            WHERE zone_pk = \(zonePK) AND record_type = \(recordType) AND modified_ts > \(modifiedAfter ?? Int64.min) AND NOT deleted
            """, Self.storedRecord)
    }

    func liveRecordHeads(zonePK: Int64, recordType: String) async throws -> [(parent: String?, count: Int64, seq: Int64)] {
        try await all(
            """
            SELECT parent, COUNT(*), MAX(seq) FROM records WHERE zone_pk = \(zonePK) AND record_type = \(recordType) AND NOT deleted
            GROUP BY parent
            """
        ) {
            let (parent, count, seq) = try $0.decode((String?, Int64, Int64).self)
            return (parent, count, seq)
        }
    }

    /// The last position this transaction handed out in a zone's feed (0: none).
    func ownHead(zonePK: Int64) -> Int64 { feeds[.zone(pk: zonePK)] ?? 0 }

    func latestSequence(zonePK: Int64) async throws -> Int64 {
        // The counter never goes back: compacted tombstones stay counted.
        let committed = try await first("SELECT seq FROM zones WHERE pk = \(zonePK)") { try $0.decode(Int64.self) } ?? 0
        return max(committed, ownHead(zonePK: zonePK))
    }

    // MARK: Database change feed

    /// Kept for `finish` (one statement with the counters before COMMIT: a round trip less per write); a later note of
    /// the same zone replaces it, as the row's upsert would.
    func noteZoneChange(_ database: DatabaseKey, zoneName: String, kind: ZoneChangeKind, seq: Int64, now: Int64) async throws {
        zoneChanges[ZoneChangeKey(database: database, zoneName: zoneName)] = (kind, seq, now)
    }

    func databaseChanges(_ database: DatabaseKey, after seq: Int64, limit: Int) async throws
        -> [(zoneName: String, kind: ZoneChangeKind, seq: Int64)]
    {
        try await flushZoneChanges()
        return try await all(
            """
            SELECT name, kind, seq FROM zone_changes
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner) AND seq > \(seq)
            ORDER BY seq LIMIT \(limit)
            """
        ) {
            let (name, kind, seq) = try $0.decode((String, Int16, Int64).self)
            return (zoneName: name, kind: ZoneChangeKind(rawValue: Int64(kind)) ?? .changed, seq: seq)
        }
    }

    func latestDatabaseSequence(_ database: DatabaseKey) async throws -> Int64 {
        let committed = try await first(
            "SELECT seq FROM databases WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner)"
        ) { try $0.decode(Int64.self) } ?? 0
        return max(committed, feeds[.database(database)] ?? 0)
    }

    func databaseHorizon(_ database: DatabaseKey) async throws -> Int64 {
        try await first(
            """
            SELECT compacted_seq FROM databases
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner = \(database.owner)
            """
        ) { try $0.decode(Int64.self) } ?? 0
    }
}
