@testable import CloudModel
import Foundation

/// Helpers the JSON conformance suite and the differential fuzz share.
enum JSONTestSupport {
    /// The tree parser's reading of `bytes`, or nil when it refuses them.
    static func tree(_ bytes: [UInt8]) -> JSONValue? { try? JSONParser.parse(bytes) }

    /// The pull reader's reading of `bytes`, or nil when it refuses them: containers through `readObject` and
    /// `readArray`, strings through `readString`, scalars through `readValue`, and the end through `read`'s check,
    /// so its own bookkeeping (depth, commas, the end of input) is what is tested, not the tree parser's.
    static func pull(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONReader.read(bytes) { reader in try pullValue(&reader) }
    }

    private static func pullValue(_ reader: inout JSONReader) throws -> JSONValue {
        switch reader.next {
        case UInt8(ascii: "{"):
            var object: [String: JSONValue] = [:]
            try reader.readObject(at: "$") { reader, key in object[key.string] = try pullValue(&reader) }
            return .object(object)
        case UInt8(ascii: "["):
            var array: [JSONValue] = []
            try reader.readArray(at: "$") { reader, _ in array.append(try pullValue(&reader)) }
            return .array(array)
        case UInt8(ascii: "\""):
            return .string(try reader.readString(at: "$") ?? "")
        default:
            return try reader.readValue()
        }
    }

    /// Equality with nothing glossed over: doubles by bit pattern (so -0.0 is not 0.0), strings and keys by their
    /// UTF-8 bytes (Swift's `==` treats canonically equivalent strings as equal).
    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.null?, .null?): return true
        case (.bool(let x)?, .bool(let y)?): return x == y
        case (.int(let x)?, .int(let y)?): return x == y
        case (.double(let x)?, .double(let y)?): return x.bitPattern == y.bitPattern
        case (.string(let x)?, .string(let y)?): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x)?, .array(let y)?): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x)?, .object(let y)?):
            let left = Dictionary(x.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
            let right = Dictionary(y.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
            return left.count == right.count && left.allSatisfy { key, value in right[key].map { same(value, $0) } ?? false }
        default: return false
        }
    }

    /// Foundation's `JSONSerialization` reading of `bytes` (top-level scalars allowed) in our value shape, or nil
    /// when it refuses them. Its integers beyond Int64 (UInt64, or NSDecimalNumber past that) become the nearest
    /// double, as ours do; its booleans are the NSNumbers whose type is `c`.
    static func foundation(_ bytes: [UInt8]) -> JSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return nil }
        return normalised(object)
    }

    private static func normalised(_ object: Any) -> JSONValue? {
        switch object {
        case is NSNull: return .null
        case let text as String: return .string(text)
        case let decimal as NSDecimalNumber: return Double(decimal.description).map(JSONValue.double)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c": return .bool(number.boolValue)
            case "d", "f": return .double(number.doubleValue)
            case "Q": return .double(Double(number.uint64Value))
            default: return .int(number.int64Value)
            }
        case let array as [Any]:
            var items: [JSONValue] = []
            for item in array {
                guard let value = normalised(item) else { return nil }
                items.append(value)
            }
            return .array(items)
        case let dictionary as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, item) in dictionary {
                guard let value = normalised(item) else { return nil }
                members[key] = value
            }
            return .object(members)
        default: return nil
        }
    }

    /// `bytes` as readable text for a failure message: printable ASCII as is, anything else as `\xNN`.
    static func shown(_ bytes: [UInt8]) -> String {
        bytes.prefix(300).map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
    }
}
