import Testing
import TestSupport
@testable import TodoStore

/// The per-read cache of values made from column texts: always the value `make` gives for the text, made once per
/// distinct text while under its limit, and made each time past it.
@Suite("Column value cache")
struct ColumnValueCacheTests {
    /// Looks `text` up, counting the texts `make` was asked for.
    static func lookUp(_ cache: inout ColumnValueCache<String>, _ text: String, made: inout [String]) -> String {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            cache.value(of: bytes) { bytes in
                let value = String(decoding: bytes, as: UTF8.self)
                made.append(value)
                return "value of " + value
            }
        }
    }

    @Test func repeatedTextsAreMadeOnceAndAlwaysGiveTheirOwnValue() {
        var random = SplitMix(seed: 7)
        // A few names that repeat row after row (zones, owners, devices) among many that come once.
        let common = ["Todos", "_defaultOwner", "_a1b2c3", "phone", "laptop", "", "Todos2"]
        var cache = ColumnValueCache<String>(limit: 64)
        var made: [String] = []
        var seen = Set<String>()
        for row in 0..<5_000 {
            let text = Int.random(in: 0..<4, using: &random) == 0 ? "once-\(row)" : common.randomElement(using: &random)!
            #expect(Self.lookUp(&cache, text, made: &made) == "value of " + text)
            seen.insert(text)
        }
        // Every common text made exactly once; texts past the limit of 64 made each time they come.
        for text in common { #expect(made.filter { $0 == text }.count == 1, "\(text)") }
        #expect(Set(made) == seen)
    }

    @Test func aCacheWithoutRoomMakesEveryValue() {
        var cache = ColumnValueCache<String>(limit: 0)
        var made: [String] = []
        for _ in 0..<3 { #expect(Self.lookUp(&cache, "Todos", made: &made) == "value of Todos") }
        #expect(made == ["Todos", "Todos", "Todos"])
    }

    @Test func theLastFewTextsAreFoundEvenPastTheLimit() {
        var cache = ColumnValueCache<String>(limit: 1)
        var made: [String] = []
        // "a" fills the cache; "b" is past the limit, but repeated row after row it is made once.
        for text in ["a", "b", "b", "b", "a"] { #expect(Self.lookUp(&cache, text, made: &made) == "value of " + text) }
        #expect(made == ["a", "b"])
        // More texts than the recent ones kept, in turn: each still gives its own value, the cached one never made again.
        made = []
        for round in 0..<4 {
            for text in ["c", "d", "e", "f", "g", "h", "a", ""] {
                #expect(Self.lookUp(&cache, text, made: &made) == "value of " + text, "round \(round)")
            }
        }
        #expect(!made.contains("a"))
        #expect(Set(made) == ["c", "d", "e", "f", "g", "h", ""])
    }

    @Test func textsOfTheSameLengthAreToldApart() {
        var cache = ColumnValueCache<String>(limit: 8)
        var made: [String] = []
        for text in ["abcd", "abce", "abcd", "abce", "bbcd", "abcd"] { #expect(Self.lookUp(&cache, text, made: &made) == "value of " + text) }
        #expect(made == ["abcd", "abce", "bbcd"])
    }
}
