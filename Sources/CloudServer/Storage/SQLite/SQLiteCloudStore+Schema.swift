import CloudModel
import Foundation
import SQLiteDB

extension SQLiteCloudStore {
    /// v5: the schema of each container environment: record types and their typed, index-marked fields.
    static let schemaMigration: (name: String, sql: String) = (
        "v5",
        """
        CREATE TABLE schema_types(container TEXT NOT NULL, record_type TEXT NOT NULL, PRIMARY KEY(container, record_type)) WITHOUT ROWID;
        CREATE TABLE schema_fields(
            container TEXT NOT NULL, record_type TEXT NOT NULL, field_name TEXT NOT NULL, field_type TEXT NOT NULL,
            queryable INTEGER NOT NULL DEFAULT 0, sortable INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY(container, record_type, field_name)) WITHOUT ROWID;
        """
    )
}

extension SQLiteStoreTransaction {
    func schemaFields(container: String, recordType: String) throws -> [String: SchemaField]? {
        guard try db.first(
            "SELECT 1 FROM schema_types WHERE container = ?1 AND record_type = ?2", [.text(container), .text(recordType)], { _ in true }) != nil
        else { return nil }
        var fields: [String: SchemaField] = [:]
        for (name, field) in try db.query(
            "SELECT field_name, field_type, queryable, sortable FROM schema_fields WHERE container = ?1 AND record_type = ?2",
            [.text(container), .text(recordType)], { ($0.text(0), SchemaField(type: $0.text(1), queryable: $0.int(2) != 0, sortable: $0.int(3) != 0)) })
        {
            fields[name] = field
        }
        return fields
    }

    func defineSchemaType(container: String, recordType: String) throws {
        try db.run("INSERT OR IGNORE INTO schema_types VALUES (?1, ?2)", [.text(container), .text(recordType)])
    }

    func defineSchemaField(container: String, recordType: String, name: String, type: String) throws {
        try db.run(
            "INSERT OR IGNORE INTO schema_fields(container, record_type, field_name, field_type) VALUES (?1, ?2, ?3, ?4)",
            [.text(container), .text(recordType), .text(name), .text(type)])
    }

    func schema(container: String) throws -> [String: [String: SchemaField]] {
        var types: [String: [String: SchemaField]] = [:]
        for type in try db.query("SELECT record_type FROM schema_types WHERE container = ?1", [.text(container)], { $0.text(0) }) {
            types[type] = try schemaFields(container: container, recordType: type) ?? [:]
        }
        return types
    }

    func replaceSchema(container: String, with types: [String: [String: SchemaField]]) throws {
        try db.run("DELETE FROM schema_fields WHERE container = ?1", [.text(container)])
        try db.run("DELETE FROM schema_types WHERE container = ?1", [.text(container)])
        for (type, fields) in types {
            try defineSchemaType(container: container, recordType: type)
            for (name, field) in fields {
                try db.run(
                    "INSERT INTO schema_fields VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    [.text(container), .text(type), .text(name), .text(field.type), .int(field.queryable ? 1 : 0), .int(field.sortable ? 1 : 0)])
            }
        }
    }

    func markSchemaField(container: String, recordType: String, name: String, queryable: Bool?, sortable: Bool?) throws -> Bool {
        try db.run(
            """
            UPDATE schema_fields SET queryable = COALESCE(?4, queryable), sortable = COALESCE(?5, sortable)
            WHERE container = ?1 AND record_type = ?2 AND field_name = ?3
            """,
            [.text(container), .text(recordType), .text(name), queryable.map { .int($0 ? 1 : 0) } ?? .null, sortable.map { .int($0 ? 1 : 0) } ?? .null])
        return db.changes > 0
    }
}
