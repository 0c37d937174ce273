import CloudModel
import Foundation
import SQLiteDB

/// A `records/query` compiled to SQL over the `records` table: its filters as a `WHERE` clause, its sorts as an
/// `ORDER BY` ending with the record name (unique in a zone), and keyset continuation markers that hold the sort
/// key of the last record a page looked at, so the next page starts right after it whatever was written between.
///
/// Missing values sort last in either direction; numbers sort before strings. Token comparators
/// (`CONTAINS_ANY_TOKENS`, `CONTAINS_ALL_TOKENS`) are checked on the rows SQL returns (`residual`).
struct QueryPlan: Sendable {
    /// One term of the order: an SQL expression of a row, and its direction.
    struct Key: Sendable {
        var sql: String
        var ascending: Bool
        /// Whether the expression can be NULL (then a `(sql IS NULL)` term comes before it).
        var nullable: Bool
    }

    /// `AND`-joined conditions (each in parentheses) with their arguments, in order.
    private(set) var conditions: [String] = []
    /// The system column each condition tests, if it tests one.
    private var conditionColumns: [String?] = []
    /// How many of `arguments` each condition takes.
    private var conditionArgumentCounts: [Int] = []
    private(set) var arguments: [SQLValue] = []
    /// The order, record name last.
    private(set) var keys: [Key] = []
    /// The boxes of the `NEAR` filters, searched in the location index (the exact distance is `residual`'s).
    private(set) var locationBoxes: [LocationBox] = []
    /// Filters SQL does not check.
    let residual: QueryEvaluator?
    /// Identifies the query a marker belongs to.
    let fingerprint: String
    /// The record type queried.
    let recordType: String

    static let maxSorts = 4
    static let maxFilters = 16

    init(_ query: Query) throws {
        _ = try QueryEvaluator(query)  // the shape checks
        recordType = query.recordType
        let filters = query.filterBy ?? []
        let sorts = query.sortBy ?? []
        guard filters.count <= Self.maxFilters, sorts.count <= Self.maxSorts else {
            throw ServerError(.badRequest, "at most \(Self.maxFilters) filters and \(Self.maxSorts) sorts in a query")
        }
        let isTokens = { (filter: QueryFilter) in filter.comparator == .containsAnyTokens || filter.comparator == .containsAllTokens }
        // NEAR: the location index narrows to the bounding box, the exact distance is checked on the rows it returns.
        let residualFilters = filters.filter { isTokens($0) || $0.comparator == .near }
        residual = residualFilters.isEmpty ? nil : try QueryEvaluator(Query(recordType: query.recordType, filterBy: residualFilters))
        let encoded = (try? JSONEncoder.sorted.encode(query)) ?? Data()
        fingerprint = String(Self.fnv1a(encoded), radix: 36)
        for filter in filters where !isTokens(filter) { try add(filter) }
        for sort in sorts {
            let (sql, nullable) =
                if let origin = sort.relativeLocation, let field = sort.fieldName {
                    (try Self.distanceOrder(field: field, from: origin), true)
                } else {
                    try Self.expression(field: sort.fieldName, system: sort.systemFieldName)
                }
            keys.append(Key(sql: sql, ascending: sort.ascending ?? true, nullable: nullable))
        }
        keys.append(Key(sql: "record_name", ascending: true, nullable: false))
    }

    /// The SQL of a value of a row: a system column, or a field's value (a reference by its record name; lists
    /// have no order value). Field names are checked to be plain names before they go into the SQL text.
    static func expression(field: String?, system: String?) throws -> (sql: String, nullable: Bool) {
        if let field {
            guard Validation.isName(field, maxLength: 255, extra: "_", letterFirst: true) else {
                throw ServerError(.badRequest, "invalid field name '\(field.prefix(64))'")
            }
            let path = "'$.\(field).value'"
            return (
                "(CASE json_type(fields, \(path)) WHEN 'object' THEN json_extract(fields, '$.\(field).value.recordName') "
                    + "WHEN 'array' THEN NULL ELSE json_extract(fields, \(path)) END)", true
            )
        }
        switch system {
        case "recordName": return ("record_name", false)
        case "createdTimestamp": return ("created_ts", false)
        case "modifiedTimestamp": return ("modified_ts", false)
        case "createdUserRecordName": return ("created_user", false)
        case "modifiedUserRecordName": return ("modified_user", false)
        default: throw ServerError(.badRequest, "unknown systemFieldName '\(system ?? "")'")
        }
    }

