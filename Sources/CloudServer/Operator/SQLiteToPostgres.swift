import Foundation
import Logging
import NIOCore
import PostgresNIO
import SQLiteDB

/// How far `todo server migrate` is: rows of one table copied so far.
public struct MigrationProgress: Sendable {
    /// The table being copied (`assets` for the asset files).
    public var table: String
    /// Its rows copied so far.
    public var copied: Int
    /// Its rows in all.
    public var total: Int
}

/// What `todo server migrate` copied.
public struct MigrationSummary: Sendable {
    /// Rows copied, by table.
    public var rows: [String: Int]
    /// Asset files copied.
    public var assets: Int
    /// Asset rows whose file the SQLite cloud no longer had (their downloads failed there too).
    public var missingAssetFiles: [String]
    /// The SQLite cloud's change sequence: every feed of the PostgreSQL cloud continues above it.
    public var sequence: Int64

    /// Rows copied of one table.
    public func count(_ table: String) -> Int { rows[table] ?? 0 }

    /// Rows copied in all.
    public var totalRows: Int { rows.values.reduce(0, +) }
}

/// `todo server migrate`: copies a SQLite cloud into an empty PostgreSQL database in one transaction, keeping every
/// identity a change token or a session names (zone row keys, sequences, horizons, session digests), so devices go on
/// from their tokens and stay signed in.
public enum SQLiteToPostgres {
    /// Rows read from SQLite and written to PostgreSQL at a time.
    static let pageSize = 2000

    /// Copies the SQLite cloud in `directory` into the empty database `configuration` reaches (`target` names it in
    /// messages), after `prepareSchema` brought that database's schema up to date; `progress` hears of every page.
    static func migrate(
        from directory: URL, to configuration: @autoclosure () throws -> PostgresConnection.Configuration, target name: String,
        prepareSchema: (PostgresConnection, Logger) async throws -> Void, progress: @Sendable (MigrationProgress) -> Void
    ) async throws -> MigrationSummary {
        // The copy runs on a thread of its own (its SQLite reads block), and its waits for PostgreSQL come back there.
        let thread = ThreadTaskExecutor(name: "migrate-sqlite")
        defer { thread.stop() }
        return try await withTaskExecutorPreference(thread) {
            try await migrateOnThread(from: directory, to: configuration(), target: name, prepareSchema: prepareSchema, progress: progress)
        }
    }

