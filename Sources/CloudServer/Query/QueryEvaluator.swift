import CloudModel
import Foundation

/// Evaluates a `records/query` (`filterBy`, `sortBy`) over stored records.
struct QueryEvaluator: Sendable {
    private let query: Query
    /// A lower bound on `modifiedTimestamp` the storage can apply before decoding (exclusive, ms).
    let modifiedLowerBound: Int64?

    private static let systemFields: Set<String> = [
        "recordName", "createdTimestamp", "modifiedTimestamp", "createdUserRecordName", "modifiedUserRecordName",
    ]

    init(_ query: Query) throws {
        guard !query.recordType.isEmpty else { throw ServerError(.badRequest, "query.recordType is required") }
        for filter in query.filterBy ?? [] {
            guard (filter.fieldName == nil) != (filter.systemFieldName == nil) else {
                throw ServerError(.badRequest, "each filter names exactly one of fieldName or systemFieldName")
            }
            if let system = filter.systemFieldName, !Self.systemFields.contains(system) {
                throw ServerError(.badRequest, "unknown systemFieldName '\(system)'")
            }
            if filter.comparator == .in || filter.comparator == .notIn, case .list = filter.fieldValue {} else if
                filter.comparator == .in || filter.comparator == .notIn
            {
                throw ServerError(.badRequest, "\(filter.comparator.rawValue) needs a list value")
            }
            switch filter.comparator {
            case .near:
                guard filter.fieldName != nil, QueryLocation(filter.fieldValue) != nil else {
                    throw ServerError(.badRequest, "NEAR compares a LOCATION field with a LOCATION value (latitude and longitude)")
                }
                guard let distance = filter.distance, distance.isFinite, distance > 0 else {
                    throw ServerError(.badRequest, "NEAR needs a distance in meters, above 0")
                }
            case .listContains, .notListContains, .listMemberBeginsWith, .notListMemberBeginsWith:
                guard filter.fieldName != nil else { throw ServerError(.badRequest, "\(filter.comparator.rawValue) needs a fieldName (a list field)") }
                if filter.comparator == .listMemberBeginsWith || filter.comparator == .notListMemberBeginsWith, filter.fieldValue.stringValue == nil {
                    throw ServerError(.badRequest, "\(filter.comparator.rawValue) needs a STRING value")
                }
            default: break
            }
        }
        for sort in query.sortBy ?? [] where (sort.fieldName == nil) == (sort.systemFieldName == nil) {
            throw ServerError(.badRequest, "each sort names exactly one of fieldName or systemFieldName")
        }
        for sort in query.sortBy ?? [] where sort.relativeLocation != nil && sort.fieldName == nil {
            throw ServerError(.badRequest, "a sort by relativeLocation names a LOCATION fieldName")
        }
        self.query = query
        var bound: Int64?
        for filter in query.filterBy ?? [] where filter.systemFieldName == "modifiedTimestamp" {
            guard let value = filter.fieldValue.int64Value else { continue }
            switch filter.comparator {
            case .greaterThan: bound = max(bound ?? .min, value)
            case .greaterThanOrEquals: bound = max(bound ?? .min, value - 1)
            default: break
            }
        }
        modifiedLowerBound = bound
    }

    /// The matching records, sorted (by record name when no sort is given, for stable paging).
    func run(_ records: [StoredRecord], zoneID: ZoneID) throws -> [StoredRecord] {
        var rows: [(stored: StoredRecord, record: Record)] = []
        for stored in records {
            let record = try stored.record(zoneID: zoneID)
            if try matches(record) { rows.append((stored, record)) }
        }
        let sorts = query.sortBy ?? []
        rows.sort { a, b in
            for sort in sorts {
                let left = sortValue(of: a.record, sort)
                let right = sortValue(of: b.record, sort)
                let order = Self.compare(left, right)
                if order != 0 { return (sort.ascending ?? true) ? order < 0 : order > 0 }
            }
            return a.stored.recordName < b.stored.recordName
        }
        return rows.map(\.stored)
    }

    /// Whether a stored record passes every filter.
    func matches(_ stored: StoredRecord, zoneID: ZoneID) throws -> Bool {
        try matches(try stored.record(zoneID: zoneID))
    }