    /// A filter value as SQL compares it: numbers as numbers, a reference by its record name.
    static func sqlValue(_ value: FieldValue) -> SQLValue? {
        switch value {
        case .string(let text): .text(text)
        case .int64(let number), .timestamp(let number): .int(number)
        case .double(let number): .double(number)
        case .reference(let reference): .text(reference.recordName)
        case .bytes(let data): .text(data.base64EncodedString())
        case .list, .unknown: nil
        }
    }

    /// The conditions on system columns (which SQL narrows with indexes) and their arguments. After a marker, a
    /// filter on the first key's column keeps SQLite off that column's index range (`+column`), so the marker's
    /// tighter range is the one the index walks.
    func columnConditions(afterMarker: Bool) -> (sql: [String], arguments: [SQLValue]) {
        let first = keys[0].sql
        return selectConditions { index in
            guard let column = conditionColumns[index] else { return nil }
            return afterMarker && !keys[0].nullable && column == first
                ? conditions[index].replacingOccurrences(of: first, with: "+" + first) : conditions[index]
        }
    }

    /// The conditions on fields, as one expression a row is tested with (nil when there are none): no index helps
    /// them, so a page reads rows in order and counts those it looked at.
    var fieldFilter: (sql: String, arguments: [SQLValue])? {
        let (sql, values) = selectConditions { conditionColumns[$0] == nil ? "(\(conditions[$0]))" : nil }
        return sql.isEmpty ? nil : (sql.joined(separator: " AND "), values)
    }

    /// The conditions `pick` words (nil: left out), each with its own arguments, in order.
    private func selectConditions(_ pick: (Int) -> String?) -> (sql: [String], arguments: [SQLValue]) {
        var sql: [String] = []
        var values: [SQLValue] = []
        var offset = 0
        for index in conditions.indices {
            let count = conditionArgumentCounts[index]
            defer { offset += count }
            guard let condition = pick(index) else { continue }
            sql.append(condition)
            values += arguments[offset..<offset + count]
        }
        return (sql, values)
    }