    /// `migrate`, on the thread it gave.
    private static func migrateOnThread(
        from directory: URL, to configuration: @autoclosure () throws -> PostgresConnection.Configuration, target name: String,
        prepareSchema: (PostgresConnection, Logger) async throws -> Void, progress: @Sendable (MigrationProgress) -> Void
    ) async throws -> MigrationSummary {
        let source = try SQLiteCloudSource(directory: directory)
        defer { source.close() }
        var logger = Logger(label: "cloudtodo.migrate")
        logger.logLevel = .critical
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try configuration(), id: 1, logger: logger)
        } catch {
            throw MigrationError("cannot connect to \(name): \(String(reflecting: error))")
        }
        do {
            try await prepareSchema(connection, logger)
            // One transaction: a copy that fails half-way leaves the database as empty as it found it.
            try await connection.query("BEGIN", logger: logger)
            let summary: MigrationSummary
            do {
                summary = try await copy(from: source, to: PostgresMigrationTarget(connection: connection, logger: logger), progress: progress)
                try await connection.query("COMMIT", logger: logger)
                // The copied tables have no planner statistics yet: without them a feed page scans every later row.
                _ = try? await connection.query("ANALYZE", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
            try await connection.close()
            return summary
        } catch {
            try? await connection.close()
            if error is MigrationError { throw error }
            throw MigrationError("the copy failed and nothing was kept in \(name): \(String(reflecting: error))")
        }
    }

    /// The copy itself, inside the target's transaction.
    static func copy(
        from source: SQLiteCloudSource, to target: PostgresMigrationTarget, progress: @Sendable (MigrationProgress) -> Void
    ) async throws -> MigrationSummary {
        let tables = try await target.tables()
        try await target.lock(Array(tables.keys))
        try await target.requireEmpty(Array(tables.keys), ignoring: ["schema_migrations"])
        var copied: [String: Int] = [:]
        var horizons: [[SQLValue]] = []
        for table in CloudTable.all {
            let total = try source.count(table)
            var after: [SQLValue]?
            var count = 0
            progress(MigrationProgress(table: table.name, copied: 0, total: total))
            while true {
                let rows = try source.rows(table, after: after, limit: pageSize)
                guard let last = rows.last else { break }
                if table.name == "database_horizons" {
                    // PostgreSQL keeps a database feed's horizon on its row in `databases`, beside its counter.
                    horizons += rows
                } else {
                    guard let columns = tables[table.name] else {
                        throw MigrationError("the PostgreSQL database has no table \(table.name): is its schema the one of this version?")
                    }
                    try await target.insert(rows, into: table.name, columns: table.columns.map(\.name), target: columns)
                }
                count += rows.count
                after = table.keyPositions.map { last[$0] }
                progress(MigrationProgress(table: table.name, copied: count, total: total))
            }
            copied[table.name] = count
        }
        let sequence = try source.sequence()
        try await continueFeeds(above: sequence, compactedFloor: try source.compactedFloor(), horizons: horizons, target: target)
        try await target.advanceSerials(tables)
        let (assets, missing) = try await copyAssetFiles(from: source, to: target, progress: progress)
        return MigrationSummary(rows: copied, assets: assets, missingAssetFiles: missing, sequence: sequence)
    }

    /// Every feed of the PostgreSQL cloud counts on from above the SQLite cloud's sequence, so no position a device
    /// holds is handed out again: each zone's counter, and a database row (counter and horizon) for every database a
    /// token can name: each user's private and shared database in every container seen, each public database, and
    /// every database that has zones, feed entries, subscriptions or a horizon.
    static func continueFeeds(
        above sequence: Int64, compactedFloor: Int64, horizons: [[SQLValue]], target: PostgresMigrationTarget
    ) async throws {
        let logger = target.logger
        try await target.connection.query("UPDATE zones SET seq = GREATEST(seq, \(sequence))", logger: logger)
        try await target.connection.query(
            """
            WITH containers AS (
                SELECT container FROM zones UNION SELECT container FROM zone_changes
                UNION SELECT container FROM subscriptions UNION SELECT container FROM schema_types)
            INSERT INTO databases(container, scope, owner, seq, compacted_seq)
            SELECT container, scope, owner, \(sequence), \(compactedFloor) FROM (
                SELECT c.container, s.scope, u.user_record_name AS owner
                    FROM containers c CROSS JOIN (VALUES ('private'), ('shared')) AS s(scope) CROSS JOIN users u
                UNION SELECT container, 'public', \(DatabaseKey.publicOwner) FROM containers
                UNION SELECT container, scope, owner FROM zones
                UNION SELECT container, scope, owner FROM zone_changes
                UNION SELECT container, scope, owner FROM subscriptions) AS every
            ON CONFLICT (container, scope, owner) DO UPDATE SET seq = GREATEST(databases.seq, EXCLUDED.seq),
                compacted_seq = GREATEST(databases.compacted_seq, EXCLUDED.compacted_seq)
            """, logger: logger)
        for row in horizons {
            guard case .text(let container) = row[0], case .text(let scope) = row[1], case .text(let owner) = row[2],
                case .int(let horizon) = row[3]
            else { throw MigrationError("a row of database_horizons is not (container, scope, owner, compacted_seq)") }
            try await target.connection.query(
                """
                INSERT INTO databases(container, scope, owner, seq, compacted_seq)
                VALUES (\(container), \(scope), \(owner), \(sequence), \(max(horizon, compactedFloor)))
                ON CONFLICT (container, scope, owner) DO UPDATE SET compacted_seq = GREATEST(databases.compacted_seq, EXCLUDED.compacted_seq)
                """, logger: logger)
        }
    }

    /// Copies the bytes of every asset into `asset_contents`; the ids of asset rows that had no file.
    static func copyAssetFiles(
        from source: SQLiteCloudSource, to target: PostgresMigrationTarget, progress: @Sendable (MigrationProgress) -> Void
    ) async throws -> (copied: Int, missing: [String]) {
        let assets = CloudTable.all.first { $0.name == "assets" }!
        let total = try source.count(assets)
        var after: [SQLValue]?
        var copied = 0
        var missing: [String] = []
        while case let rows = try source.rows(assets, after: after, limit: 100), let last = rows.last {
            for row in rows {
                guard case .text(let id) = row[0] else { continue }
                guard let bytes = FileManager.default.contents(atPath: source.assetFile(id: id).path) else {
                    missing.append(id)
                    continue
                }
                try await target.connection.query(
                    "INSERT INTO asset_contents(id, bytes) VALUES (\(id), \(ByteBuffer(bytes: bytes)))", logger: target.logger)
                copied += 1
            }
            after = assets.keyPositions.map { last[$0] }
            progress(MigrationProgress(table: "asset files", copied: copied + missing.count, total: total))
        }
        return (copied, missing)
    }
}
