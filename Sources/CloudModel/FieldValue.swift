import Foundation

/// What a reference asks the server to do when its target is deleted.
public enum ReferenceAction: String, Sendable, Hashable, Codable {
    case none = "NONE"
    case deleteSelf = "DELETE_SELF"
    case validate = "VALIDATE"
}

/// A pointer to another record (`{recordName, zoneID?, action}`).
public struct Reference: Sendable, Hashable, Codable {
    public var recordName: String
    public var zoneID: ZoneID?
    public var action: ReferenceAction?

    /// A reference to a record, with what its deletion does to the holder.
    public init(recordName: String, zoneID: ZoneID? = nil, action: ReferenceAction? = ReferenceAction.none) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }
}

/// The scalar type names CloudKit gives field values; lists append `_LIST`.
public enum FieldType: String, Sendable, Hashable, Codable, CaseIterable {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case timestamp = "TIMESTAMP"
    case bytes = "BYTES"
    case reference = "REFERENCE"
}

/// A record field's value, encoded as `{"value": …, "type": "STRING"}`.
public enum FieldValue: Sendable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    /// Milliseconds since 1970.
    case timestamp(Int64)
    case bytes(Data)
    case reference(Reference)
    /// A homogeneous list of scalars (`STRING_LIST`, `INT64_LIST`, …).
    case list(FieldType, [FieldValue])
    /// A value of a type this build does not know (asset, location, a newer type), kept verbatim.
    case unknown(type: String?, value: JSONValue)

    /// The wire type name (`STRING`, `INT64_LIST`, …), or nil for an untyped unknown value.
    public var typeName: String? {
        switch self {
        case .string: FieldType.string.rawValue
        case .int64: FieldType.int64.rawValue
        case .double: FieldType.double.rawValue
        case .timestamp: FieldType.timestamp.rawValue
        case .bytes: FieldType.bytes.rawValue
        case .reference: FieldType.reference.rawValue
        case .list(let type, _): type.rawValue + "_LIST"
        case .unknown(let type, _): type
        }
    }

    /// The string, if this is a STRING.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }

    /// The integer of an INT64 or TIMESTAMP.
    public var int64Value: Int64? {
        switch self {
        case .int64(let v), .timestamp(let v): v
        default: nil
        }
    }

    /// A number of any numeric type, for comparisons.
    public var doubleValue: Double? {
        switch self {
        case .int64(let v), .timestamp(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }

    /// The reference, if this is a REFERENCE.
    public var referenceValue: Reference? { if case .reference(let v) = self { v } else { nil } }

    /// The date of a TIMESTAMP.
    public var dateValue: Date? {
        if case .timestamp(let ms) = self { Date(timeIntervalSince1970: Double(ms) / 1000) } else { nil }
    }

    /// A TIMESTAMP for a date, rounded to milliseconds (a date past what 64 bits of milliseconds hold, or NaN, is
    /// taken as the nearest one they hold, never a trap).
    public static func timestamp(_ date: Date) -> FieldValue {
        .timestamp(milliseconds(date))
    }

    /// `date` in milliseconds since 1970, rounded, within `Int64`'s range (NaN: 0).
    public static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        if ms.isNaN { return 0 }
        if ms >= 9.2e18 { return .max }
        if ms <= -9.2e18 { return .min }
        return Int64(ms)
    }
}

extension FieldValue: Codable {
    private enum Keys: String, CodingKey { case value, type }

    public init(from decoder: any Decoder) throws {
        // A bare JSON value without the `{value, type}` wrapper is accepted, as older clients send it.
        guard let keyed = try? decoder.container(keyedBy: Keys.self), keyed.contains(.value) else {
            let raw = try decoder.singleValueContainer().decode(JSONValue.self)
            self = try FieldValue.make(typeName: nil, raw: raw, codingPath: decoder.codingPath)
            return
        }
        let typeName = try keyed.decodeIfPresent(String.self, forKey: .type)
        // The common scalar types decode directly; anything else goes through the general path.
        switch typeName {
        case "STRING":
            if let value = try? keyed.decode(String.self, forKey: .value) { self = .string(value); return }
        case "INT64":
            if let value = try? keyed.decode(Int64.self, forKey: .value) { self = .int64(value); return }
        case "DOUBLE":
            if let value = try? keyed.decode(Double.self, forKey: .value) { self = .double(value); return }
        case "TIMESTAMP":
            if let value = try? keyed.decode(Int64.self, forKey: .value) { self = .timestamp(value); return }
        default:
            break
        }
        let raw = try keyed.decode(JSONValue.self, forKey: .value)
        self = try FieldValue.make(typeName: typeName, raw: raw, codingPath: decoder.codingPath)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(jsonValue, forKey: .value)
        try container.encodeIfPresent(typeName, forKey: .type)
    }

