#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fast, strict JSON parser (RFC 8259) into `JSONValue`, for the hot paths where `JSONDecoder` is too slow:
/// record batches and change pages. Rejects invalid UTF-8, bad escapes and nesting deeper than `maxDepth`.
public enum JSONParser {
    /// How deep arrays and objects may nest before the input is refused.
    public static let maxDepth = 64

    /// Parses one JSON document; trailing non-whitespace is an error.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var parser = Cursor(buffer: buffer)
            parser.skipWhitespace()
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected data after the JSON value") }
            return value
        }
    }

    /// Whether `bytes` is well-formed UTF-8 (Unicode table 3-7: no overlong forms, no surrogates, nothing past
    /// U+10FFFF, no truncated sequences): exactly what `String(validating:as:)` accepts, without its generic overhead.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let count = bytes.count
        while i < count {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xED: length = 3; high = 0x9F
            case 0xE1...0xEF: length = 3
            case 0xF0: length = 4; low = 0x90
            case 0xF4: length = 4; high = 0x8F
            case 0xF1...0xF3: length = 4
            default: return false
            }
            guard count - i >= length, (low...high).contains(bytes[i + 1]) else { return false }
            for offset in 2..<length where bytes[i + offset] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }

    struct Cursor {
        let buffer: UnsafeBufferPointer<UInt8>
        var index = 0

        func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

        /// Steps over one value by its structure only (strings and nesting), not checking what it holds.
        mutating func skipValue() throws(JSONParseError) {
            guard index < buffer.count else { throw error("unexpected end of JSON") }
            switch buffer[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < buffer.count {
                    switch buffer[index] {
                    case UInt8(ascii: "\""):
                        try skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return
                        }
                    default: break
                    }
                    index += 1
                }
                throw error("unexpected end of JSON")
            case UInt8(ascii: "\""):
                try skipString()
            default:
                let start = index
                while index < buffer.count {
                    switch buffer[index] {
                    case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: break
                    default:
                        index += 1
                        continue
                    }
                    break
                }
                guard index > start else { throw error("expected a value") }
            }
        }

        /// Steps over a string, escapes included.
        private mutating func skipString() throws(JSONParseError) {
            index += 1
            while index < buffer.count {
                switch buffer[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return
                case UInt8(ascii: "\\"): index += 2
                default: index += 1
                }
            }
            throw error("unexpected end of JSON")
        }

        mutating func skipWhitespace() {
            while index < buffer.count {
                switch buffer[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
            guard index < buffer.count else { throw error("unexpected end of JSON") }
            switch buffer[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONParseError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= buffer.count else { throw error("unexpected end of JSON") }
            for offset in 0..<count where buffer[index + offset] != word.utf8Start[offset] {
                throw error("invalid literal")
            }
            index += count
        }

        mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= JSONParser.maxDepth else { throw error("JSON nested deeper than \(JSONParser.maxDepth)") }
            index += 1
            var result: [String: JSONValue] = [:]
            skipWhitespace()
            if index < buffer.count, buffer[index] == UInt8(ascii: "}") {
                index += 1
                return .object(result)
            }
            while true {
                skipWhitespace()
                guard index < buffer.count, buffer[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                skipWhitespace()
                guard index < buffer.count, buffer[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                result[key] = try value(depth: depth)
                skipWhitespace()
                guard index < buffer.count else { throw error("unexpected end of JSON") }
                if buffer[index] == UInt8(ascii: ",") {
                    index += 1
                } else if buffer[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(result)
                } else {
                    throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= JSONParser.maxDepth else { throw error("JSON nested deeper than \(JSONParser.maxDepth)") }
            index += 1
            var result: [JSONValue] = []
            skipWhitespace()
            if index < buffer.count, buffer[index] == UInt8(ascii: "]") {
                index += 1
                return .array(result)
            }
            while true {
                skipWhitespace()
                result.append(try value(depth: depth))
                skipWhitespace()
                guard index < buffer.count else { throw error("unexpected end of JSON") }
                if buffer[index] == UInt8(ascii: ",") {
                    index += 1
                } else if buffer[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(result)
                } else {
                    throw error("expected ',' or ']'")
                }
            }
        }

        mutating func string() throws(JSONParseError) -> String {
            // Fast path: a string without escapes is its own bytes.
            let opening = index
            if let range = plainString() { return String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self) }
            // Anything else (escapes, and the errors, found where the slow path finds them) byte by byte.
            index = opening + 1
            var bytes: [UInt8] = []
            while index < buffer.count {
                let byte = buffer[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard bytes.withUnsafeBufferPointer(JSONParser.isValidUTF8) else { throw error("invalid UTF-8 in string") }
                    return String(decoding: bytes, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < buffer.count else { throw error("unexpected end of JSON") }
                    let escaped = buffer[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""): bytes.append(0x22)
                    case UInt8(ascii: "\\"): bytes.append(0x5C)
                    case UInt8(ascii: "/"): bytes.append(0x2F)
                    case UInt8(ascii: "b"): bytes.append(0x08)
                    case UInt8(ascii: "f"): bytes.append(0x0C)
                    case UInt8(ascii: "n"): bytes.append(0x0A)
                    case UInt8(ascii: "r"): bytes.append(0x0D)
                    case UInt8(ascii: "t"): bytes.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard index + 1 < buffer.count, buffer[index] == UInt8(ascii: "\\"), buffer[index + 1] == UInt8(ascii: "u") else {
                                throw error("unpaired surrogate")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw error("unpaired surrogate")
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                        bytes.append(contentsOf: String(Character(unicode)).utf8)
                    default:
                        throw error("invalid escape")
                    }
                default:
                    if byte < 0x20 { throw error("control character in string") }
                    bytes.append(byte)
                    index += 1
                }
            }
            throw error("unterminated string")
        }

        /// At a `"`: a string without escapes or control characters, in valid UTF-8, whose bytes are then
        /// exactly its value. Answers the range of its contents (quotes excluded) and moves past it, or nil (the
        /// position is then unspecified) for any other string.
        mutating func plainString() -> Range<Int>? {
            index += 1
            let start = index
            var high: UInt8 = 0
            // Eight bytes at a time while none of them ends the string or needs a look (a quote, a backslash, a
            // control character): byte by byte, this loop was 5 % of the cloud's instructions taking 10,000 todos.
            // Each test below is exact for "some byte of the word is so" (its borrows only blur which one).
            if let base = buffer.baseAddress {
                let raw = UnsafeRawPointer(base)
                let (ones, tops): (UInt64, UInt64) = (0x0101_0101_0101_0101, 0x8080_8080_8080_8080)
                var seen: UInt64 = 0
                while index + 8 <= buffer.count {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    let quote = word ^ (ones &* 0x22)
                    let backslash = word ^ (ones &* 0x5C)
                    let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)) & tops
                    if special != 0 {
                        // The lowest flagged byte is the first that needs a look (a borrow only flags bytes above
                        // it): the bytes before it are plain, and the loop below starts at it.
                        let plain = special.trailingZeroBitCount >> 3
                        if plain > 0 { seen |= word & (UInt64.max >> (64 - 8 * plain)) }
                        index += plain
                        break
                    }
                    seen |= word
                    index += 8
                }
                if seen & tops != 0 { high = 0x80 }
            }
            while index < buffer.count {
                let byte = buffer[index]
                if byte == UInt8(ascii: "\"") {
                    let range = start..<index
                    index += 1
                    guard high < 0x80 || JSONParser.isValidUTF8(UnsafeBufferPointer(rebasing: buffer[range])) else { return nil }
                    return range
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                high |= byte
                index += 1
            }
            return nil
        }

        /// Whether the bytes in `range` are exactly `word`.
        func spells(_ range: Range<Int>, _ word: StaticString) -> Bool {
            guard range.count == word.utf8CodeUnitCount, range.lowerBound >= 0, range.upperBound <= buffer.count else { return false }
            guard let base = buffer.baseAddress else { return range.isEmpty }
            return memcmp(base + range.lowerBound, word.utf8Start, range.count) == 0
        }

        /// An integer without fraction or exponent that fits in 64 bits, as `number()` would read it; nil (the
        /// position is then unspecified) for any other number or text.
        mutating func plainInteger() -> Int64? {
            let negative = index < buffer.count && buffer[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let start = index
            var value: Int64 = 0
            while index < buffer.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buffer[index]) {
                let digit = Int64(buffer[index] - UInt8(ascii: "0"))
                // Accumulate downwards so Int64.min fits too.
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = times10.subtractingReportingOverflow(digit)
                guard !overflow1, !overflow2 else { return nil }
                value = next
                index += 1
            }
            let digits = index - start
            guard digits > 0, digits == 1 || buffer[start] != UInt8(ascii: "0") else { return nil }
            if index < buffer.count {
                switch buffer[index] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
                default: break
                }
            }
            if negative { return value }
            guard value != Int64.min else { return nil }
            return -value
        }

        mutating func hex4() throws(JSONParseError) -> UInt32 {
            guard index + 4 <= buffer.count else { throw error("unexpected end of JSON") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = buffer[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func number() throws(JSONParseError) -> JSONValue {
            let start = index
            if buffer[index] == UInt8(ascii: "-") { index += 1 }
            var isInteger = true
            func digits(_ cursor: inout Cursor) -> Int {
                let from = cursor.index
                while cursor.index < cursor.buffer.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(cursor.buffer[cursor.index]) {
                    cursor.index += 1
                }
                return cursor.index - from
            }
            let integerDigits = digits(&self)
            guard integerDigits > 0 else { throw error("invalid number") }
            if integerDigits > 1, buffer[index - integerDigits] == UInt8(ascii: "0") { throw error("leading zero in number") }
            if index < buffer.count, buffer[index] == UInt8(ascii: ".") {
                index += 1
                isInteger = false
                guard digits(&self) > 0 else { throw error("invalid number") }
            }
            if index < buffer.count, buffer[index] == UInt8(ascii: "e") || buffer[index] == UInt8(ascii: "E") {
                index += 1
                isInteger = false
                if index < buffer.count, buffer[index] == UInt8(ascii: "+") || buffer[index] == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw error("invalid number") }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<index]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .int(integer) }
            guard let double = Double(text), double.isFinite else { throw error("number out of range") }
            return .double(double)
        }
    }
}

/// Why a JSON document was refused, and where.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// Byte offset of the problem.
    public var offset: Int

    public var description: String { "\(message) at byte \(offset)" }
}
