import Foundation

/// Builds JSON by appending bytes: the fast path for records, where `JSONEncoder` is too slow.
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    public init(reserving capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// Makes room for `count` more bytes at once, so appending them does not grow the buffer step by step.
    public mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    /// Appends literal JSON text.
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends JSON bytes verbatim.
    public mutating func raw(_ data: Data) { data.withUnsafeBytes { bytes.append(contentsOf: $0) } }

    /// Appends JSON bytes verbatim.
    public mutating func raw(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    /// Appends JSON bytes verbatim.
    public mutating func raw(_ other: ArraySlice<UInt8>) { bytes.append(contentsOf: other) }

    /// Appends JSON bytes verbatim.
    public mutating func raw(_ buffer: UnsafeRawBufferPointer) { bytes.append(contentsOf: buffer) }

    /// Appends an integer.
    public mutating func int(_ value: Int64) { Self.appendDecimal(value, to: &bytes) }

    /// Appends the decimal digits of `value` (with `-` when negative), as `String(value)` spells them.
    public static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: room for 20 digits
        var magnitude = value.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[32 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                count += 1
                buffer[32 - count] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(32 - count)...]))
        }
    }

    /// Appends `true` or `false`.
    public mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// A JSON string literal, escaped by `appendString(_:to:)`.
    public mutating func string(_ value: String) { Self.appendString(value, to: &bytes) }

    /// Appends `value` as a JSON string literal: the project's one JSON string escaper, writing exactly what
    /// Foundation's `JSONEncoder` writes (with `.withoutEscapingSlashes`). It escapes only what RFC 8259 requires:
    /// `\"`, `\\`, `\b` `\t` `\n` `\f` `\r`, and the other C0 controls as `\u00xx` (lower-case hex). Everything else,
    /// DEL (U+007F), C1 controls and U+2028/U+2029 included, is copied as its UTF-8 bytes; escaping characters that a
    /// terminal would act on is the display's job (`escapingTerminalControls(inJSON:)`), not JSON's.
    public static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(0x22)
        var utf8 = value.utf8
        // Fast path: nothing to escape, copy the bytes whole (checked and copied from the same buffer).
        let clean = utf8.withContiguousStorageIfAvailable { buffer in
            guard !buffer.contains(where: needsEscape) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if clean == true {
            bytes.append(0x22)
            return
        }
        if clean == nil {
            var copy = value
            copy.makeContiguousUTF8()
            utf8 = copy.utf8
        }
        for byte in utf8 {
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }

    /// Whether a byte of a string's UTF-8 must be escaped in JSON (a quote, a backslash, a control character): a
    /// string without one is written as its bytes.
    static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    /// How the canonical JSON of the common field types begins (`field(_:)` writes it; the pull reader keeps a value
    /// sent this way as it came).
    static var stringFieldOpening: StaticString { #"{"type":"STRING","value":"# }
    static var int64FieldOpening: StaticString { #"{"type":"INT64","value":"# }
    static var timestampFieldOpening: StaticString { #"{"type":"TIMESTAMP","value":"# }
    static var stringListFieldOpening: StaticString { #"{"type":"STRING_LIST","value":["# }

    /// A JSON string literal from UTF-8 bytes, as `string(_:)` writes the `String` they spell (bytes that are
    /// not valid UTF-8 are first repaired the way `String(decoding:as:)` repairs them).
    public mutating func string(utf8 buffer: UnsafeBufferPointer<UInt8>) {
        guard buffer.allSatisfy({ $0 < 0x80 }) || JSONParser.isValidUTF8(buffer) else {
            string(String(decoding: buffer, as: UTF8.self))
            return
        }
        bytes.append(0x22)
        guard buffer.contains(where: Self.needsEscape) else {
            bytes.append(contentsOf: buffer)
            bytes.append(0x22)
            return
        }
        bytes.removeLast()
        string(String(decoding: buffer, as: UTF8.self))
    }

    /// Any Encodable value, through JSONEncoder.
    public mutating func encodable<T: Encodable>(_ value: T) throws {
        bytes.append(contentsOf: try JSONWriter.encoder.encode(value))
    }

    /// Appends `{zoneName, ownerRecordName?}`.
    public mutating func zoneID(_ zone: ZoneID) {
        raw("{\"zoneName\":")
        string(zone.zoneName)
        if let owner = zone.ownerRecordName {
            raw(",\"ownerRecordName\":")
            string(owner)
        }
        raw("}")
    }

    /// Appends `{timestamp, userRecordName, deviceID?}`.
    public mutating func stamp(_ stamp: RecordStamp) {
        raw("{\"timestamp\":")
        int(stamp.timestamp)
        raw(",\"userRecordName\":")
        string(stamp.userRecordName)
        if let device = stamp.deviceID {
            raw(",\"deviceID\":")
            string(device)
        }
        raw("}")
    }

    /// A comma between array elements after the first.
    public mutating func separator(_ index: Int) { if index > 0 { bytes.append(0x2C) } }

    /// The encoder for everything off the fast path: sorted keys, unescaped slashes.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The shared decoder for everything off the fast path.
    public static let decoder = JSONDecoder()

    /// Appends a double in the shortest form that reads back the same.
    public mutating func double(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: "\(Int64(value)).0".utf8)
        } else if value.isFinite {
            bytes.append(contentsOf: "\(value)".utf8)
        } else {
            raw("null")
        }
    }

    /// Appends any JSON value, object keys sorted.
    public mutating func json(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): bool(b)
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let items):
            raw("[")
            for (index, item) in items.enumerated() {
                separator(index)
                json(item)
            }
            raw("]")
        case .object(let object):
            sortedObject(object) { writer, value in writer.json(value) }
        }
    }

    /// Appends an object with its keys sorted, so equal dictionaries encode to equal bytes.
    public mutating func sortedObject<Value>(_ object: [String: Value], _ write: (inout JSONWriter, Value) -> Void) {
        raw("{")
        // The entries sorted as pairs: no second hash lookup per key.
        for (index, entry) in object.sorted(by: { $0.key < $1.key }).enumerated() {
            separator(index)
            string(entry.key)
            raw(":")
            write(&self, entry.value)
        }
        raw("}")
    }

    /// Appends a field value as `{"type":…,"value":…}`.
    public mutating func field(_ value: FieldValue) {
        // The scalars of nearly every field, with their opening spelled once (the same bytes as below).
        switch value {
        case .string(let s):
            raw(Self.stringFieldOpening)
            string(s)
            raw("}")
            return
        case .int64(let i):
            raw(Self.int64FieldOpening)
            int(i)
            raw("}")
            return
        case .timestamp(let i):
            raw(Self.timestampFieldOpening)
            int(i)
            raw("}")
            return
        case .list(.string, let items) where items.allSatisfy({ $0.stringValue != nil }):
            // A todo's tags: written as they lie, not through a JSON tree of the list (1,700 instructions a todo).
            raw(Self.stringListFieldOpening)
            for index in items.indices {
                separator(index - items.startIndex)
                if case .string(let s) = items[index] { string(s) }
            }
            raw("]}")
            return
        default:
            break
        }
        raw("{")
        if let type = value.typeName {
            raw("\"type\":")
            string(type)
            raw(",")
        }
        raw("\"value\":")
        switch value {
        case .string(let s): string(s)
        case .int64(let i), .timestamp(let i): int(i)
        case .double(let d): double(d)
        default: json(value.jsonValue)
        }
        raw("}")
    }

    /// Appends a fields object, keys sorted, so equal fields encode to equal bytes.
    public mutating func fields(_ fields: [String: FieldValue]) {
        sortedObject(fields) { writer, value in writer.field(value) }
    }

    /// Drops what was written past the first `count` bytes (a message writer taking back a part it began).
    mutating func truncate(to count: Int) { bytes.removeLast(bytes.count - count) }
}
