@testable import CloudServer
import Testing
import TestSupport

/// The control-character check every record name, device name and label passes: on the string's bytes, as the
/// rule on its scalars says (C0, DEL and C1 refused, everything else kept).
@Suite("Names without control characters")
struct ValidationTests {
    static func rule(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    @Test func everyScalarToU300AloneAndBetweenOthers() {
        for value in UInt32(0)...0x300 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(scalar), "rec-\(scalar)-1", "\u{C2}\(scalar)", "é\(scalar)"] {
                #expect(Validation.hasControlCharacters(text) == Self.rule(text), "U+\(String(value, radix: 16))")
            }
        }
    }

    @Test func randomNames() {
        var random = SplitMix(seed: 12_007)
        let scalars: [Unicode.Scalar] = ["a", "Z", "9", "-", "\u{0}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}", "\u{C2}", "é", "中", "🙂"]
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...20, using: &random) { text.unicodeScalars.append(scalars.randomElement(using: &random)!) }
            #expect(Validation.hasControlCharacters(text) == Self.rule(text), "\(text.unicodeScalars.map(\.value))")
            #expect(Validation.isRecordName(text) == (!text.isEmpty && text.utf8.count <= 255 && !Self.rule(text)))
        }
    }
}