    private func matches(_ record: Record) throws -> Bool {
        for filter in query.filterBy ?? [] {
            let actual = value(of: record, field: filter.fieldName, system: filter.systemFieldName)
            if !Self.test(filter, actual) { return false }
        }
        return true
    }

    /// What a sort orders by: the value, or for `relativeLocation` the distance from it in meters.
    private func sortValue(of record: Record, _ sort: QuerySort) -> FieldValue? {
        let value = value(of: record, field: sort.fieldName, system: sort.systemFieldName)
        guard let origin = sort.relativeLocation else { return value }
        return value.flatMap(QueryLocation.init).map { .double(origin.meters(to: $0)) }
    }

    private func value(of record: Record, field: String?, system: String?) -> FieldValue? {
        if let field { return record.fields?[field] }
        switch system {
        case "recordName": return .string(record.recordName)
        case "createdTimestamp": return record.created.map { .timestamp($0.timestamp) }
        case "modifiedTimestamp": return record.modified.map { .timestamp($0.timestamp) }
        case "createdUserRecordName": return record.created.map { .string($0.userRecordName) }
        case "modifiedUserRecordName": return record.modified.map { .string($0.userRecordName) }
        default: return nil
        }
    }

    /// A comparable key of a value: numbers by value, strings and references by text.
    private static func key(_ value: FieldValue?) -> (rank: Int, number: Double, text: String)? {
        guard let value else { return nil }
        if let number = value.doubleValue { return (0, number, "") }
        if let text = value.stringValue { return (1, 0, text) }
        if let reference = value.referenceValue { return (1, 0, reference.recordName) }
        return nil
    }

    /// -1, 0 or 1; missing values sort last.
    static func compare(_ a: FieldValue?, _ b: FieldValue?) -> Int {
        switch (key(a), key(b)) {
        case (nil, nil): return 0
        case (nil, _): return 1
        case (_, nil): return -1
        case let (x?, y?):
            if x.rank != y.rank { return x.rank < y.rank ? -1 : 1 }
            if x.rank == 0 { return x.number < y.number ? -1 : (x.number > y.number ? 1 : 0) }
            return x.text < y.text ? -1 : (x.text > y.text ? 1 : 0)
        }
    }

    private static func tokens(_ text: String) -> Set<String> {
        Set(text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
    }

    private static func test(_ filter: QueryFilter, _ actual: FieldValue?) -> Bool {
        let (comparator, expected) = (filter.comparator, filter.fieldValue)
        switch comparator {
        case .equals: return actual != nil && compare(actual, expected) == 0
        case .notEquals: return actual == nil || compare(actual, expected) != 0
        case .lessThan: return actual != nil && compare(actual, expected) < 0
        case .lessThanOrEquals: return actual != nil && compare(actual, expected) <= 0
        case .greaterThan: return actual != nil && compare(actual, expected) > 0
        case .greaterThanOrEquals: return actual != nil && compare(actual, expected) >= 0
        case .beginsWith, .notBeginsWith:
            let begins = actual?.stringValue.map { text in expected.stringValue.map(text.hasPrefix) ?? false } ?? false
            return comparator == .beginsWith ? begins : !begins
        case .in, .notIn:
            guard case .list(_, let items) = expected else { return false }
            let found = actual != nil && items.contains { compare(actual, $0) == 0 }
            return comparator == .in ? found : !found
        case .listContains, .notListContains:
            let items: [FieldValue] = if case .list(_, let items)? = actual { items } else { [] }
            let found = items.contains { compare($0, expected) == 0 }
            return comparator == .listContains ? found : !found
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            let items: [FieldValue] = if case .list(_, let items)? = actual { items } else { [] }
            let prefix = expected.stringValue ?? ""
            let found = items.contains { $0.stringValue?.hasPrefix(prefix) ?? false }
            return comparator == .listMemberBeginsWith ? found : !found
        case .near:
            guard let here = actual.flatMap(QueryLocation.init), let there = QueryLocation(expected), let distance = filter.distance else { return false }
            return here.meters(to: there) <= distance
        case .containsAnyTokens, .containsAllTokens:
            guard let text = actual?.stringValue, let wanted = expected.stringValue else { return false }
            let have = tokens(text)
            let want = tokens(wanted)
            return comparator == .containsAnyTokens ? !have.isDisjoint(with: want) : want.isSubset(of: have)
        }
    }
}
