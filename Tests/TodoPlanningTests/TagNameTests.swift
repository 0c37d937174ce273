import TestSupport
import Testing

@testable import TodoPlanning

/// The tag rule's fast path for printable ASCII answers exactly as the rule read scalar by scalar does.
@Suite("Tag names")
struct TagNameTests {
    /// The rule as it reads every tag through Unicode's properties (the path non-ASCII tags still take).
    static func byScalars(_ text: String) -> Result<String, TagError> {
        var tag = Substring(text)
        if tag.first == "+" { tag = tag.dropFirst() }
        guard !tag.isEmpty else { return .failure(TagError(text: text, problem: "a tag needs at least one character")) }
        guard tag.count <= TagName.maximumLength else { return .failure(TagError(text: text, problem: "a tag has at most 64 characters")) }
        if tag.first == "-" { return .failure(TagError(text: text, problem: "a tag cannot start with -")) }
        for scalar in tag.unicodeScalars {
            if scalar.properties.isWhitespace { return .failure(TagError(text: text, problem: "a tag is one word, without spaces")) }
            if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                return .failure(TagError(text: text, problem: "a tag cannot contain control characters"))
            }
            if scalar == "," || scalar == "\"" { return .failure(TagError(text: text, problem: "a tag cannot contain \(scalar)")) }
        }
        return .success(String(tag))
    }

    @Test func everyPrintableAndEdgeByteAnswersAsTheScalarRule() {
        var samples = ["", "+", "++", "+-x", "-x", "x-", "home", "+home", "a,b", "a\"b", "a b", "\u{7F}", "x\u{7F}", "\u{1F}x", "tab\t",
            String(repeating: "a", count: 64), String(repeating: "a", count: 65), "+" + String(repeating: "b", count: 64), "café", "日本",
            "🏠", "zero\u{200B}width", "nbsp\u{A0}", "bidi\u{202E}", "a,é", "é\"", "ﬁ"]
        for byte in UInt8(0x00)...UInt8(0x7F) { samples.append("x" + String(UnicodeScalar(byte)) + "y") }
        samples += ["-", "+,x", "+\"", "+a,", "+-", "+" + String(repeating: "c", count: 65), "+\u{301}x", "+é"]
        // Random words of printable ASCII (and a few others), two to seventy long, `+` and `-` often first.
        var seed: UInt64 = 0x7A65_3E11
        for _ in 0..<2_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(seed >> 58) + Int(seed >> 40 & 7)
            var word = ["", "+", "-", "+-"][Int(seed >> 20 & 3)]
            for index in 0..<length {
                let pick = Int((seed >> UInt64(index % 50)) & 0x7F)
                word += pick < 0x21 ? ["a", ",", "\"", " ", "é"][pick % 5] : String(UnicodeScalar(UInt8(max(0x21, min(0x7E, pick)))))
            }
            samples.append(word)
        }
        for sample in samples {
            let fast = Result { () throws(TagError) in try TagName.read(sample) }
            #expect(fast == Self.byScalars(sample), "\(sample.debugDescription)")
        }
    }

    /// `valid` as it read before comparing kept tags pairwise: every tag read, kept once by its lowercased form.
    static func validBySet(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.compactMap { try? TagName.read($0) }.filter { seen.insert($0.lowercased()).inserted }
    }

    @Test func validKeepsWhatTheSetOfLowercasedNamesKept() {
        let words = ["home", "Home", "HOME", "+home", "work", "Work", "k", "K", "\u{212A}", "straße", "STRASSE", "Straße", "é", "É",
            "e\u{301}", "日本", "a b", "-x", "", "+", "ǅ", "ǆ", "Ǆ", "İ", "i", "ı", "ΣΑΣ", "σας", "x,y", "a", "A", "b", "B"]
        var random = SplitMix(seed: 0x51A7_0C2B)
        // Up to 31 tags: either side of the pairwise limit.
        let lists = [[], ["home"], ["home", "Home"], ["K", "\u{212A}", "k"], ["\u{212A}", "k"], ["İ", "i"], ["ǅ", "ǆ", "Ǆ"]]
            + random.wordLists(3_000, from: words, longest: 31)
        for list in lists {
            #expect(TagName.valid(list) == Self.validBySet(list), "\(list)")
        }
    }
}
