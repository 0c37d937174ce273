import CloudModel
import Foundation
import SQLiteDB

/// The transaction view of the SQLite store; used by one transaction at a time.
final class SQLiteStoreTransaction: StoreTransaction {
    let db: SQLiteDatabase
    private var sequence: Int64
    private var committedSequence: Int64
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    /// Whether a zone has shares, by zone row: asked on every write, changed only by share writes (so only the writer
    /// connection, which makes all of them, keeps it).
    var shareZoneCache: [Int64: Bool] = [:]
    let cachesShareZones: Bool
    /// Whether a zone has entries in the location index, by zone row (see `SQLiteCloudStore+Locations`): a record
    /// without a location costs no look-up there where its zone has none. Kept like `shareZoneCache`.
    var locationZoneCache: [Int64: Bool] = [:]

    /// The statements every record write runs, prepared once and kept.
    private let selectRecordStatement: Statement
    private let insertRecordStatement: Statement
    private let replaceRecordStatement: Statement
    /// The location index's statements (see `SQLiteCloudStore+Locations`), prepared on first use; nil in a file of a
    /// version before the index (as the migration tests write one).
    private var preparedLocationStatements: SQLiteCloudStore.LocationStatements??
    var locationStatements: SQLiteCloudStore.LocationStatements? {
        get throws {
            if let prepared = preparedLocationStatements { return prepared }
            let hasIndex = try db.first("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'record_locations'") { _ in true } ?? false
            let prepared = hasIndex ? try SQLiteCloudStore.LocationStatements(db) : nil
            preparedLocationStatements = .some(prepared)
            return prepared
        }
    }

    /// The view of a connection; `cachesShareZones` only on the writer's.
    init(_ db: SQLiteDatabase, cachesShareZones: Bool = true) throws {
        self.db = db
        self.cachesShareZones = cachesShareZones
        sequence = try db.first("SELECT value FROM counters WHERE name = 'seq'") { $0.int(0) } ?? 0
        committedSequence = sequence
        selectRecordStatement = try db.statement(Self.selectRecordSQL)
        insertRecordStatement = try db.statement(Self.insertRecordSQL)
        replaceRecordStatement = try db.statement(Self.replaceRecordSQL)
    }

    func flushSequence() throws {
        if sequence != committedSequence {
            try db.run("UPDATE counters SET value = ?1 WHERE name = 'seq'", [.int(sequence)])
            committedSequence = sequence
        }
    }

    func discardSequence() { sequence = committedSequence }

    /// One cloud-wide counter serves every feed: with one writer connection, values are handed out in commit order.
    func nextSequence(_ feed: FeedKey) throws -> Int64 {
        sequence += 1
        return sequence
    }

    // MARK: Zones

    private func keyArguments(_ key: DatabaseKey) -> [SQLValue] {
        [.text(key.container), .text(key.scope.rawValue), .text(key.owner)]
    }

    func zone(_ database: DatabaseKey, name: String) throws -> StoredZone? {
        try db.first(
            "SELECT pk, compacted_seq FROM zones WHERE container = ?1 AND scope = ?2 AND owner = ?3 AND name = ?4",
            keyArguments(database) + [.text(name)]
        ) { StoredZone(pk: $0.int(0), database: database, name: name, compactedSeq: $0.int(1)) }
    }

    func zones(_ database: DatabaseKey) throws -> [StoredZone] {
        try db.query(
            "SELECT pk, name, compacted_seq FROM zones WHERE container = ?1 AND scope = ?2 AND owner = ?3 ORDER BY name",
            keyArguments(database)
        ) { StoredZone(pk: $0.int(0), database: database, name: $0.text(1), compactedSeq: $0.int(2)) }
    }

    func createZone(_ database: DatabaseKey, name: String) throws -> StoredZone {
        try db.run("INSERT INTO zones(container, scope, owner, name) VALUES (?1, ?2, ?3, ?4)", keyArguments(database) + [.text(name)])
        let pk = db.lastInsertRowID
        try db.run(
            "DELETE FROM purged_zones WHERE container = ?1 AND scope = ?2 AND owner = ?3 AND name = ?4",
            keyArguments(database) + [.text(name)])
        return StoredZone(pk: pk, database: database, name: name, compactedSeq: 0)
    }

    func deleteZone(_ zone: StoredZone, purged: Bool) throws {
        try db.run("DELETE FROM records WHERE zone_pk = ?1", [.int(zone.pk)])
        if try locationStatements != nil {
            try db.run("DELETE FROM record_locations WHERE zone_pk = ?1", [.int(zone.pk)])
            locationZoneCache[zone.pk] = false
        }
        try db.run("DELETE FROM zones WHERE pk = ?1", [.int(zone.pk)])
        if purged {
            try db.run("INSERT OR IGNORE INTO purged_zones VALUES (?1, ?2, ?3, ?4)", keyArguments(zone.database) + [.text(zone.name)])
        }
    }

