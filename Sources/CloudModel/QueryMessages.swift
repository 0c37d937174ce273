// Request and response bodies of `records/query`, keyed as CloudKit Web Services spell them.

import Foundation

/// A comparison of a `records/query` filter.
public enum Comparator: String, Sendable, Hashable, Codable, CaseIterable {
    case equals = "EQUALS"
    case notEquals = "NOT_EQUALS"
    case lessThan = "LESS_THAN"
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    case beginsWith = "BEGINS_WITH"
    case notBeginsWith = "NOT_BEGINS_WITH"
    case `in` = "IN"
    case notIn = "NOT_IN"
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    case listContains = "LIST_CONTAINS"
    case notListContains = "NOT_LIST_CONTAINS"
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"
    /// A LOCATION field within `distance` meters of the filter's location.
    case near = "NEAR"
}

/// A point on the globe (a LOCATION value's `latitude` and `longitude`, degrees).
public struct QueryLocation: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    /// A point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The point of a LOCATION value, nil for any other value.
    public init?(_ value: FieldValue) {
        guard case .unknown(_, .object(let object)) = value else { return nil }
        func number(_ key: String) -> Double? {
            switch object[key] {
            case .int(let i)?: Double(i)
            case .double(let d)?: d
            default: nil
            }
        }
        guard let latitude = number("latitude"), let longitude = number("longitude"), abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// Great-circle distance in meters (haversine, mean Earth radius).
    public func meters(to other: QueryLocation) -> Double {
        let radians = Double.pi / 180
        let dLat = (other.latitude - latitude) * radians
        let dLon = (other.longitude - longitude) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(latitude * radians) * cos(other.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * Self.earthRadius * asin(min(1, a.squareRoot()))
    }

    /// The mean radius of the Earth in meters, the sphere distances are measured on.
    public static let earthRadius = 6_371_008.8
}

/// One `filterBy` clause, on a field or a system field.
public struct QueryFilter: Sendable, Hashable, Codable {
    public var comparator: Comparator
    public var fieldName: String?
    /// `recordName`, `createdTimestamp`, `modifiedTimestamp`, `createdUserRecordName`, `modifiedUserRecordName`.
    public var systemFieldName: String?
    public var fieldValue: FieldValue
    /// `NEAR`'s radius, in meters.
    public var distance: Double?

    /// A comparison of a field against a value.
    public init(_ comparator: Comparator, fieldName: String? = nil, systemFieldName: String? = nil, _ value: FieldValue, distance: Double? = nil) {
        self.comparator = comparator
        self.fieldName = fieldName
        self.systemFieldName = systemFieldName
        self.fieldValue = value
        self.distance = distance
    }
}

/// One `sortBy` clause.
public struct QuerySort: Sendable, Hashable, Codable {
    public var fieldName: String?
    public var systemFieldName: String?
    public var ascending: Bool?
    /// Sorts a LOCATION field by its distance from this point (nearest first when ascending).
    public var relativeLocation: QueryLocation?

    /// Sorts by a field or system field.
    public init(fieldName: String? = nil, systemFieldName: String? = nil, ascending: Bool = true, relativeLocation: QueryLocation? = nil) {
        self.fieldName = fieldName
        self.systemFieldName = systemFieldName
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}

/// The `query` of a `records/query` request.
public struct Query: Sendable, Hashable, Codable {
    public var recordType: String
    public var filterBy: [QueryFilter]?
    public var sortBy: [QuerySort]?

    /// A query of a record type with filters and sorts.
    public init(recordType: String, filterBy: [QueryFilter]? = nil, sortBy: [QuerySort]? = nil) {
        self.recordType = recordType
        self.filterBy = filterBy
        self.sortBy = sortBy
    }
}

/// `records/query` request.
public struct QueryRequest: Sendable, Hashable, Codable {
    public var zoneID: ZoneID?
    public var resultsLimit: Int?
    public var query: Query
    public var continuationMarker: String?
    public var desiredKeys: [String]?
    /// Queries every zone of the caller's database (in zone name order) instead of `zoneID`'s.
    public var zoneWide: Bool?
    /// Answers INT64 and TIMESTAMP values as strings (for clients whose numbers lose precision past 2^53).
    public var numbersAsStrings: Bool?

    /// A query in a zone, a page of at most `resultsLimit`.
    public init(query: Query, zoneID: ZoneID? = nil, resultsLimit: Int? = nil, continuationMarker: String? = nil) {
        self.query = query
        self.zoneID = zoneID
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
    }
}

/// `records/query` response.
public struct QueryResponse: Sendable, Hashable, Codable {
    public var records: [Record]
    public var continuationMarker: String?

    /// A page of results and the marker of the next.
    public init(records: [Record], continuationMarker: String?) {
        self.records = records
        self.continuationMarker = continuationMarker
    }
}
