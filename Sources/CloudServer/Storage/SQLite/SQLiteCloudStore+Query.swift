import CloudModel
import Foundation
import SQLiteDB

extension SQLiteStoreTransaction {
    func queryRecords(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) throws -> [(record: StoredRecord?, key: [SQLValue])] {
        if let roots, roots.isEmpty { return [] }
        let (sql, arguments) = try querySQL(zonePK: zonePK, recordType: recordType, plan: plan, after: position, roots: roots, limit: limit)
        let keys = plan.keyColumns
        let matchColumn = Int32(Self.recordColumnCount)
        let first = matchColumn + 1
        return try db.query(sql, arguments) { row in
            let key = (0..<Int32(keys.count)).map { index -> SQLValue in
                let column = first + 2 * index + 1
                switch row.text(first + 2 * index) {
                case "integer": return .int(row.int(column))
                case "real": return .double(row.double(column))
                case "text": return .text(row.text(column))
                case "blob": return .blob(row.blob(column))
                default: return .null
                }
            }
            // A row the field filters refuse is only a position: its columns are not copied.
            return (row.int(matchColumn) != 0 ? Self.storedRecord(row) : nil, key)
        }
    }

    /// The statement of one chunk of a query and its arguments (tests read its `EXPLAIN QUERY PLAN`).
    func querySQL(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) throws -> (sql: String, arguments: [SQLValue]) {
        // SELECT's arguments come first: `?` are numbered in the order they appear.
        var arguments: [SQLValue] = []
        var matches = "1"
        if let filter = plan.fieldFilter {
            matches = filter.sql
            arguments += filter.arguments
        }
        var conditions = ["zone_pk = ?", "record_type = ?", "deleted = 0"]
        arguments += [.int(zonePK), .text(recordType)]
        // NEAR: the location index's box, so only the records in it are read.
        let boxes = plan.locationConditions(zonePK: zonePK)
        conditions += boxes.sql
        arguments += boxes.arguments
        if let roots {
            conditions.append("root IN (SELECT value FROM json_each(?))")
            arguments.append(jsonList(roots))
        }
        let columns = plan.columnConditions(afterMarker: position != nil)
        conditions += columns.sql
        arguments += columns.arguments
        if let position {
            let after = try plan.after(position)
            conditions.append(after.sql)
            arguments += after.arguments
        }
        let keys = plan.keyColumns
        // Each key column is read with its type, so the marker holds exactly what SQL compared.
        let keySelect = keys.map { "typeof(\($0)), \($0)" }.joined(separator: ", ")
        let sql = """
            SELECT \(Self.recordColumns), (\(matches)) IS 1, \(keySelect) FROM records WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(plan.orderBy) LIMIT ?
            """
        arguments.append(.int(Int64(limit)))
        return (sql, arguments)
    }
}
