import CloudModel
import Foundation
import PostgresNIO
import SQLiteDB

/// `records/query` on PostgreSQL: the live records of the type (under the roots, for a participant) are read in one
/// statement, copied into a scratch in-memory SQLite, and the query runs there through the very code the SQLite store
/// runs (`QueryPlan` compiles to SQLite's SQL: its JSON functions, its typing and order of mixed values), so both stores
/// answer a query, and a continuation marker, identically. The price: each page reads every live record of the type.
extension PostgresStoreTransaction {
    func queryRecords(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) async throws -> [(record: StoredRecord?, key: [SQLValue])] {
        if let roots, roots.isEmpty { return [] }
        let candidates: [(record: StoredRecord, root: String?)]
        let read = { (row: PostgresRow) throws -> (record: StoredRecord, root: String?) in
            (try Self.storedRecord(row), try row.makeRandomAccess()[14].decode(String?.self))
        }
        if let roots {
            candidates = try await all(
                """
                SELECT \(unescaped: Self.recordColumns), root FROM records
                WHERE zone_pk = \(zonePK) AND record_type = \(recordType) AND NOT deleted AND root = ANY(\(Array(roots)))
                """, read)
        } else {
            candidates = try await all(
                """
                SELECT \(unescaped: Self.recordColumns), root FROM records
                WHERE zone_pk = \(zonePK) AND record_type = \(recordType) AND NOT deleted
                """, read)
        }
        return try QueryScratch(candidates).query(zonePK: zonePK, recordType: recordType, plan: plan, after: position, roots: roots, limit: limit)
    }
}

/// An in-memory SQLite holding a query's candidate records, in the SQLite store's schema.
private struct QueryScratch {
    let transaction: SQLiteStoreTransaction

    init(_ candidates: [(record: StoredRecord, root: String?)]) throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.migrate(SQLiteCloudStore.migrations)
        try database.execute("BEGIN")
        let insert = try database.statement(
            """
            INSERT INTO records(
                zone_pk, record_name, record_type, change_tag, seq, deleted, created_ts, created_user, created_device,
                modified_ts, modified_user, modified_device, parent, fields, root)
            VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
            """)
        for (r, root) in candidates {
            try database.run(
                insert,
                [
                    .int(r.zonePK), .text(r.recordName), .text(r.recordType), .text(r.changeTag), .int(r.seq),
                    .int(r.created.timestamp), .text(r.created.userRecordName), r.created.deviceID.map(SQLValue.text) ?? .null,
                    .int(r.modified.timestamp), .text(r.modified.userRecordName), r.modified.deviceID.map(SQLValue.text) ?? .null,
                    r.parent.map(SQLValue.text) ?? .null, .blob(r.fieldsJSON), root.map(SQLValue.text) ?? .null,
                ])
        }
        try database.execute("COMMIT")
        transaction = try SQLiteStoreTransaction(database)
    }

    func query(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) throws -> [(record: StoredRecord?, key: [SQLValue])] {
        try transaction.queryRecords(zonePK: zonePK, recordType: recordType, plan: plan, after: position, roots: roots, limit: limit)
    }
}
