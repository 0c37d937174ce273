@testable import CloudModel
import Testing
import TestSupport

/// The parser's fast read of a string without escapes, eight bytes at a time, against the rule read byte by byte:
/// it ends at the first quote, refuses a backslash or a control character, and checks UTF-8 once it met a byte of
/// 0x80 or above, wherever those bytes fall in a word.
@Suite("JSON strings read eight bytes at a time")
struct PlainStringTests {
    /// The rule, byte by byte: the contents' range and the position after the closing quote; nil when refused.
    static func reference(_ bytes: [UInt8]) -> (Range<Int>, Int)? {
        var index = 1
        var high: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let range = 1..<index
                if high >= 0x80, String(validating: bytes[range], as: UTF8.self) == nil { return nil }
                return (range, index + 1)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            high |= byte
            index += 1
        }
        return nil
    }

    static func fast(_ bytes: [UInt8]) -> (Range<Int>, Int)? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONParser.Cursor(buffer: buffer)
            guard let range = cursor.plainString() else { return nil }
            return (range, cursor.index)
        }
    }

    static func same(_ bytes: [UInt8]) -> Bool {
        let (a, b) = (reference(bytes), fast(bytes))
        return a?.0 == b?.0 && a?.1 == b?.1
    }

    @Test func everySpecialByteAtEveryPlace() {
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x01, 0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF, 0xA9]
        for length in 0...40 {
            let plain = [UInt8(ascii: "\"")] + [UInt8](repeating: UInt8(ascii: "a"), count: length) + [UInt8(ascii: "\"")]
            #expect(Self.same(plain), "\(length)")
            #expect(Self.same(Array(plain.dropLast())), "unterminated \(length)")
            for position in 1...max(1, length) where position < plain.count - 1 {
                for value in specials {
                    var bytes = plain
                    bytes[position] = value
                    #expect(Self.same(bytes), "\(length) \(position) \(value)")
                    // After the string: what follows never changes the answer.
                    #expect(Self.same(bytes + [UInt8(ascii: ","), 0x22, 0x5C]), "\(length) \(position) \(value) followed")
                }
            }
        }
    }

    @Test func randomStringsOfTextAndUTF8() {
        var random = SplitMix(seed: 8_081)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("Zz09 ".utf8), Array("é".utf8), Array("中".utf8), Array("🙂".utf8), [0x22], [0x5C], [0x0A], [0x7F],
            [0xC3], [0x80], [0xE2, 0x80], [0xF0, 0x9F, 0x99], [0xED, 0xA0, 0x80],
        ]
        for _ in 0..<5_000 {
            var bytes: [UInt8] = [0x22]
            for _ in 0..<Int.random(in: 0...24, using: &random) { bytes += pieces.randomElement(using: &random)! }
            if Bool.random(using: &random) { bytes.append(0x22) }
            #expect(Self.same(bytes), "\(bytes)")
        }
    }

    @Test func spellingIsExact() {
        let text = Array(#""type":"STRING_LIST","value""#.utf8)
        text.withUnsafeBufferPointer { buffer in
            let cursor = JSONParser.Cursor(buffer: buffer)
            #expect(cursor.spells(1..<5, "type") && !cursor.spells(1..<5, "typo") && !cursor.spells(1..<4, "type"))
            #expect(cursor.spells(8..<19, "STRING_LIST") && !cursor.spells(8..<14, "STRING_LIST") && cursor.spells(8..<14, "STRING"))
            #expect(cursor.spells(0..<0, "") && !cursor.spells(20..<40, "type"))
        }
    }
}
