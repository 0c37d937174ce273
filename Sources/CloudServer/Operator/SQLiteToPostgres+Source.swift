import Foundation
import SQLiteDB

/// A table of the cloud as `todo server migrate` copies it: its columns with their SQLite storage class, and the key
/// it is read in order of (pages of rows after the last key seen, so reading stays linear on any size).
struct CloudTable: Sendable {
    /// The storage class a column holds (NULL allowed where `optional`).
    enum Kind: Sendable {
        case integer, text, blob
    }

    /// A column: its name, class, and whether it may be NULL.
    struct Column: Sendable {
        var name: String
        var kind: Kind
        var optional: Bool
    }

    var name: String
    var columns: [Column]
    /// The primary key's columns, in order.
    var key: [String]

    init(_ name: String, key: [String], _ columns: [(String, Kind, Bool)]) {
        self.name = name
        self.key = key
        self.columns = columns.map { Column(name: $0.0, kind: $0.1, optional: $0.2) }
    }

    /// Positions of the key's columns among `columns`.
    var keyPositions: [Int] { key.map { name in columns.firstIndex { $0.name == name }! } }
}

extension CloudTable {
    /// Every table of the SQLite cloud (schema v7) that holds cloud state, parents before the rows that refer to them.
    /// The `counters` table is not among them: its values travel as `SQLiteCloudSource.sequence` and `.compactedFloor`.
    static let all: [CloudTable] = [
        CloudTable("users", key: ["user_record_name"], [
            ("user_record_name", .text, false), ("account", .text, false), ("password_hash", .text, false), ("created_at", .integer, false),
        ]),
        CloudTable("devices", key: ["device_id"], [
            ("device_id", .text, false), ("user_record_name", .text, false), ("name", .text, false), ("created_at", .integer, false),
        ]),
        CloudTable("sessions", key: ["token_digest"], [
            ("token_digest", .text, false), ("user_record_name", .text, false), ("device_id", .text, false),
            ("created_at", .integer, false), ("last_used_at", .integer, false),
        ]),
        CloudTable("push_tokens", key: ["token"], [
            ("token", .text, false), ("container", .text, false), ("user_record_name", .text, true), ("device_id", .text, true),
            ("created_at", .integer, false), ("last_used_at", .integer, false), ("creator_device", .text, true),
        ]),
        CloudTable("zones", key: ["pk"], [
            ("pk", .integer, false), ("container", .text, false), ("scope", .text, false), ("owner", .text, false), ("name", .text, false),
            ("compacted_seq", .integer, false),
        ]),
        CloudTable("purged_zones", key: ["container", "scope", "owner", "name"], [
            ("container", .text, false), ("scope", .text, false), ("owner", .text, false), ("name", .text, false),
        ]),
        CloudTable("records", key: ["zone_pk", "seq"], [
            ("zone_pk", .integer, false), ("seq", .integer, false), ("record_name", .text, false), ("record_type", .text, false),
            ("change_tag", .text, false), ("deleted", .integer, false), ("created_ts", .integer, false), ("created_user", .text, false),
            ("created_device", .text, true), ("modified_ts", .integer, false), ("modified_user", .text, false),
            ("modified_device", .text, true), ("parent", .text, true), ("fields", .blob, false), ("root", .text, true),
        ]),
        CloudTable("zone_changes", key: ["container", "scope", "owner", "name"], [
            ("container", .text, false), ("scope", .text, false), ("owner", .text, false), ("name", .text, false),
            ("kind", .integer, false), ("seq", .integer, false), ("changed_at", .integer, false),
        ]),
        CloudTable("database_horizons", key: ["container", "scope", "owner"], [
            ("container", .text, false), ("scope", .text, false), ("owner", .text, false), ("compacted_seq", .integer, false),
        ]),
        CloudTable("subscriptions", key: ["container", "scope", "owner", "subscription_id"], [
            ("container", .text, false), ("scope", .text, false), ("owner", .text, false), ("subscription_id", .text, false),
            ("body", .blob, false),
        ]),
        CloudTable("shares", key: ["zone_pk", "record_name"], [
            ("zone_pk", .integer, false), ("record_name", .text, false), ("root_record_name", .text, false),
        ]),
        CloudTable("share_participants", key: ["zone_pk", "share_record_name", "user_record_name"], [
            ("zone_pk", .integer, false), ("share_record_name", .text, false), ("user_record_name", .text, false),
            ("position", .integer, false), ("permission", .text, false), ("accepted", .integer, false),
        ]),
        CloudTable("share_views", key: ["zone_pk", "user_record_name"], [
            ("zone_pk", .integer, false), ("user_record_name", .text, false), ("epoch", .integer, false),
        ]),
        CloudTable("root_exits", key: ["zone_pk", "record_name", "old_root"], [
            ("zone_pk", .integer, false), ("record_name", .text, false), ("old_root", .text, false), ("seq", .integer, false),
            ("changed_at", .integer, false),
        ]),
        CloudTable("schema_types", key: ["container", "record_type"], [("container", .text, false), ("record_type", .text, false)]),
        CloudTable("schema_fields", key: ["container", "record_type", "field_name"], [
            ("container", .text, false), ("record_type", .text, false), ("field_name", .text, false), ("field_type", .text, false),
            ("queryable", .integer, false), ("sortable", .integer, false),
        ]),
        CloudTable("asset_uploads", key: ["ticket"], [
            ("ticket", .text, false), ("container", .text, false), ("owner", .text, false), ("created_at", .integer, false),
        ]),
        CloudTable("assets", key: ["id"], [
            ("id", .text, false), ("container", .text, false), ("owner", .text, false), ("size", .integer, false),
            ("checksum", .text, false), ("created_at", .integer, false),
        ]),
        CloudTable("discoverable_users", key: ["container", "user_record_name"], [
            ("container", .text, false), ("user_record_name", .text, false),
        ]),
    ]
}

