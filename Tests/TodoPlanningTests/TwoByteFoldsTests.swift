import Foundation
import Testing
@testable import TodoPlanning

/// The written-out fold table (Sources/TodoPlanning/TwoByteFolds.swift) against the folding it stands for.
@Suite("Two-byte fold table")
struct TwoByteFoldsTests {
    /// The entry of `value` as `foldedText` makes it: lowercased and composed, packed as `count << 24 | bytes`; 0 where
    /// the scalar cannot be folded on its own (a combining mark, capital sigma, what folds onto a combining mark).
    static func computedEntry(_ value: Int) -> UInt32 {
        guard let scalar = Unicode.Scalar(UInt32(value)), scalar.properties.canonicalCombiningClass == .notReordered, value != 0x3A3 else {
            return 0
        }
        let folded = foldedText(String(Character(scalar)))
        guard let first = folded.unicodeScalars.first, first.properties.canonicalCombiningClass == .notReordered else { return 0 }
        let bytes = Array(folded.utf8)
        guard (1...3).contains(bytes.count) else { return 0 }
        var packed = UInt32(bytes.count) << 24
        for (index, byte) in bytes.enumerated() { packed |= UInt32(byte) << (8 * UInt32(index)) }
        return packed
    }

    @Test func everyEntryIsWhatFoldingTheScalarGives() throws {
        let computed = (0x80..<0x800).map(Self.computedEntry)
        #expect(twoByteFolds.count == computed.count)
        let differing = zip(twoByteFolds, computed).enumerated().filter { $0.element.0 != $0.element.1 }.map { $0.offset + 0x80 }
        guard !differing.isEmpty else { return }
        // The table this toolchain's Unicode makes, in the file's layout, to copy over the rows of the old one.
        var rows = ""
        for start in stride(from: 0, to: computed.count, by: 8) {
            let entries = computed[start..<min(start + 8, computed.count)].map { String(format: "0x%08X", $0) }.joined(separator: ", ")
            rows += "    \(entries),  // U+\(String(format: "%04X", start + 0x80))\n"
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("TwoByteFolds.rows.swift")
        try rows.write(to: path, atomically: true, encoding: .utf8)
        Issue.record("\(differing.count) entries differ, first U+\(String(format: "%04X", differing[0])); the rows computed now are in \(path.path)")
    }

    @Test func aFewKnownFolds() {
        #expect(twoByteFolds[0xC4 - 0x80] == 0x0200_A4C3)  // Ä → ä (C3 A4)
        #expect(twoByteFolds[0x3A3 - 0x80] == 0)  // capital sigma: its fold depends on what follows
        #expect(twoByteFolds[0x301 - 0x80] == 0)  // a combining acute accent
        #expect(twoByteFolds[0x37E - 0x80] == 0x0100_003B)  // Greek question mark → ';' by its canonical singleton
    }
}
