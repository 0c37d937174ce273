import Logging
import PostgresNIO

/// The PostgreSQL schema of the cloud, as named migrations applied once, in order, whichever instance starts first.
///
/// It holds what the SQLite schema holds (v1–v7 there), shaped for many writers: each zone row and each database
/// row carries the counter of its change feed (`seq`), taken under that row's lock, so positions of one feed become
/// visible in commit order; the database rows also hold their feed's compaction horizon.
enum PostgresSchema {
    /// The advisory lock key migrations run under: "cloudtodo" in ASCII, as a number.
    static let migrationLock: Int64 = 0x636C_6F75_6474_6F64

    /// Each migration: a name recorded in `schema_migrations`, and its statements (run in one transaction).
    static let migrations: [(name: String, statements: [String])] = [
        ("pg1", initial),
        ("pg2", recordsWithoutZoneKey),
        ("pg3", locations),
    ]

    /// pg2: `records` without its foreign key to `zones`, and without statistics on columns no query filters on.
    ///
    /// The key's check ran once per inserted row (a locking look-up of the zone row through a trigger): 20,000
    /// records took 166–180 ms to insert with it and 92–102 ms without. It guarded nothing the writes do not: every
    /// record write first locks its zone's row (`nextSequence`), and a zone's deletion removes its records in the
    /// same statement (`deleteZone`, `deleteUser`). The statistics of the fields (the widest column), change tags,
    /// devices and parents were computed by every `ANALYZE records` (see `PostgresStatistics`) and never used.
    static let recordsWithoutZoneKey: [String] = [
        "ALTER TABLE records DROP CONSTRAINT records_zone_pk_fkey",
        """
        ALTER TABLE records ALTER COLUMN fields SET STATISTICS 0, ALTER COLUMN change_tag SET STATISTICS 0,
            ALTER COLUMN created_device SET STATISTICS 0, ALTER COLUMN modified_device SET STATISTICS 0,
            ALTER COLUMN parent SET STATISTICS 0
        """,
    ]