    private mutating func add(_ filter: QueryFilter) throws {
        let (value, _) = try Self.expression(field: filter.fieldName, system: filter.systemFieldName)
        let before = (conditions.count, arguments.count)
        defer {
            if conditions.count > before.0 {
                conditionColumns.append(filter.fieldName == nil ? value : nil)
                conditionArgumentCounts.append(arguments.count - before.1)
            }
        }
        switch filter.comparator {
        case .in, .notIn:
            guard case .list(_, let items) = filter.fieldValue else { throw ServerError(.badRequest, "\(filter.comparator.rawValue) needs a list value") }
            let list = try Self.jsonArray(items)
            conditions.append(
                filter.comparator == .in
                    ? "\(value) IN (SELECT value FROM json_each(?))" : "(\(value) IS NULL OR \(value) NOT IN (SELECT value FROM json_each(?)))")
            arguments.append(.text(list))
        case .listContains:
            guard let field = filter.fieldName else { throw ServerError(.badRequest, "LIST_CONTAINS needs a fieldName") }
            guard let wanted = Self.sqlValue(filter.fieldValue) else { throw ServerError(.badRequest, "LIST_CONTAINS needs a single value") }
            conditions.append(
                "(json_type(fields, '$.\(field).value') = 'array' AND EXISTS (SELECT 1 FROM json_each(fields, '$.\(field).value') e "
                    + "WHERE (CASE e.type WHEN 'object' THEN json_extract(e.value, '$.recordName') ELSE e.value END) = ?))")
            arguments.append(wanted)
        case .beginsWith, .notBeginsWith:
            guard let prefix = filter.fieldValue.stringValue else { throw ServerError(.badRequest, "\(filter.comparator.rawValue) needs a STRING value") }
            let begins = "(typeof(\(value)) = 'text' AND substr(\(value), 1, length(?)) = ?)"
            conditions.append(filter.comparator == .beginsWith ? begins : "NOT \(begins)")
            arguments += [.text(prefix), .text(prefix)]
        case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            guard let wanted = Self.sqlValue(filter.fieldValue) else {
                throw ServerError(.badRequest, "\(filter.comparator.rawValue) needs a single value")
            }
            let op: String =
                switch filter.comparator {
                case .equals: "="
                case .notEquals: "<>"
                case .lessThan: "<"
                case .lessThanOrEquals: "<="
                case .greaterThan: ">"
                default: ">="
                }
            conditions.append(filter.comparator == .notEquals ? "(\(value) IS NULL OR \(value) <> ?)" : "\(value) \(op) ?")
            arguments.append(wanted)
        case .containsAnyTokens, .containsAllTokens:
            break  // residual
        case .notListContains:
            guard let field = filter.fieldName, let wanted = Self.sqlValue(filter.fieldValue) else {
                throw ServerError(.badRequest, "NOT_LIST_CONTAINS needs a fieldName and a single value")
            }
            conditions.append(
                "NOT (json_type(fields, '$.\(field).value') = 'array' AND EXISTS (SELECT 1 FROM json_each(fields, '$.\(field).value') e "
                    + "WHERE (CASE e.type WHEN 'object' THEN json_extract(e.value, '$.recordName') ELSE e.value END) = ?))")
            arguments.append(wanted)
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            guard let field = filter.fieldName, let prefix = filter.fieldValue.stringValue else {
                throw ServerError(.badRequest, "\(filter.comparator.rawValue) needs a fieldName and a STRING value")
            }
            let exists =
                "(json_type(fields, '$.\(field).value') = 'array' AND EXISTS (SELECT 1 FROM json_each(fields, '$.\(field).value') e "
                + "WHERE e.type = 'text' AND substr(e.value, 1, length(?)) = ?))"
            conditions.append(filter.comparator == .listMemberBeginsWith ? exists : "NOT \(exists)")
            arguments += [.text(prefix), .text(prefix)]
        case .near:
            guard let field = filter.fieldName, let center = QueryLocation(filter.fieldValue), let distance = filter.distance else {
                throw ServerError(.badRequest, "NEAR needs a LOCATION fieldName, value and distance")
            }
            guard center.latitude.isFinite, center.longitude.isFinite, distance.isFinite, distance > 0 else {
                throw ServerError(.badRequest, "NEAR needs a finite LOCATION value and a distance above 0")
            }
            let box = LocationBox(field: field, center: center, meters: distance)
            if LocationBox.scansRecords {
                let condition = box.fieldCondition()
                conditions.append(condition.sql)
                arguments += condition.arguments
            } else {
                locationBoxes.append(box)
            }
        }
    }

    /// The SQL of a LOCATION field's latitude and longitude (the name is checked to be a plain name first).
    static func coordinates(_ field: String) -> (latitude: String, longitude: String) {
        ("json_extract(fields, '$.\(field).value.latitude')", "json_extract(fields, '$.\(field).value.longitude')")
    }

    /// An order by distance from `origin`: the haversine of the great-circle angle (sin² of half the latitude
    /// difference plus the cosines' product times sin² of half the longitude difference), which grows with the true
    /// distance everywhere, across the antimeridian and over the poles alike. It uses SQLite's math functions (in
    /// its default builds since 3.35). Numbers are written into the SQL: they are doubles Swift printed, nothing a
    /// client wrote.
    static func distanceOrder(field: String, from origin: QueryLocation) throws -> String {
        guard Validation.isName(field, maxLength: 255, extra: "_", letterFirst: true) else {
            throw ServerError(.badRequest, "invalid field name '\(field.prefix(64))'")
        }
        guard origin.latitude.isFinite, origin.longitude.isFinite else { throw ServerError(.badRequest, "relativeLocation needs latitude and longitude") }
        let (latitude, longitude) = coordinates(field)
        let half = Double.pi / 360  // degrees to radians, halved
        let sinLat = "sin((\(latitude) - (\(origin.latitude))) * \(half))"
        let sinLon = "sin((\(longitude) - (\(origin.longitude))) * \(half))"
        let cosines = "\(cos(origin.latitude * half * 2)) * cos(\(latitude) * \(half * 2))"
        return "(\(sinLat) * \(sinLat) + \(cosines) * \(sinLon) * \(sinLon))"
    }

