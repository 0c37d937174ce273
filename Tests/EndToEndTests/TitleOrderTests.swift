import CoreFoundation
import Foundation
import TestSupport
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

    /// CoreFoundation's answer for `x` and `y` in the locale `identifier`, as `localizedCaseInsensitiveCompare` asks.
    static func coreFoundationOrder(_ x: String, _ y: String, in identifier: String) -> ComparisonResult {
        func string(_ text: String) -> CFString { unsafeBitCast(NSString(string: text), to: CFString.self) }
        let locale = CFLocaleCreate(kCFAllocatorSystemDefault, string(identifier))
        let result = CFStringCompareWithOptionsAndLocale(string(x), string(y), CFRangeMake(0, CFStringGetLength(string(x))), CFStringCompareFlags(rawValue: 17), locale)
        return result == .compareLessThan ? .orderedAscending : result == .compareGreaterThan ? .orderedDescending : .orderedSame
    }

    /// Without ICU, printable ASCII titles are ordered as CoreFoundation orders them through ICU in every locale the
    /// shortcut is taken for: each pair of characters, and titles sharing beginnings, spaces and punctuation.
    @Test(arguments: ["en_001", "en", "en_US", "en_GB"])
    func printableASCIIIsOrderedAsCoreFoundationOrdersIt(_ identifier: String) throws {
        #expect(TitleOrder.ordersASCIIAsRoot(identifier))
        let characters = (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) }
        #expect(Set(TitleOrder.rootOrder.uppercased() + TitleOrder.rootOrder) == Set(characters.joined()) && TitleOrder.rootOrder.count == 69)
        for x in characters {
            for y in characters {
                #expect(TitleOrder.printableASCIIOrder(x, y) == Self.coreFoundationOrder(x, y, in: identifier), "\(x.debugDescription) \(y.debugDescription)")
            }
        }
        var random = SplitMix(seed: 0xA5C1_1D)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let pieces = ["Todo ", "todo", "number ", "1", "10", "2", " ", "-", "_", "a", "A", "z", "Z", "'", "(", "~", "$", "0", "9", "co-op", "coop", "I", "i"]
        for _ in 0..<3_000 {
            let x = (0..<next(5)).map { _ in pieces[next(pieces.count)] }.joined()
            let y = next(3) == 0 ? x + pieces[next(pieces.count)] : (0..<next(5)).map { _ in pieces[next(pieces.count)] }.joined()
            let answer = try #require(TitleOrder.printableASCIIOrder(x, y))
            #expect(answer == Self.coreFoundationOrder(x, y, in: identifier), "\(x.debugDescription) \(y.debugDescription)")
        }
    }

    /// The shortcut is taken on Linux without asking Foundation for the current locale, which is always `en_001`
    /// there: should Foundation start reading one (from `LANG`, say), this fails and the shortcut must ask again.
    @Test func theCurrentLocaleIsTheOneTheShortcutAssumes() {
        #if os(Linux)
        #expect(Locale.current.identifier == TitleOrder.linuxCurrentLocale)
        #endif
        #expect(TitleOrder.rootOrderForASCII == TitleOrder.ordersASCIIAsRoot(Locale.current.identifier))
    }

    /// Anything outside printable ASCII goes to CoreFoundation: controls, DEL, accents, other scripts.
    @Test func otherTitlesAreLeftToCoreFoundation() {
        for title in ["a\tb", "line\nbreak", "\u{7F}", "caf\u{E9}", "e\u{301}", "\u{1F600}", "\u{0}"] {
            #expect(TitleOrder.printableASCIIOrder(title, "abc") == nil && TitleOrder.printableASCIIOrder("abc", title) == nil, "\(title.debugDescription)")
        }
        #expect(TitleOrder.printableASCIIOrder("", "") == .orderedSame && TitleOrder.printableASCIIOrder("", "a") == .orderedAscending)
        #expect(!TitleOrder.ordersASCIIAsRoot("da_DK") && !TitleOrder.ordersASCIIAsRoot("en_US_POSIX"))
    }
}