    func isPurged(_ database: DatabaseKey, name: String) throws -> Bool {
        try db.first(
            "SELECT 1 FROM purged_zones WHERE container = ?1 AND scope = ?2 AND owner = ?3 AND name = ?4",
            keyArguments(database) + [.text(name)]) { _ in true } ?? false
    }

    // MARK: Records

    /// How many columns `recordColumns` names.
    static let recordColumnCount = 14
    static let recordColumns = """
        zone_pk, record_name, record_type, change_tag, seq, deleted, created_ts, created_user, created_device,
        modified_ts, modified_user, modified_device, parent, fields
        """

    static func storedRecord(_ row: Row) -> StoredRecord {
        StoredRecord(
            zonePK: row.int(0), recordName: row.text(1), recordType: row.text(2), changeTag: row.text(3),
            seq: row.int(4), deleted: row.int(5) != 0,
            created: RecordStamp(timestamp: row.int(6), userRecordName: row.text(7), deviceID: row.optionalText(8)),
            modified: RecordStamp(timestamp: row.int(9), userRecordName: row.text(10), deviceID: row.optionalText(11)),
            parent: row.optionalText(12), fieldsJSON: row.blob(13))
    }

    private static let selectRecordSQL = "SELECT \(recordColumns) FROM records WHERE zone_pk = ?1 AND record_name = ?2"
    private static let recordValues = "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
    private static let replaceRecordSQL = "INSERT OR REPLACE INTO records(\(recordColumns)) VALUES \(recordValues)"
    private static let insertRecordSQL =
        "INSERT INTO records(\(recordColumns)) VALUES \(recordValues) ON CONFLICT(zone_pk, record_name) DO NOTHING"

    func record(zonePK: Int64, name: String) throws -> StoredRecord? {
        try db.first(selectRecordStatement, [.int(zonePK), .text(name)], Self.storedRecord)
    }

    func putRecord(_ r: StoredRecord) throws {
        try db.run(replaceRecordStatement, Self.arguments(r))
        try indexLocations(of: r)
    }

    func insertRecord(_ r: StoredRecord) throws -> Bool {
        try db.run(insertRecordStatement, Self.arguments(r))
        guard db.changes > 0 else { return false }
        try indexLocations(of: r)
        return true
    }

    func records(zonePK: Int64, names: [String]) throws -> [String: StoredRecord] {
        var found: [String: StoredRecord] = [:]
        found.reserveCapacity(names.count)
        for name in names {
            if let record = try db.first(selectRecordStatement, [.int(zonePK), .text(name)], Self.storedRecord) { found[name] = record }
        }
        return found
    }

    func insertRecords(_ records: [StoredRecord]) throws -> [Bool] {
        // One statement run per record: with SQLite in process there is no round trip to save.
        try records.map { try insertRecord($0) }
    }

    /// A record's columns in `recordColumns` order.
    private static func arguments(_ r: StoredRecord) -> [SQLValue] {
        [
            .int(r.zonePK), .text(r.recordName), .text(r.recordType), .text(r.changeTag), .int(r.seq),
            .int(r.deleted ? 1 : 0), .int(r.created.timestamp), .text(r.created.userRecordName),
            r.created.deviceID.map(SQLValue.text) ?? .null, .int(r.modified.timestamp),
            .text(r.modified.userRecordName), r.modified.deviceID.map(SQLValue.text) ?? .null,
            r.parent.map(SQLValue.text) ?? .null, .blob(r.fieldsJSON),
        ]
    }

    func removeRecord(zonePK: Int64, name: String) throws {
        try db.run("DELETE FROM records WHERE zone_pk = ?1 AND record_name = ?2", [.int(zonePK), .text(name)])
        try unindexLocations(zonePK: zonePK, name: name)
    }

    private static let changesSQL = "SELECT \(recordColumns) FROM records WHERE zone_pk = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"
    private static let liveChangesSQL =
        "SELECT \(recordColumns) FROM records WHERE zone_pk = ?1 AND seq > ?2 AND deleted = 0 ORDER BY seq LIMIT ?3"

    func changes(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool) throws -> [StoredRecord] {
        try db.query(includeTombstones ? Self.changesSQL : Self.liveChangesSQL, [.int(zonePK), .int(seq), .int(Int64(limit))], Self.storedRecord)
    }

