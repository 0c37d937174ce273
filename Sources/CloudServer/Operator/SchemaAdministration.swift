import CloudModel
import Foundation

/// The operator's view of the schema, straight on a cloud's storage (its data directory's SQLite, or its PostgreSQL
/// database; a running cloud sees the changes on its next request): `todo server schema show|deploy|index`.
public enum SchemaAdministration {
    /// A schema: record types, each with its fields by name.
    public typealias Types = [String: [String: SchemaField]]

    /// What went wrong, in words for the operator.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The schema of a container environment.
    public static func show(
        dataDirectory: URL, storage: CloudStorage = .sqlite, container: String, environment: String
    ) async throws -> Types {
        let key = try containerKey(container, environment)
        return try await OperatorStore.with(storage, dataDirectory: dataDirectory) { store in
            try await store.read { try await $0.schema(container: key) }
        }
    }

    /// Deploys `development` to `production`: every type and field of development is added to production, with its
    /// index marks; nothing of production is removed, and a field whose type differs between them stops the deploy.
    /// The production schema after it.
    public static func deploy(dataDirectory: URL, storage: CloudStorage = .sqlite, container: String) async throws -> Types {
        let development = try containerKey(container, "development")
        let production = try containerKey(container, "production")
        return try await OperatorStore.with(storage, dataDirectory: dataDirectory) { store in
            try await merge(development, into: production, store: store)
        }
    }

    /// Adds `development`'s types and fields to `production`'s in one transaction (see `deploy`).
    private static func merge(_ development: String, into production: String, store: any CloudStore) async throws -> Types {
        try await store.write { tx -> Types in
            var merged = try await tx.schema(container: production)
            var conflicts: [String] = []
            for (type, fields) in try await tx.schema(container: development) {
                var target = merged[type] ?? [:]
                for (name, field) in fields {
                    if let existing = target[name] {
                        if existing.type != field.type {
                            conflicts.append("\(type).\(name): \(field.type) in development, \(existing.type) in production")
                            continue
                        }
                        target[name] = SchemaField(
                            type: existing.type, queryable: existing.queryable || field.queryable, sortable: existing.sortable || field.sortable)
                    } else {
                        target[name] = field
                    }
                }
                merged[type] = target
            }
            guard conflicts.isEmpty else {
                throw Failure(description: "not deployed; fields typed differently:\n  " + conflicts.sorted().joined(separator: "\n  "))
            }
            try await tx.replaceSchema(container: production, with: merged)
            return merged
        }
    }

    /// Marks a field queryable and/or sortable (nil leaves a mark as it is).
    public static func index(
        dataDirectory: URL, storage: CloudStorage = .sqlite, container: String, environment: String, recordType: String, field: String,
        queryable: Bool?, sortable: Bool?
    ) async throws {
        let key = try containerKey(container, environment)
        let found = try await OperatorStore.with(storage, dataDirectory: dataDirectory) { store in
            try await store.write { tx in
                // A system field no index covers is marked like a field: it enters the type's schema first.
                if let type = Schema.markedSystemFields[field], try await tx.schemaFields(container: key, recordType: recordType)?[field] == nil {
                    guard try await tx.schemaFields(container: key, recordType: recordType) != nil else { return false }
                    try await tx.defineSchemaField(container: key, recordType: recordType, name: field, type: type)
                }
                return try await tx.markSchemaField(container: key, recordType: recordType, name: field, queryable: queryable, sortable: sortable)
            }
        }
        guard found else {
            throw Failure(description: "\(recordType).\(field) is not in the \(environment) schema of \(container) (save a record with it in development first)")
        }
    }

    /// Writes a schema as lines: each type, then its fields with their types and marks.
    public static func describe(_ types: Types) -> String {
        guard !types.isEmpty else { return "(no record types)\n" }
        var text = ""
        for type in types.keys.sorted() {
            text += "\(type)\n"
            for (name, field) in (types[type] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let marks = [field.queryable ? "queryable" : nil, field.sortable ? "sortable" : nil].compactMap { $0 }
                text += "  \(name.padding(toLength: max(name.count, 20), withPad: " ", startingAt: 0)) \(field.type)"
                text += marks.isEmpty ? "\n" : "  (\(marks.joined(separator: ", ")))\n"
            }
        }
        return text
    }

    private static func containerKey(_ container: String, _ environment: String) throws -> String {
        guard Validation.isName(container, maxLength: 128, extra: "._-") else { throw Failure(description: "invalid container name") }
        guard environment == "development" || environment == "production" else {
            throw Failure(description: "environment must be development or production")
        }
        return "\(container)/\(environment)"
    }
}
