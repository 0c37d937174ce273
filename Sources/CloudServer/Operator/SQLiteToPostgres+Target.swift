import Foundation
import Logging
import NIOCore
import PostgresNIO
import SQLiteDB

/// The PostgreSQL side of `todo server migrate`: the target's tables as PostgreSQL describes them, refusing a
/// database that holds anything, and rows written in multi-row INSERTs, each value converted to its column's type.
struct PostgresMigrationTarget {
    let connection: PostgresConnection
    let logger: Logger

    /// A column of a target table: its name and PostgreSQL type (`information_schema.columns.data_type`).
    struct Column {
        var name: String
        var type: String
    }

    /// The base tables of the current schema, each with its columns.
    func tables() async throws -> [String: [Column]] {
        let rows = try await connection.query(
            """
            SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
            JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position
            """, logger: logger)
        var tables: [String: [Column]] = [:]
        for try await (table, column, type) in rows.decode((String, String, String).self) {
            tables[table, default: []].append(Column(name: column, type: type))
        }
        return tables
    }

    /// Throws unless every table except the migration bookkeeping is empty, naming the first that is not.
    func requireEmpty(_ tables: [String], ignoring bookkeeping: Set<String>) async throws {
        for table in tables.sorted() where !bookkeeping.contains(table) {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(quoted(table)))"), logger: logger)
            for try await holdsRows in rows.decode(Bool.self) where holdsRows {
                throw MigrationError(
                    "the PostgreSQL database is not empty (table \(table) has rows): migrate into a new, empty database")
            }
        }
    }

    /// Takes every table for this transaction alone: an instance started meanwhile waits until the copy commits.
    func lock(_ tables: [String]) async throws {
        guard !tables.isEmpty else { return }
        let list = tables.sorted().map(quoted).joined(separator: ", ")
        try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(list) IN ACCESS EXCLUSIVE MODE"), logger: logger)
    }

    /// Inserts `rows` (values in the order of `columns`) into `table`, whose target columns are `target`.
    func insert(_ rows: [[SQLValue]], into table: String, columns: [String], target: [Column]) async throws {
        guard !rows.isEmpty else { return }
        let types = try columns.map { name -> String in
            guard let column = target.first(where: { $0.name == name }) else {
                throw MigrationError("the PostgreSQL table \(table) has no column \(name): is its schema the one of this version?")
            }
            return column.type
        }
        let perStatement = max(1, 30_000 / max(columns.count, 1))
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            var bindings = PostgresBindings()
            var tuples: [String] = []
            for row in rows[start..<min(start + perStatement, rows.count)] {
                var marks: [String] = []
                for (value, type) in zip(row, types) {
                    try Self.bind(value, as: type, table: table, into: &bindings)
                    marks.append("$\(bindings.count)::\(Self.castName(type))")
                }
                tuples.append("(" + marks.joined(separator: ", ") + ")")
            }
            // OVERRIDING SYSTEM VALUE: zone row keys are identity columns there, and tokens name them, so they are kept.
            let sql =
                "INSERT INTO \(quoted(table)) (\(columns.map(quoted).joined(separator: ", "))) OVERRIDING SYSTEM VALUE VALUES "
                + tuples.joined(separator: ", ")
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        }
    }

    /// Moves every serial (identity or `nextval`-defaulted) column's sequence past the largest value copied, so rows
    /// the PostgreSQL cloud makes later (zones, in particular) never take a copied row's key.
    func advanceSerials(_ tables: [String: [Column]]) async throws {
        for (table, columns) in tables {
            for column in columns where ["bigint", "integer", "smallint"].contains(column.type) {
                let found = try await connection.query(
                    "SELECT pg_get_serial_sequence(\(quoted(table)), \(column.name))", logger: logger)
                for try await sequence in found.decode(String?.self) {
                    guard let sequence else { continue }
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL:
                                "SELECT setval('\(sequence.replacingOccurrences(of: "'", with: "''"))', "
                                + "GREATEST((SELECT max(\(quoted(column.name))) FROM \(quoted(table))), 1))"),
                        logger: logger)
                }
            }
        }
    }

    /// An identifier, quoted for SQL.
    func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The type a placeholder is cast to.
    static func castName(_ type: String) -> String {
        switch type {
        case "character varying": "varchar"
        case "timestamp with time zone": "timestamptz"
        default: type
        }
    }

    /// Appends `value` converted to PostgreSQL `type`; an error names what cannot be converted.
    static func bind(_ value: SQLValue, as type: String, table: String, into bindings: inout PostgresBindings) throws {
        switch (value, type) {
        case (.null, _): bindings.appendNull()
        case (.int(let number), "bigint"), (.int(let number), "integer"), (.int(let number), "smallint"), (.int(let number), "numeric"):
            bindings.append(number)
        case (.int(let number), "boolean"): bindings.append(number != 0)
        case (.int(let number), "text"), (.int(let number), "character varying"): bindings.append(String(number))
        case (.double(let number), "double precision"): bindings.append(number)
        case (.text(let text), "text"), (.text(let text), "character varying"), (.text(let text), "jsonb"), (.text(let text), "json"):
            bindings.append(text)
        case (.blob(let data), "jsonb"), (.blob(let data), "json"), (.blob(let data), "text"):
            guard let text = String(data: data, encoding: .utf8) else {
                throw MigrationError("a value of \(table) is not UTF-8 text, as its PostgreSQL column (\(type)) needs")
            }
            bindings.append(text)
        case (.blob(let data), "bytea"): bindings.append(ByteBuffer(bytes: data))
        case (.text(let text), "bytea"): bindings.append(ByteBuffer(string: text))
        default:
            throw MigrationError("cannot copy a value of \(table) (\(value)) into a PostgreSQL \(type) column")
        }
    }
}
