import CloudModel
import Foundation
import SQLiteDB

/// An in-memory SQLite holding a query's candidate records, in the SQLite store's schema: stores that do not speak
/// SQLite's SQL (PostgreSQL, memory) run `records/query` through the very code the SQLite store runs (`QueryPlan`
/// compiles to SQLite's SQL: its JSON functions, its typing and order of mixed values), so every store answers a
/// query, and a continuation marker, identically.
struct QueryScratch {
    let transaction: SQLiteStoreTransaction

    init(_ candidates: [(record: StoredRecord, root: String?)]) throws {
        let database = try SQLiteDatabase(path: ":memory:")
        for statement in try Self.tables.get() { try database.execute(statement) }
        let transaction = try SQLiteStoreTransaction(database)
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
            try transaction.indexLocations(of: r)
        }
        try database.execute("COMMIT")
        self.transaction = transaction
    }

    /// The DDL of the tables a query reads (`records` with its location index, which the inserts above keep, and
    /// `counters` the transaction view starts from), tables before their indexes, as the
    /// SQLite store's migrations leave them: taken once per process from a migrated database, so each scratch is made
    /// in a few statements, not by running every migration again.
    private static let tables = Result { () throws -> [String] in
        let migrated = try SQLiteDatabase(path: ":memory:")
        try migrated.migrate(SQLiteCloudStore.migrations)
        return try migrated.query(
            """
            SELECT sql FROM sqlite_master WHERE tbl_name IN ('records', 'counters', 'record_locations') AND sql IS NOT NULL
            ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name
            """
        ) { $0.text(0) } + ["INSERT INTO counters VALUES ('seq', 0)"]
    }

    /// The scratch of one transaction's latest query candidates: a `records/query` request asks for its rows a chunk
    /// at a time, and within one transaction (one snapshot) the candidates do not change, so they are copied once per
    /// request rather than once per chunk. A store drops it on any write of its transaction.
    final class Cache {
        private var key: (zonePK: Int64, recordType: String, roots: Set<String>?, boxes: [LocationBox])?
        private var scratch: QueryScratch?

        /// The scratch for these candidates: the one made last if it was for the same zone, type, roots and location
        /// boxes (which a store may narrow its candidates to), else a new one of what `candidates` reads.
        func scratch(
            zonePK: Int64, recordType: String, roots: Set<String>?, boxes: [LocationBox] = [],
            _ candidates: () async throws -> [(record: StoredRecord, root: String?)]
        ) async throws -> QueryScratch {
            if let key, let scratch, key.zonePK == zonePK, key.recordType == recordType, key.roots == roots, key.boxes == boxes {
                return scratch
            }
            let made = try QueryScratch(try await candidates())
            key = (zonePK, recordType, roots, boxes)
            scratch = made
            return made
        }

        /// Forgets the scratch (the transaction wrote).
        func drop() {
            key = nil
            scratch = nil
        }
    }

    func query(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) throws -> [(record: StoredRecord?, key: [SQLValue])] {
        try transaction.queryRecords(zonePK: zonePK, recordType: recordType, plan: plan, after: position, roots: roots, limit: limit)
    }
}
