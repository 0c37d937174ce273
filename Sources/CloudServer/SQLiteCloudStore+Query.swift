import CloudModel
import Foundation
import SQLiteDB

extension SQLiteStoreTransaction {
    func queryRecords(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) throws -> [(record: StoredRecord, key: [SQLValue])] {
        if let roots, roots.isEmpty { return [] }
        var conditions = ["zone_pk = ?", "record_type = ?", "deleted = 0"]
        var arguments: [SQLValue] = [.int(zonePK), .text(recordType)]
        if let roots {
            conditions.append("root IN (SELECT value FROM json_each(?))")
            arguments.append(jsonList(roots))
        }
        conditions += plan.conditions(afterMarker: position != nil)
        arguments += plan.arguments
        if let position {
            let after = try plan.after(position)
            conditions.append(after.sql)
            arguments += after.arguments
        }
        let keys = plan.keyColumns
        // Each key column is read with its type, so the marker holds exactly what SQL compared.
        let keySelect = keys.map { "typeof(\($0)), \($0)" }.joined(separator: ", ")
        let sql = """
            SELECT \(Self.recordColumns), \(keySelect) FROM records WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(plan.orderBy) LIMIT ?
            """
        arguments.append(.int(Int64(limit)))
        let first = Int32(Self.recordColumnCount)
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
            return (Self.storedRecord(row), key)
        }
    }
}
