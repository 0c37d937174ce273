import CloudModel
import Foundation
import TestSupport
import Testing

/// The one JSON string escaper (`JSONWriter.appendString`, which the record writer and the Taskwarrior export both
/// use): it writes what Foundation's `JSONEncoder` writes, escapes only what RFC 8259 requires, and leaves DEL be.
@Suite("JSON string escaping")
struct JSONEscapingTests {
    private func escaped(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.appendString(text, to: &bytes)
        return bytes
    }

    @Test("Exactly the escapes RFC 8259 requires; DEL, C1 controls and U+2028 as they are")
    func escapesWhatJSONRequires() {
        #expect(escaped("\u{7F}") == [0x22, 0x7F, 0x22])
        #expect(escaped("a\"b\\c/d") == Array(#""a\"b\\c/d""#.utf8))
        #expect(escaped("\u{08}\u{09}\u{0A}\u{0C}\u{0D}") == Array(#""\b\t\n\f\r""#.utf8))
        #expect(escaped("\u{0}\u{1}\u{0B}\u{1F}") == Array(#""\u0000\u0001\u000b\u001f""#.utf8))
        #expect(escaped("\u{85}\u{2028}\u{FEFF}写🥛") == [0x22] + Array("\u{85}\u{2028}\u{FEFF}写🥛".utf8) + [0x22])
    }

    @Test("Every code point below U+0100 and generated strings: the bytes JSONEncoder writes, read back as written")
    func agreesWithJSONEncoder() throws {
        var samples = (0..<0x100).map { String(UnicodeScalar(UInt8($0))) }
        var rng = SplitMix(seed: 127)
        let alphabet = Array("a\"\\/\u{0}\u{1}\u{8}\t\n\u{B}\u{C}\r\u{1F}\u{7F}\u{85}\u{9F}é写🥛\u{2028}\u{FEFF}".unicodeScalars)
        for _ in 0..<5_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<(rng.next() % 12) { text.append(alphabet[Int(rng.next() % UInt64(alphabet.count))]) }
            samples.append(String(text))
        }
        for text in samples {
            let ours = escaped(text)
            #expect(ours == Array(try JSONWriter.encoder.encode(text)), "\(text.unicodeScalars.map(\.value))")
            guard case .string(let read)? = try? JSONParser.parse(ours) else {
                Issue.record("cannot read back \(JSONTestSupport.shown(ours))")
                continue
            }
            #expect(read.utf8.elementsEqual(text.utf8))
            var fromBytes = JSONWriter()
            Array(text.utf8).withUnsafeBufferPointer { fromBytes.string(utf8: $0) }
            #expect(fromBytes.bytes == ours)
        }
    }
}