    private static func jsonArray(_ items: [FieldValue]) throws -> String {
        let values = try items.map { item -> JSONValue in
            switch sqlValue(item) {
            case .text(let text)?: .string(text)
            case .int(let number)?: .int(number)
            case .double(let number)?: .double(number)
            default: throw ServerError(.badRequest, "list filters take single values")
            }
        }
        var writer = JSONWriter(reserving: 64)
        writer.json(.array(values))
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    // MARK: Order and keyset

    /// The columns of the order, NULL markers included, as selected after a row's own columns.
    var keyColumns: [String] {
        keys.flatMap { key in key.nullable ? ["(\(key.sql) IS NULL)", key.sql] : [key.sql] }
    }

    /// `ORDER BY` terms.
    var orderBy: String {
        keys.flatMap { key -> [String] in
            let term = "\(key.sql) \(key.ascending ? "ASC" : "DESC")"
            return key.nullable ? ["(\(key.sql) IS NULL) ASC", term] : [term]
        }.joined(separator: ", ")
    }

    /// The condition "after this key" (the values of `keyColumns` of the last row seen) and its arguments.
    func after(_ position: [SQLValue]) throws -> (sql: String, arguments: [SQLValue]) {
        let columns = keyColumns
        var ascending: [Bool] = []
        for key in keys { ascending += key.nullable ? [true, key.ascending] : [key.ascending] }
        guard position.count == columns.count else {
            throw ServerError(.badRequest, "continuationMarker does not belong to this query")
        }
        var alternatives: [String] = []
        var arguments: [SQLValue] = []
        for index in columns.indices {
            var terms: [String] = []
            for earlier in 0..<index {
                terms.append("\(columns[earlier]) IS ?")
                arguments.append(position[earlier])
            }
            terms.append("\(columns[index]) \(ascending[index] ? ">" : "<") ?")
            arguments.append(position[index])
            alternatives.append("(" + terms.joined(separator: " AND ") + ")")
        }
        var sql = "(" + alternatives.joined(separator: " OR ") + ")"
        // The first key bounds the range too, so an index on it is walked from the marker on.
        if !keys[0].nullable, position[0] != .null {
            sql = "\(columns[0]) \(ascending[0] ? ">=" : "<=") ? AND " + sql
            arguments.insert(position[0], at: 0)
        }
        return (sql, arguments)
    }

    /// A marker naming the query and the key of the last row a page looked at.
    func marker(after position: [SQLValue]) -> String {
        let parts = position.map { value -> String in
            switch value {
            case .null: "n"
            case .int(let number): "i\(number)"
            case .double(let number): "d\(number.bitPattern)"
            case .text(let text): "t" + Data(text.utf8).base64EncodedString()
            case .blob(let data): "b" + data.base64EncodedString()
            }
        }
        return "K" + ([fingerprint] + parts).joined(separator: ".")
    }

    /// The key a marker of this query holds; `BAD_REQUEST` for one of another query or not ours.
    func position(of marker: String) throws -> [SQLValue] {
        let fields = marker.utf8.count <= 64 * 1024 && marker.first == "K" ? marker.dropFirst().split(separator: ".", omittingEmptySubsequences: false) : []
        guard fields.first.map(String.init) == fingerprint else {
            throw ServerError(.badRequest, "continuationMarker is not one this cloud issued for this query")
        }
        return try fields.dropFirst().map { part -> SQLValue in
            let body = part.dropFirst()
            switch part.first {
            case "n": return .null
            case "i": if let number = Int64(body) { return .int(number) }
            case "d": if let bits = UInt64(body) { return .double(Double(bitPattern: bits)) }
            case "t": if let data = Data(base64Encoded: String(body)), let text = String(data: data, encoding: .utf8) { return .text(text) }
            case "b": if let data = Data(base64Encoded: String(body)) { return .blob(data) }
            default: break
            }
            throw ServerError(.badRequest, "continuationMarker is not one this cloud issued")
        }
    }

    private static func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

extension JSONEncoder {
    /// Keys sorted: the same value always encodes to the same bytes.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
