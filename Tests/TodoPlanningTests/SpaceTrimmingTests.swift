import Foundation
import Testing
import TodoPlanning

/// `trimmingSpacesAndTabs` against the Foundation trimming it stands for, on chosen and on random texts.
@Suite("Trimming spaces and tabs")
struct SpaceTrimmingTests {
    /// Scalars the random texts are made of: spaces of several kinds, line breaks (kept), letters, marks, emoji.
    static let pieces: [String] = [
        " ", "\t", "\u{00A0}", "\u{2003}", "\u{3000}", "\u{202F}", "\n", "\r\n", "\u{2028}", "\u{0B}", "\u{0}",
        "a", "Z", "é", "e\u{301}", "\u{1F600}", "/", ":", "x y", "\u{301}", "\u{0C}", "\u{85}", "\u{2029}", "\u{1C}",
        "\u{1F}", "\u{200B}", "\u{FEFF}", "\u{180E}", "\u{A0}x",
    ]

    @Test func chosenTextsTrimAsFoundationDoes() {
        for text in ["", " ", "\t \u{3000}", " http://a.example ", "\ttaskwarrior\t", "\nics\n", " a b ", "\u{00A0}é\u{2003}", "x", " \u{301}a ", "a\u{301} \t"] {
            #expect(text.trimmingSpacesAndTabs == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
        #expect(" json ".trimmingSpacesAndTabs == "json" && " \n ".trimmingSpacesAndTabs == "\n")
    }

    @Test func randomTextsTrimAsFoundationDoes() {
        var seed: UInt64 = 0x5EED_7121
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<2_000 {
            let text = (0..<next(9)).map { _ in Self.pieces[next(Self.pieces.count)] }.joined()
            #expect(text.trimmingSpacesAndTabs == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            #expect(text.trimmingWhiteSpaceAndNewlines == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    @Test func chosenTextsTrimWhiteSpaceAndNewlinesAsFoundationDoes() {
        for text in ["", "\n", " \r\n tomorrow \u{2028}", "\u{85}eow\u{0B}", "\u{1C}x\u{1F}", "\u{200B}a\u{FEFF}", "\u{3000}2026-05-01 9am\t"] {
            #expect(text.trimmingWhiteSpaceAndNewlines == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    /// Every scalar of the Basic Multilingual Plane alone: trimmed away exactly when Foundation's sets hold it.
    @Test func everyScalarOfThePlaneIsTrimmedAsFoundationDoes() {
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            #expect(text.trimmingSpacesAndTabs.isEmpty == CharacterSet.whitespaces.contains(scalar), "U+\(String(value, radix: 16))")
            #expect(text.trimmingWhiteSpaceAndNewlines.isEmpty == CharacterSet.whitespacesAndNewlines.contains(scalar), "U+\(String(value, radix: 16))")
        }
    }
}