    /// The `value` part as JSON.
    public var jsonValue: JSONValue {
        switch self {
        case .string(let v): return .string(v)
        case .int64(let v), .timestamp(let v): return .int(v)
        case .double(let v): return .double(v)
        case .bytes(let v): return .string(v.base64EncodedString())
        case .reference(let r):
            var object: [String: JSONValue] = ["recordName": .string(r.recordName)]
            if let zone = r.zoneID {
                var z: [String: JSONValue] = ["zoneName": .string(zone.zoneName)]
                if let owner = zone.ownerRecordName { z["ownerRecordName"] = .string(owner) }
                object["zoneID"] = .object(z)
            }
            if let action = r.action { object["action"] = .string(action.rawValue) }
            return .object(object)
        case .list(_, let items): return .array(items.map(\.jsonValue))
        case .unknown(_, let v): return v
        }
    }

    /// Builds a value from its type name and raw JSON; a missing type is inferred from the JSON.
    public static func make(typeName: String?, raw: JSONValue, codingPath: [any CodingKey] = []) throws -> FieldValue {
        func bad(_ what: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: codingPath, debugDescription: what))
        }
        guard let typeName else { return infer(raw) }
        // A null value is how a client asks to remove a field in an update.
        if raw == .null { return .unknown(type: typeName, value: .null) }
        if typeName.hasSuffix("_LIST"), let element = FieldType(rawValue: String(typeName.dropLast(5))) {
            guard case .array(let items) = raw else { throw bad("\(typeName) needs an array value") }
            return .list(element, try items.map { try scalar(element, $0, bad) })
        }
        if let type = FieldType(rawValue: typeName) { return try scalar(type, raw, bad) }
        return .unknown(type: typeName, value: raw)
    }

    private static func scalar(_ type: FieldType, _ raw: JSONValue, _ bad: (String) -> DecodingError) throws -> FieldValue {
        switch (type, raw) {
        case (.string, .string(let s)): return .string(s)
        case (.int64, .int(let i)): return .int64(i)
        case (.int64, .string(let s)): // numbersAsStrings
            guard let i = Int64(s) else { throw bad("INT64 value is not an integer") }
            return .int64(i)
        case (.int64, .bool(let b)): return .int64(b ? 1 : 0)
        case (.double, .double(let d)): return .double(d)
        case (.double, .int(let i)): return .double(Double(i))
        case (.timestamp, .int(let i)): return .timestamp(i)
        case (.timestamp, .double(let d)) where d.isFinite && abs(d) < 9e15: return .timestamp(Int64(d.rounded()))
        case (.bytes, .string(let s)):
            guard let data = Data(base64Encoded: s) else { throw bad("BYTES value is not base64") }
            return .bytes(data)
        case (.reference, .object(let o)):
            guard case .string(let name)? = o["recordName"] else { throw bad("REFERENCE needs a recordName") }
            var zoneID: ZoneID?
            if case .object(let z)? = o["zoneID"], case .string(let zoneName)? = z["zoneName"] {
                var owner: String?
                if case .string(let o)? = z["ownerRecordName"] { owner = o }
                zoneID = ZoneID(zoneName: zoneName, ownerRecordName: owner)
            }
            var action: ReferenceAction?
            if case .string(let a)? = o["action"] {
                guard let known = ReferenceAction(rawValue: a) else { throw bad("unknown reference action \(a)") }
                action = known
            }
            return .reference(Reference(recordName: name, zoneID: zoneID, action: action))
        case (.reference, .string(let name)):
            return .reference(Reference(recordName: name))
        default:
            throw bad("value does not match type \(type.rawValue)")
        }
    }

    private static func infer(_ raw: JSONValue) -> FieldValue {
        switch raw {
        case .string(let s): return .string(s)
        case .int(let i): return .int64(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .int64(b ? 1 : 0)
        case .array(let items):
            let values = items.map(infer)
            if let first = values.first, let name = first.typeName, let type = FieldType(rawValue: name),
                values.allSatisfy({ $0.typeName == name })
            {
                return .list(type, values)
            }
            if values.isEmpty { return .list(.string, []) }
            return .unknown(type: nil, value: raw)
        case .object(let o) where o["recordName"] != nil:
            if let reference = try? scalar(.reference, raw, { .dataCorrupted(.init(codingPath: [], debugDescription: $0)) }) {
                return reference
            }
            return .unknown(type: nil, value: raw)
        default:
            return .unknown(type: nil, value: raw)
        }
    }
}
