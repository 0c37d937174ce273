import Foundation

/// The SQLite cloud's schema: one migration per version, applied in order and never edited once shipped.
extension SQLiteCloudStore {
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
        locationsMigration,
        locationUpkeepMigration,
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
