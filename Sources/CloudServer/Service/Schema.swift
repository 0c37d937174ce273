import CloudModel
import Foundation

/// One field of a record type in a container environment's schema.
public struct SchemaField: Sendable, Hashable, Codable {
    /// `STRING`, `INT64`, `TIMESTAMP_LIST`, …
    public var type: String
    /// Whether `records/query` may filter on it.
    public var queryable: Bool
    /// Whether `records/query` may sort on it.
    public var sortable: Bool

    /// A field of a type, without index marks unless given.
    public init(type: String, queryable: Bool = false, sortable: Bool = false) {
        self.type = type
        self.queryable = queryable
        self.sortable = sortable
    }
}

/// A container environment's schema: record types and their typed fields.
///
/// In `development` the first save of a record type or field defines it (just in time); in `production` the schema
/// is fixed (it changes only by `todo server schema deploy`), and a record of an unknown type, or with an unknown
/// field, is refused. In both, a value of another type than its field's is refused, and a value sent without a
/// type takes its field's type when its JSON fits it.
enum Schema {
    /// Refuses a query that filters on a field not marked queryable or sorts on one not marked sortable (system
    /// fields always may be used).
    static func checkIndexes(_ query: Query, fields: [String: SchemaField]) throws {
        for filter in query.filterBy ?? [] {
            if let name = filter.fieldName ?? filter.systemFieldName.flatMap(markedSystemField), fields[name]?.queryable != true {
                throw ServerError(
                    .badRequest, "field '\(name.prefix(64))' of '\(query.recordType.prefix(64))' is not marked queryable; mark it with todo server schema index")
            }
        }
        for sort in query.sortBy ?? [] {
            if let name = sort.fieldName ?? sort.systemFieldName.flatMap(markedSystemField), fields[name]?.sortable != true {
                throw ServerError(
                    .badRequest, "field '\(name.prefix(64))' of '\(query.recordType.prefix(64))' is not marked sortable; mark it with todo server schema index")
            }
        }
    }

    /// The system fields a query may use only once marked, as custom fields (no index of ours covers them), and
    /// their types; `recordName` and `modifiedTimestamp` are indexed and always may be used.
    static let markedSystemFields = ["createdTimestamp": "TIMESTAMP", "createdUserRecordName": "STRING", "modifiedUserRecordName": "STRING"]

    private static func markedSystemField(_ name: String) -> String? { markedSystemFields[name] == nil ? nil : name }

    /// Whether a container (`name/environment`) is a production environment, whose schema is fixed.
    static func isProduction(_ container: String) -> Bool { container.hasSuffix("/production") }

    /// Whether records of this type follow the schema (the cloud's own share records do not).
    static func applies(to recordType: String) -> Bool { !recordType.hasPrefix("cloudkit.") }

