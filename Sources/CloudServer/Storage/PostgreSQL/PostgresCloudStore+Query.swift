import CloudModel
import Foundation
import PostgresNIO
import SQLiteDB

/// `records/query` on PostgreSQL: the live records of the type (under the roots, for a participant) are read in one
/// statement, copied into a scratch in-memory SQLite, and the query runs there through the very code the SQLite store
/// runs (`QueryPlan` compiles to SQLite's SQL: its JSON functions, its typing and order of mixed values), so both stores
/// answer a query, and a continuation marker, identically. The price: each request reads every live record of the type
/// (once: the chunks it asks for share the copy), or with `NEAR` only those in its box.
extension PostgresStoreTransaction {
    func queryRecords(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) async throws -> [(record: StoredRecord?, key: [SQLValue])] {
        if let roots, roots.isEmpty { return [] }
        // NEAR filters narrow the candidates here already, through the location index's B-tree.
        let scratch = try await queryScratch.scratch(zonePK: zonePK, recordType: recordType, roots: roots, boxes: plan.locationBoxes) {
            try await all(Self.candidatesQuery(zonePK: zonePK, recordType: recordType, plan: plan, roots: roots), Self.recordRow)
        }
        return try scratch.query(zonePK: zonePK, recordType: recordType, plan: plan, after: position, roots: roots, limit: limit)
    }
}
