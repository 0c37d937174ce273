import Foundation
import Testing

@testable import todo

/// `TitleOrder.Prepared` answers as `localizedCaseInsensitiveCompare` does, on chosen and on random titles.
@Suite("Title order")
struct TitleOrderTests {
    /// Pieces the random titles are made of: case pairs, accents composed and not, digits, punctuation, spaces,
    /// scripts other than Latin, a ligature, emoji outside the BMP, a lone combining mark.
    static let pieces = [
        "a", "A", "b", "Z", "é", "E\u{301}", "Ä", "ß", "ss", "ﬁ", "fi", "10", "9", "-", "_", " ", ".", "'", "Ω", "ω", "日本", "Ärger",
        "zebra", "apple", "Apple", "\u{1F600}", "\u{301}", "İ", "ı", "Todo", "number",
    ]

    @Test func chosenTitlesCompareAsLocalizedCaseInsensitiveCompare() {
        let titles = ["", "a", "A", "apple", "Apple", "Äpfel", "apfel", "Zebra", "zebra", "10 things", "9 things", "co-op", "coop", "é", "e\u{301}", "\u{1F600}", "ﬁle", "file"]
        let prepared = TitleOrder.Prepared(titles)
        for a in titles.indices {
            for b in titles.indices {
                #expect(prepared.compare(a, b) == titles[a].localizedCaseInsensitiveCompare(titles[b]), "\(titles[a].debugDescription) \(titles[b].debugDescription)")
            }
        }
    }

    @Test func randomTitlesCompareAsLocalizedCaseInsensitiveCompare() {
        var seed: UInt64 = 0x7171_E0DE
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let titles = (0..<400).map { _ in (0..<next(6)).map { _ in Self.pieces[next(Self.pieces.count)] }.joined() }
        let prepared = TitleOrder.Prepared(titles)
        for _ in 0..<4_000 {
            let (a, b) = (next(titles.count), next(titles.count))
            #expect(prepared.compare(a, b) == titles[a].localizedCaseInsensitiveCompare(titles[b]), "\(titles[a].debugDescription) \(titles[b].debugDescription)")
        }
    }
}