    /// The type named at the start of a canonical value (`{"type":"T",…}`), nil for a value without one.
    static func canonicalType(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.starts(with: typePrefix) else { return nil }
        let start = bytes.startIndex + typePrefix.count
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// How canonical JSON of a typed value begins; made once, not for every field of every record saved.
    private static let typePrefix = Array(#"{"type":""#.utf8)

    /// Whether canonical JSON `bytes` names exactly `type` (`canonicalType(bytes) == type`), compared as bytes: no
    /// string is made of the type each field of each record names.
    static func names(_ bytes: ArraySlice<UInt8>, type: String) -> Bool {
        var type = type
        return type.withUTF8 { name in
            let prefix = typePrefix.count
            guard bytes.count > prefix + name.count else { return false }
            return bytes.withUnsafeBufferPointer { value in
                typePrefix.withUnsafeBufferPointer { memcmp(value.baseAddress!, $0.baseAddress!, prefix) } == 0
                    && (name.isEmpty || memcmp(value.baseAddress! + prefix, name.baseAddress!, name.count) == 0)
                    && value[prefix + name.count] == UInt8(ascii: "\"")
            }
        }
    }

    /// Whether values of `type` are assets, which a save always resolves (`ASSET`, `ASSETID` and their lists).
    static func isAssetType(_ type: String) -> Bool {
        type.utf8.first == UInt8(ascii: "A") && (AssetValues.isAsset(type) || AssetValues.isAssetList(type))
    }

    /// An untyped value's canonical JSON with the field's type, when its JSON fits that type: an integer is also a
    /// TIMESTAMP or a DOUBLE, a base64 string is also BYTES (lists alike); nil when it does not fit.
    static func retyped(_ bytes: ArraySlice<UInt8>, from given: String, to wanted: String) -> [UInt8]? {
        let scalar = { (type: String) in type.hasSuffix("_LIST") ? String(type.dropLast(5)) : type }
        guard given.hasSuffix("_LIST") == wanted.hasSuffix("_LIST") else { return nil }
        switch (scalar(given), scalar(wanted)) {
        case ("INT64", "TIMESTAMP"), ("INT64", "DOUBLE"):
            break
        case ("STRING", "BYTES"):
            guard let value = try? FieldValue(json: JSONParser.parse(bytes), path: "value") else { return nil }
            let strings: [FieldValue] = if case .list(_, let items) = value { items } else { [value] }
            guard strings.allSatisfy({ $0.stringValue.flatMap { Data(base64Encoded: $0) } != nil }) else { return nil }
        default:
            return nil
        }
        let rest = bytes.dropFirst(#"{"type":""#.utf8.count + given.utf8.count)
        return Array(#"{"type":""#.utf8) + Array(wanted.utf8) + Array(rest)
    }
}

/// The schema as one `records/modify` request sees it: read once per record type, and written through in
/// `development` as saves define types and fields.
final class SchemaSession {
    private let container: String
    private let tx: any StoreTransaction
    private let assets: AssetValues?
    private var types: [String: [String: SchemaField]] = [:]
    /// The record type conformed last and its fields (a request mostly saves one type): found without a lookup; with
    /// them in name order, where a record's fields (sent in name order) are found by walking on, not by hashing each.
    private var lastType: (name: String, fields: [String: SchemaField], inOrder: [(name: String, field: SchemaField)])?

    /// `assets` resolves asset values (nil: none are accepted).
    init(container: String, tx: any StoreTransaction, assets: AssetValues? = nil) {
        self.container = container
        self.tx = tx
        self.assets = assets
    }

    /// How many schema fields past the last one found the walk compares a record's next field with (a todo leaves
    /// out at most five fields in a row).
    static let walkAhead = 8

    /// `fields` as a list in name order.
    private static func inNameOrder(_ fields: [String: SchemaField]) -> [(name: String, field: SchemaField)] {
        fields.map { (name: $0.key, field: $0.value) }.sorted { $0.name < $1.name }
    }

    /// The fields a save sends, conformed to the schema: retyped where untyped values fit their field, new types and
    /// fields defined in `development`; `BAD_REQUEST` for what the schema refuses. Whether anything was retyped.
    func conform(_ fields: EncodedFields, recordType: String) async throws -> (fields: EncodedFields, retyped: Bool) {
        guard Schema.applies(to: recordType) else { return (fields, false) }
        let production = Schema.isProduction(container)
        var known: [String: SchemaField]
        var inOrder: [(name: String, field: SchemaField)] = []
        // Whether `known` is new to the session (read or defined here) and must be kept for the next record.
        var keep = false
        if let last = lastType, last.name == recordType {
            known = last.fields
            inOrder = last.inOrder
        } else if let cached = types[recordType] {
            known = cached
            inOrder = Self.inNameOrder(cached)
            lastType = (recordType, cached, inOrder)
        } else if let stored = try await tx.schemaFields(container: container, recordType: recordType) {
            known = stored
            keep = true
        } else {
            guard !production else {
                throw ServerError(.badRequest, "record type '\(recordType.prefix(64))' is not in the production schema; deploy it first")
            }
            try await tx.defineSchemaType(container: container, recordType: recordType)
            known = [:]
            keep = true
        }
        defer {
            if keep {
                types[recordType] = known
                lastType = (recordType, known, Self.inNameOrder(known))
            }
        }
        // The usual save: every value typed as its field already is (and none an asset, which is always resolved);
        // an untyped value of no CloudKit shape names no type and is typed below.
        // Each field is looked for among the few after where the last one was found (past the fields this record
        // leaves out), and looked up by name only when it is not there (hashing each name was half of this check).
        // The walk is bounded: however many fields the schema holds and in whatever order a sender names them, a
        // field costs at most `walkAhead` comparisons before its lookup.
        var next = 0
        if fields.allFields(satisfy: { name, canonical in
            guard let bytes = canonical else { return true }
            var found: SchemaField?
            for probe in next..<min(next + Self.walkAhead, inOrder.count) where inOrder[probe].name == name {
                found = inOrder[probe].field
                next = probe + 1
                break
            }
            guard let field = found ?? known[name] else { return false }
            return !Schema.isAssetType(field.type) && Schema.names(bytes, type: field.type)
        }) {
            return (fields, false)
        }
        let entries = fields.entries
        var result = EncodedFields()
        var retyped = false
        for entry in entries {
            guard var bytes = entry.canonical else {
                result.appendRemoval(entry.name)
                continue
            }
            var given: String
            if let type = Schema.canonicalType(bytes) {
                given = type
            } else {
                bytes = ArraySlice(try UntypedValues.typed(bytes, known: known[entry.name]?.type, field: entry.name))
                given = Schema.canonicalType(bytes) ?? ""
                retyped = true
            }
            if Schema.isAssetType(given) {
                guard let assets else { throw ServerError(.badRequest, "field '\(entry.name)': assets cannot be saved here") }
                given = AssetValues.isAsset(given) ? "ASSETID" : "ASSETID_LIST"
                bytes = ArraySlice(try await assets.resolve(bytes, field: entry.name, tx: tx))
                retyped = true
            }
            if let field = known[entry.name] {
                if field.type == given {
                    result.append(entry.name, canonical: bytes)
                } else if !entry.typed, let fitted = Schema.retyped(bytes, from: given, to: field.type) {
                    result.append(entry.name, canonical: fitted)
                    retyped = true
                } else {
                    throw ServerError(
                        .badRequest, "field '\(entry.name)' of '\(recordType.prefix(64))' is \(field.type) in the schema, not \(given.prefix(32))")
                }
            } else if production {
                throw ServerError(
                    .badRequest, "field '\(entry.name)' is not in the production schema of '\(recordType.prefix(64))'; deploy it first")
            } else {
                try await tx.defineSchemaField(container: container, recordType: recordType, name: entry.name, type: given)
                known[entry.name] = SchemaField(type: given)
                keep = true
                result.append(entry.name, canonical: bytes)
            }
        }
        return (result, retyped)
    }
}
