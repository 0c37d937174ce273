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

    /// The ideographs U+4E00–U+9FFF in CoreFoundation's order for `identifier`, each one's place in it.
    static func hanPlaces(in identifier: String) -> [Int] {
        func string(_ text: String) -> CFString { unsafeBitCast(NSString(string: text), to: CFString.self) }
        let locale = CFLocaleCreate(kCFAllocatorSystemDefault, string(identifier))
        let scalars = Array(HanRootOrder.first...HanRootOrder.last)
        let strings = scalars.map { string(String(Character(UnicodeScalar($0)!))) }
        let flags = CFStringCompareFlags(rawValue: 17)
        let order = scalars.indices.sorted {
            CFStringCompareWithOptionsAndLocale(strings[$0], strings[$1], CFRangeMake(0, CFStringGetLength(strings[$0])), flags, locale) == .compareLessThan
        }
        var places = Array(repeating: 0, count: scalars.count)
        for (place, ordinal) in order.enumerated() { places[ordinal] = place }
        return places
    }

    /// Every ideograph's place in `HanRootOrder` is its place in CoreFoundation's order, in each locale the shortcut
    /// is taken for; with `TODO_WRITE_HAN_ROOT_ORDER` set to the table's source file, the places are written there.
    @Test(arguments: ["en_001", "en", "en_US", "en_GB"])
    func hanRootOrderIsCoreFoundationsOrder(_ identifier: String) throws {
        let places = Self.hanPlaces(in: identifier)
        if identifier == TitleOrder.linuxCurrentLocale, let path = ProcessInfo.processInfo.environment["TODO_WRITE_HAN_ROOT_ORDER"] {
            try Self.writeHanPlaces(places, into: path)
            return
        }
        var wrong = 0
        for (ordinal, place) in places.enumerated() where HanRootOrder.place(of: HanRootOrder.first + UInt32(ordinal)) != UInt16(place) {
            wrong += 1
        }
        #expect(wrong == 0, "\(wrong) ideographs placed otherwise than CoreFoundation orders them in \(identifier)")
        #expect(HanRootOrder.place(of: HanRootOrder.first - 1) == nil && HanRootOrder.place(of: HanRootOrder.last + 1) == nil)
    }

    /// Puts `places` into the table's source at `path`, between its string's delimiters.
    static func writeHanPlaces(_ places: [Int], into path: String) throws {
        let source = try String(contentsOfFile: path, encoding: .utf8)
        let opening = "static let places: StaticString = \"\"\"\n", closing = "\n        \"\"\"\n"
        let start = try #require(source.range(of: opening)), end = try #require(source.range(of: closing, range: start.upperBound..<source.endIndex))
        let lines = stride(from: 0, to: places.count, by: HanRootOrder.perLine).map { line in
            "        " + places[line..<min(line + HanRootOrder.perLine, places.count)].map { String(format: "%04X", $0) }.joined()
        }
        try (source[..<start.upperBound] + lines.joined(separator: "\n") + source[end.lowerBound...]).write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Titles of printable ASCII and ideographs, among titles of other scripts, in the order
    /// `localizedCaseInsensitiveCompare` gives them: ideographs next to each other in the root order, at the ends of
    /// the range, outside it (Extension A, the compatibility ideographs, the hexagram just before it, Yi just after).
    @Test func titlesWithIdeographsCompareAsLocalizedCaseInsensitiveCompare() {
        var random = SplitMix(seed: 0x4E00_9FFF)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let byPlace = (HanRootOrder.first...HanRootOrder.last).sorted { HanRootOrder.place(of: $0)! < HanRootOrder.place(of: $1)! }
        func ideograph() -> String {
            switch next(4) {
            case 0: String(Character(UnicodeScalar(HanRootOrder.first + UInt32(next(Int(HanRootOrder.last - HanRootOrder.first) + 1)))!))
            case 1: String(Character(UnicodeScalar(byPlace[min(byPlace.count - 1, next(40) + 10_000)])!))
            case 2: ["写周报", "整理书架", "\u{4E00}", "\u{9FFF}", "\u{9FA5}"][next(5)]
            default: ["\u{3400}", "\u{F900}", "\u{4DFF}", "\u{A000}", "é", "日本"][next(6)]
            }
        }
        let ascii = ["a", "A", "z", " ", "#", "1", "10", "-", "~", "Todo ", "写周报 #"]
        let titles = (0..<500).map { _ in (0..<next(5)).map { _ in next(2) == 0 ? ideograph() : ascii[next(ascii.count)] }.joined() }
        let prepared = TitleOrder.Prepared(titles)
        for _ in 0..<6_000 {
            let (a, b) = (next(titles.count), next(titles.count))
            #expect(prepared.compare(a, b) == titles[a].localizedCaseInsensitiveCompare(titles[b]), "\(titles[a].debugDescription) \(titles[b].debugDescription)")
        }
    }

    /// Only printable ASCII and U+4E00–U+9FFF take the root order's shortcut; a title of ASCII alone takes the bytes'.
    @Test func theRootOrderTakesIdeographsOfItsRangeOnly() {
        func rootOrdered(_ title: String) -> Bool { var title = title; return title.withUTF8(TitleOrder.isRootOrdered) }
        #expect(rootOrdered("写周报 #3") && rootOrdered("\u{4E00}") && rootOrdered("\u{9FFF}x"))
        for title in ["plain", "", "\u{4DFF}", "\u{A000}", "\u{3400}", "\u{F900}", "写\t", "写é", "写\u{1F600}", "\u{7F}写"] {
            #expect(!rootOrdered(title), "\(title.debugDescription)")
        }
        let truncated: [UInt8] = [0xE5, 0x86]
        #expect(!truncated.withUnsafeBufferPointer(TitleOrder.isRootOrdered))
        // Bytes no title holds (a cut sequence, a byte that is never UTF-8, a control) still end the walk, each an
        // unranked byte: the longer walk comes last.
        let odd: [UInt8] = [0xE5, 0x86, 0xFF, 0x09, 0xE9]
        #expect(odd.withUnsafeBufferPointer { x in truncated.withUnsafeBufferPointer { y in TitleOrder.rootRankOrder(x, y) } } == .orderedDescending)
        let ideograph = Array("写".utf8), letter = Array("a".utf8)
        #expect(ideograph.withUnsafeBufferPointer { x in letter.withUnsafeBufferPointer { y in TitleOrder.rootRankOrder(y, x) } } == .orderedAscending)
    }
}
