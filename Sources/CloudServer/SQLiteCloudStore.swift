import CloudModel
import Foundation
import SQLiteDB

/// The cloud's storage in one SQLite file (WAL) beside the data directory's `assets/` folder.
final class SQLiteCloudStore: CloudStore, @unchecked Sendable {
    /// The data directory: `cloud.sqlite` and the asset files live in it.
    let directory: URL
    /// The connection and its transaction view, used by one transaction at a time (`gate` lets them through one by
    /// one); nil once shut down.
    private var connection: SQLiteStoreTransaction?
    private let gate = TransactionGate()

    /// Opens (creating and migrating) `cloud.sqlite` in `directory`; `migrations` other than all of them only in tests.
    init(directory: URL, migrations: [(name: String, sql: String)] = SQLiteCloudStore.migrations) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("cloud.sqlite").path)
        // WAL with synchronous=NORMAL: a commit survives the process being killed at any moment.
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        // Requests are answered from the WAL; copying it into the file (and its fsync) happens beside them.
        try database.checkpointInBackground()
        try database.migrate(migrations)
        connection = try SQLiteStoreTransaction(database)
    }

    func write<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        try await gate.withTurn {
            let transaction = try openConnection()
            let database = transaction.db
            // Kept prepared (run, not execute): no parsing on every transaction.
            try database.run("BEGIN IMMEDIATE")
            do {
                let value = try await body(transaction)
                try transaction.flushSequence()
                try database.run("COMMIT")
                return value
            } catch {
                try? database.execute("ROLLBACK")
                transaction.discardSequence()
                transaction.shareZoneCache.removeAll()
                throw error
            }
        }
    }

    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        try await gate.withTurn {
            let transaction = try openConnection()
            // Prepared once and kept (run, not execute): every request opens at least one of these.
            try transaction.db.run("BEGIN")
            defer { try? transaction.db.run("COMMIT") }
            return try await body(transaction)
        }
    }

    func shutDown() async {
        // Transactions under way finish first; the connection (and its checkpointer) closes with its last reference.
        try? await gate.withTurn { connection = nil }
    }

    /// The connection, unless the store was shut down.
    private func openConnection() throws -> SQLiteStoreTransaction {
        guard let connection else { throw ServerError(.tryAgainLater, "the cloud's storage is shut down") }
        return connection
    }

    static let migrations: [(name: String, sql: String)] = [
        (
            "v1",
            """
            CREATE TABLE counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO counters VALUES ('seq', 0), ('db_compacted', 0);
            CREATE TABLE users(
                user_record_name TEXT PRIMARY KEY, account TEXT NOT NULL UNIQUE,
                password_hash TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE devices(
                device_id TEXT PRIMARY KEY, user_record_name TEXT NOT NULL, name TEXT NOT NULL,
                created_at INTEGER NOT NULL, UNIQUE(user_record_name, name)) WITHOUT ROWID;
            CREATE TABLE sessions(
                token_digest TEXT PRIMARY KEY, user_record_name TEXT NOT NULL, device_id TEXT NOT NULL,
                created_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE push_tokens(
                token TEXT PRIMARY KEY, container TEXT NOT NULL, user_record_name TEXT, device_id TEXT,
                created_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE INDEX push_tokens_user ON push_tokens(user_record_name, container);
            CREATE TABLE zones(
                pk INTEGER PRIMARY KEY AUTOINCREMENT, container TEXT NOT NULL, scope TEXT NOT NULL,
                owner TEXT NOT NULL, name TEXT NOT NULL, compacted_seq INTEGER NOT NULL DEFAULT 0,
                UNIQUE(container, scope, owner, name));
            CREATE TABLE purged_zones(
                container TEXT NOT NULL, scope TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL,
                PRIMARY KEY(container, scope, owner, name)) WITHOUT ROWID;
            CREATE TABLE records(
                zone_pk INTEGER NOT NULL REFERENCES zones(pk) ON DELETE CASCADE,
                record_name TEXT NOT NULL, record_type TEXT NOT NULL, change_tag TEXT NOT NULL,
                seq INTEGER NOT NULL, deleted INTEGER NOT NULL,
                created_ts INTEGER NOT NULL, created_user TEXT NOT NULL, created_device TEXT,
                modified_ts INTEGER NOT NULL, modified_user TEXT NOT NULL, modified_device TEXT,
                parent TEXT, fields BLOB NOT NULL,
                PRIMARY KEY(zone_pk, record_name)) WITHOUT ROWID;
            CREATE UNIQUE INDEX records_feed ON records(zone_pk, seq);
            CREATE INDEX records_type ON records(zone_pk, record_type, modified_ts);
            CREATE TABLE zone_changes(
                container TEXT NOT NULL, scope TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL,
                kind INTEGER NOT NULL, seq INTEGER NOT NULL, changed_at INTEGER NOT NULL,
                PRIMARY KEY(container, scope, owner, name)) WITHOUT ROWID;
            CREATE INDEX zone_changes_feed ON zone_changes(container, scope, owner, seq);
            CREATE TABLE subscriptions(
                container TEXT NOT NULL, scope TEXT NOT NULL, owner TEXT NOT NULL, subscription_id TEXT NOT NULL,
                body BLOB NOT NULL, PRIMARY KEY(container, scope, owner, subscription_id)) WITHOUT ROWID;
            """
        ),
        sharingMigration,
        recordsBySequence,
        databaseHorizons,
        schemaMigration,
        assetsMigration,
        sessionsMigration,
    ]

    /// v4: each database's feed has its own compaction horizon (one cloud-wide horizon expired every user's tokens
    /// when anyone's deleted-zone entries were compacted). The old cloud-wide value stays as every database's floor.
    static let databaseHorizons: (name: String, sql: String) = (
        "v4",
        """
        CREATE TABLE database_horizons(
            container TEXT NOT NULL, scope TEXT NOT NULL, owner TEXT NOT NULL, compacted_seq INTEGER NOT NULL,
            PRIMARY KEY(container, scope, owner)) WITHOUT ROWID;
        """
    )

    /// v3: records are stored in change-feed order, keyed by (zone, sequence), and found by name through an index.
    ///
    /// Keyed by name, every new record went to a random place of the largest b-tree (UUID-like names), so a write
    /// batch touched pages all over a file far larger than SQLite's cache. Keyed by sequence, new records are
    /// appended at its end; only the small name index takes random inserts; and a change-feed page is one range
    /// of the table instead of an index walk with a lookup per record.
    static let recordsBySequence: (name: String, sql: String) = (
        "v3",
        """
        CREATE TABLE records_v3(
            zone_pk INTEGER NOT NULL REFERENCES zones(pk) ON DELETE CASCADE, seq INTEGER NOT NULL,
            record_name TEXT NOT NULL, record_type TEXT NOT NULL, change_tag TEXT NOT NULL, deleted INTEGER NOT NULL,
            created_ts INTEGER NOT NULL, created_user TEXT NOT NULL, created_device TEXT,
            modified_ts INTEGER NOT NULL, modified_user TEXT NOT NULL, modified_device TEXT,
            parent TEXT, fields BLOB NOT NULL, root TEXT,
            PRIMARY KEY(zone_pk, seq), UNIQUE(zone_pk, record_name)) WITHOUT ROWID;
        INSERT INTO records_v3(
            zone_pk, seq, record_name, record_type, change_tag, deleted, created_ts, created_user, created_device,
            modified_ts, modified_user, modified_device, parent, fields, root)
        SELECT zone_pk, seq, record_name, record_type, change_tag, deleted, created_ts, created_user, created_device,
            modified_ts, modified_user, modified_device, parent, fields, root FROM records;
        DROP TABLE records;
        ALTER TABLE records_v3 RENAME TO records;
        CREATE INDEX records_type ON records(zone_pk, record_type, modified_ts);
        CREATE INDEX records_root ON records(zone_pk, root, seq) WHERE root IS NOT NULL;
        """
    )
}

/// The transaction view of the SQLite store; used by one transaction at a time.
final class SQLiteStoreTransaction: StoreTransaction {
    let db: SQLiteDatabase
    private var sequence: Int64
    private var committedSequence: Int64
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    /// Whether a zone has shares, by zone row: asked on every write, changed only by share writes.
    var shareZoneCache: [Int64: Bool] = [:]

    /// The statements every record write runs, prepared once and kept.
    private let selectRecordStatement: Statement
    private let insertRecordStatement: Statement
    private let replaceRecordStatement: Statement

    init(_ db: SQLiteDatabase) throws {
        self.db = db
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
    }

    func insertRecord(_ r: StoredRecord) throws -> Bool {
        try db.run(insertRecordStatement, Self.arguments(r))
        return db.changes > 0
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