/// The SQLite cloud `todo server migrate` reads from: its data directory, held under the cloud's own `server.lock` for
/// the whole copy, so a running cloud is refused and none can start meanwhile.
final class SQLiteCloudSource {
    let directory: URL
    private let lock: ServerLockFile
    private let database: SQLiteDatabase

    /// Opens `cloud.sqlite` in `directory`, bringing its schema up to date as `todo server` would on start.
    init(directory: URL) throws {
        let file = directory.appendingPathComponent("cloud.sqlite")
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw MigrationError("\(directory.path) holds no SQLite cloud (no cloud.sqlite)")
        }
        if let running = ServerLockFile.running(in: directory) {
            throw MigrationError(
                "the SQLite cloud in \(directory.path) is running (pid \(running.pid), \(running.url)): stop it first "
                    + "(todo server stop --data-dir \(directory.path))")
        }
        do {
            lock = try ServerLockFile.acquire(in: directory)
        } catch {
            throw MigrationError("the SQLite cloud in \(directory.path) is in use: \(error)")
        }
        do {
            database = try SQLiteDatabase(path: file.path)
            try database.execute("PRAGMA busy_timeout=5000;")
            try database.migrate(SQLiteCloudStore.migrations)
            let version = try database.first("PRAGMA user_version") { $0.int(0) } ?? 0
            guard version == SQLiteCloudStore.migrations.count else {
                throw MigrationError("a newer version of todo wrote it (schema \(version), this one knows \(SQLiteCloudStore.migrations.count))")
            }
        } catch {
            lock.release()
            throw MigrationError("cannot read \(file.path): \(error)")
        }
        self.directory = directory
    }

    /// Gives the data directory back (its `server.lock` released).
    func close() { lock.release() }

    /// The cloud-wide change sequence: every sequence the SQLite cloud handed out is at most this.
    func sequence() throws -> Int64 { try counter("seq") }

    /// The cloud-wide compaction floor of database feeds from before they had horizons of their own (schema v4).
    func compactedFloor() throws -> Int64 { try counter("db_compacted") }

    private func counter(_ name: String) throws -> Int64 {
        try database.first("SELECT value FROM counters WHERE name = ?1", [.text(name)]) { $0.int(0) } ?? 0
    }

    /// How many rows `table` holds.
    func count(_ table: CloudTable) throws -> Int {
        Int(try database.first("SELECT count(*) FROM \(table.name)") { $0.int(0) } ?? 0)
    }

    /// Up to `limit` rows of `table` after the key `after` (from the start when nil), in key order, one value per column.
    func rows(_ table: CloudTable, after: [SQLValue]?, limit: Int) throws -> [[SQLValue]] {
        let columns = table.columns.map(\.name).joined(separator: ", ")
        let key = table.key.joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(table.name)"
        var arguments: [SQLValue] = []
        if let after {
            let marks = after.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
            sql += " WHERE (\(key)) > (\(marks))"
            arguments = after
        }
        sql += " ORDER BY \(key) LIMIT \(limit)"
        return try database.query(sql, arguments) { row in
            table.columns.enumerated().map { index, column -> SQLValue in
                let position = Int32(index)
                if row.isNull(position) { return .null }
                switch column.kind {
                case .integer: return .int(row.int(position))
                case .text: return .text(row.text(position))
                case .blob: return .blob(row.blob(position))
                }
            }
        }
    }

    /// Where an asset's bytes are stored.
    func assetFile(id: String) -> URL { directory.appendingPathComponent("assets").appendingPathComponent(id) }
}

/// Why `todo server migrate` refused or stopped; nothing was committed to the target then.
public struct MigrationError: Error, CustomStringConvertible {
    /// What went wrong, in words for the operator.
    public var description: String
    init(_ description: String) { self.description = description }
}
