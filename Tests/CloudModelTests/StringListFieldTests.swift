import TestSupport
import Testing

@testable import CloudModel

/// A list of strings is written as it lies, byte for byte what the general path writes through a JSON tree of it.
@Suite("STRING_LIST fields written directly")
struct StringListFieldTests {
    /// What `field` wrote for lists before it had a path of their own: type, then the value as a JSON array.
    static func throughTheTree(_ value: FieldValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\"type\":")
        writer.string(value.typeName ?? "")
        writer.raw(",\"value\":")
        writer.json(value.jsonValue)
        writer.raw("}")
        return writer.bytes
    }

    @Test func listsOfStringsMatchTheTree() {
        let words = ["home", "", "a\"b", "back\\slash", "tab\t", "line\n", "\u{1}", "日本", "🏠", "é", "</script>", "\u{2028}"]
        var random = SplitMix(seed: 0x5EED_0F11)
        let lists = [[], ["home"], words] + random.wordLists(500, from: words, longest: 15)
        for list in lists {
            let value = FieldValue.list(.string, list.map(FieldValue.string))
            var writer = JSONWriter()
            writer.field(value)
            #expect(writer.bytes == Self.throughTheTree(value), "\(list)")
        }
    }

    @Test func aListWithOtherValuesTakesTheGeneralPath() {
        for value in [FieldValue.list(.string, [.string("a"), .int64(1)]), .list(.int64, [.int64(1), .int64(2)]), .list(.string, [.timestamp(5)])] {
            var writer = JSONWriter()
            writer.field(value)
            #expect(writer.bytes == Self.throughTheTree(value))
        }
    }
}