    func liveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?) throws -> [StoredRecord] {
        try db.query(
            "SELECT \(Self.recordColumns) FROM records WHERE zone_pk = ?1 AND record_type = ?2 AND modified_ts > ?3 AND deleted = 0",
            [.int(zonePK), .text(recordType), .int(modifiedAfter ?? Int64.min)], Self.storedRecord)
    }

    func liveRecordHeads(zonePK: Int64, recordType: String) throws -> [(parent: String?, count: Int64, seq: Int64)] {
        try db.query(
            "SELECT parent, COUNT(*), MAX(seq) FROM records WHERE zone_pk = ?1 AND record_type = ?2 AND deleted = 0 GROUP BY parent",
            [.int(zonePK), .text(recordType)]
        ) { (parent: $0.optionalText(0), count: $0.int(1), seq: $0.int(2)) }
    }

    func latestSequence(zonePK: Int64) throws -> Int64 {
        // Compacted tombstones left the table but not the feed's history: the head never goes back below them.
        try db.first(
            "SELECT MAX(COALESCE((SELECT MAX(seq) FROM records WHERE zone_pk = ?1), 0), COALESCE((SELECT compacted_seq FROM zones WHERE pk = ?1), 0))",
            [.int(zonePK)]
        ) { $0.int(0) } ?? 0
    }

    // MARK: Database change feed

    func noteZoneChange(_ database: DatabaseKey, zoneName: String, kind: ZoneChangeKind, seq: Int64, now: Int64) throws {
        try db.run(
            "INSERT OR REPLACE INTO zone_changes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            keyArguments(database) + [.text(zoneName), .int(kind.rawValue), .int(seq), .int(now)])
    }

    func databaseChanges(_ database: DatabaseKey, after seq: Int64, limit: Int) throws -> [(zoneName: String, kind: ZoneChangeKind, seq: Int64)] {
        try db.query(
            """
            SELECT name, kind, seq FROM zone_changes WHERE container = ?1 AND scope = ?2 AND owner = ?3 AND seq > ?4
            ORDER BY seq LIMIT ?5
            """, keyArguments(database) + [.int(seq), .int(Int64(limit))]
        ) { (zoneName: $0.text(0), kind: ZoneChangeKind(rawValue: $0.int(1)) ?? .changed, seq: $0.int(2)) }
    }

    func latestDatabaseSequence(_ database: DatabaseKey) throws -> Int64 {
        let latest = try db.first(
            "SELECT COALESCE(MAX(seq), 0) FROM zone_changes WHERE container = ?1 AND scope = ?2 AND owner = ?3",
            keyArguments(database)
        ) { $0.int(0) } ?? 0
        return max(latest, try databaseHorizon(database))
    }

    func databaseHorizon(_ database: DatabaseKey) throws -> Int64 {
        try db.first(
            """
            SELECT MAX((SELECT value FROM counters WHERE name = 'db_compacted'), COALESCE((SELECT compacted_seq
                FROM database_horizons WHERE container = ?1 AND scope = ?2 AND owner = ?3), 0))
            """, keyArguments(database)
        ) { $0.int(0) } ?? 0
    }

    // MARK: Subscriptions

    func subscriptions(_ database: DatabaseKey) throws -> [Subscription] {
        try db.query(
            "SELECT body FROM subscriptions WHERE container = ?1 AND scope = ?2 AND owner = ?3 ORDER BY subscription_id",
            keyArguments(database)
        ) { try decoder.decode(Subscription.self, from: $0.blob(0)) }
    }

    func putSubscription(_ database: DatabaseKey, _ subscription: Subscription) throws {
        try db.run(
            "INSERT OR REPLACE INTO subscriptions VALUES (?1, ?2, ?3, ?4, ?5)",
            keyArguments(database) + [.text(subscription.subscriptionID), .blob(try encoder.encode(subscription))])
    }

    func deleteSubscription(_ database: DatabaseKey, id: String) throws -> Bool {
        try db.run(
            "DELETE FROM subscriptions WHERE container = ?1 AND scope = ?2 AND owner = ?3 AND subscription_id = ?4",
            keyArguments(database) + [.text(id)])
        return db.changes > 0
    }

    func subscriptions(container: String, scope: DatabaseScope) throws -> [(owner: String, subscription: Subscription)] {
        try db.query(
            "SELECT owner, body FROM subscriptions WHERE container = ?1 AND scope = ?2",
            [.text(container), .text(scope.rawValue)]
        ) { (owner: $0.text(0), subscription: try decoder.decode(Subscription.self, from: $0.blob(1))) }
    }

    // MARK: Compaction

    func compact(before: Int64) throws {
        try db.run(
            """
            UPDATE zones SET compacted_seq = MAX(compacted_seq, (SELECT MAX(seq) FROM records r
                WHERE r.zone_pk = zones.pk AND r.deleted = 1 AND r.modified_ts < ?1))
            WHERE EXISTS (SELECT 1 FROM records r WHERE r.zone_pk = zones.pk AND r.deleted = 1 AND r.modified_ts < ?1)
            """, [.int(before)])
        try db.run("DELETE FROM records WHERE deleted = 1 AND modified_ts < ?1", [.int(before)])
        try db.run(
            """
            INSERT INTO database_horizons(container, scope, owner, compacted_seq)
            SELECT container, scope, owner, MAX(seq) FROM zone_changes WHERE kind <> 0 AND changed_at < ?1
            GROUP BY container, scope, owner
            ON CONFLICT(container, scope, owner) DO UPDATE SET compacted_seq = MAX(compacted_seq, excluded.compacted_seq)
            """, [.int(before)])
        try db.run("DELETE FROM zone_changes WHERE kind <> 0 AND changed_at < ?1", [.int(before)])
        try compactRootExits(before: before)
    }
}