    /// Applies the migrations `schema_migrations` does not list yet, in one transaction under an advisory lock: an
    /// instance starting at the same time waits, then finds them applied. Returns the names applied here.
    @discardableResult
    static func migrate(
        _ connection: PostgresConnection, logger: Logger, migrations: [(name: String, statements: [String])] = migrations
    ) async throws -> [String] {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            var applied = Set<String>()
            for try await name in try await connection.query("SELECT name FROM schema_migrations", logger: logger).decode(String.self) {
                applied.insert(name)
            }
            var appliedNow: [String] = []
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_migrations(name) VALUES (\(migration.name))", logger: logger)
                appliedNow.append(migration.name)
            }
            try await connection.query("COMMIT", logger: logger)
            return appliedNow
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// pg1: everything the SQLite cloud had at v7, plus the feed counters and asset bytes.
    static let initial: [String] = [
        """
        CREATE TABLE users(
            user_record_name text PRIMARY KEY, account text NOT NULL UNIQUE, password_hash text NOT NULL, created_at bigint NOT NULL)
        """,
        """
        CREATE TABLE devices(
            device_id text PRIMARY KEY, user_record_name text NOT NULL, name text NOT NULL, created_at bigint NOT NULL,
            UNIQUE(user_record_name, name))
        """,
        """
        CREATE TABLE sessions(
            token_digest text PRIMARY KEY, user_record_name text NOT NULL, device_id text NOT NULL UNIQUE,
            created_at bigint NOT NULL, last_used_at bigint NOT NULL)
        """,
        "CREATE INDEX sessions_user ON sessions(user_record_name)",
        "CREATE INDEX sessions_idle ON sessions(last_used_at)",
        """
        CREATE TABLE push_tokens(
            token text PRIMARY KEY, container text NOT NULL, user_record_name text, device_id text,
            created_at bigint NOT NULL, last_used_at bigint NOT NULL, creator_device text)
        """,
        "CREATE INDEX push_tokens_user ON push_tokens(user_record_name, container)",
        "CREATE INDEX push_tokens_device ON push_tokens(device_id)",
        "CREATE INDEX push_tokens_creator ON push_tokens(creator_device)",
        // A database's zone-change feed: its counter and its compaction horizon.
        """
        CREATE TABLE databases(
            container text NOT NULL, scope text NOT NULL, owner text NOT NULL,
            seq bigint NOT NULL DEFAULT 0, compacted_seq bigint NOT NULL DEFAULT 0, PRIMARY KEY(container, scope, owner))
        """,
        "CREATE INDEX databases_owner ON databases(owner)",
        """
        CREATE TABLE zones(
            pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, container text NOT NULL, scope text NOT NULL,
            owner text NOT NULL, name text NOT NULL, seq bigint NOT NULL DEFAULT 0, compacted_seq bigint NOT NULL DEFAULT 0,
            UNIQUE(container, scope, owner, name))
        """,
        "CREATE INDEX zones_owner ON zones(owner)",
        """
        CREATE TABLE purged_zones(
            container text NOT NULL, scope text NOT NULL, owner text NOT NULL, name text NOT NULL,
            PRIMARY KEY(container, scope, owner, name))
        """,
        """
        CREATE TABLE records(
            zone_pk bigint NOT NULL REFERENCES zones(pk) ON DELETE CASCADE, record_name text NOT NULL, seq bigint NOT NULL,
            record_type text NOT NULL, change_tag text NOT NULL, deleted boolean NOT NULL,
            created_ts bigint NOT NULL, created_user text NOT NULL, created_device text,
            modified_ts bigint NOT NULL, modified_user text NOT NULL, modified_device text,
            parent text, fields bytea NOT NULL, root text,
            PRIMARY KEY(zone_pk, record_name))
        """,
        "CREATE UNIQUE INDEX records_feed ON records(zone_pk, seq)",
        "CREATE INDEX records_type ON records(zone_pk, record_type, modified_ts)",
        "CREATE INDEX records_root ON records(zone_pk, root, seq) WHERE root IS NOT NULL",
        "CREATE INDEX records_tombstones ON records(modified_ts) WHERE deleted",
        """
        CREATE TABLE zone_changes(
            container text NOT NULL, scope text NOT NULL, owner text NOT NULL, name text NOT NULL,
            kind smallint NOT NULL, seq bigint NOT NULL, changed_at bigint NOT NULL, PRIMARY KEY(container, scope, owner, name))
        """,
        "CREATE INDEX zone_changes_feed ON zone_changes(container, scope, owner, seq)",
        "CREATE INDEX zone_changes_owner ON zone_changes(owner)",
        """
        CREATE TABLE subscriptions(
            container text NOT NULL, scope text NOT NULL, owner text NOT NULL, subscription_id text NOT NULL,
            body bytea NOT NULL, PRIMARY KEY(container, scope, owner, subscription_id))
        """,
        "CREATE INDEX subscriptions_owner ON subscriptions(owner)",
        """
        CREATE TABLE shares(
            zone_pk bigint NOT NULL REFERENCES zones(pk) ON DELETE CASCADE, record_name text NOT NULL,
            root_record_name text NOT NULL, PRIMARY KEY(zone_pk, record_name), UNIQUE(zone_pk, root_record_name))
        """,
        """
        CREATE TABLE share_participants(
            zone_pk bigint NOT NULL, share_record_name text NOT NULL, user_record_name text NOT NULL,
            position integer NOT NULL, permission text NOT NULL, accepted boolean NOT NULL,
            PRIMARY KEY(zone_pk, share_record_name, user_record_name),
            FOREIGN KEY(zone_pk, share_record_name) REFERENCES shares(zone_pk, record_name) ON DELETE CASCADE)
        """,
        "CREATE INDEX share_participants_user ON share_participants(user_record_name, zone_pk)",
        """
        CREATE TABLE share_views(
            zone_pk bigint NOT NULL REFERENCES zones(pk) ON DELETE CASCADE, user_record_name text NOT NULL,
            epoch bigint NOT NULL, PRIMARY KEY(zone_pk, user_record_name))
        """,
        "CREATE INDEX share_views_user ON share_views(user_record_name)",
        """
        CREATE TABLE root_exits(
            zone_pk bigint NOT NULL REFERENCES zones(pk) ON DELETE CASCADE, record_name text NOT NULL, old_root text NOT NULL,
            seq bigint NOT NULL, changed_at bigint NOT NULL, PRIMARY KEY(zone_pk, record_name, old_root))
        """,
        "CREATE INDEX root_exits_feed ON root_exits(zone_pk, seq)",
        "CREATE INDEX root_exits_age ON root_exits(changed_at)",
        "CREATE TABLE schema_types(container text NOT NULL, record_type text NOT NULL, PRIMARY KEY(container, record_type))",
        """
        CREATE TABLE schema_fields(
            container text NOT NULL, record_type text NOT NULL, field_name text NOT NULL, field_type text NOT NULL,
            queryable boolean NOT NULL DEFAULT false, sortable boolean NOT NULL DEFAULT false,
            PRIMARY KEY(container, record_type, field_name))
        """,
        """
        CREATE TABLE asset_uploads(
            ticket text PRIMARY KEY, container text NOT NULL, owner text NOT NULL, created_at bigint NOT NULL)
        """,
        "CREATE INDEX asset_uploads_owner ON asset_uploads(owner)",
        """
        CREATE TABLE assets(
            id text PRIMARY KEY, container text NOT NULL, owner text NOT NULL, size bigint NOT NULL, checksum text NOT NULL,
            created_at bigint NOT NULL)
        """,
        "CREATE INDEX assets_owner ON assets(owner)",
        // An asset's bytes, stored before its row (an upload is whole or absent) and removed after it.
        "CREATE TABLE asset_contents(id text PRIMARY KEY, bytes bytea NOT NULL)",
        """
        CREATE TABLE discoverable_users(
            container text NOT NULL, user_record_name text NOT NULL, PRIMARY KEY(container, user_record_name))
        """,
        "CREATE INDEX discoverable_users_user ON discoverable_users(user_record_name)",
    ]
}
