import Testing

@testable import TodoStore

/// `TodoItem.distinct` keeps what a set of the values kept, in order, whether it compares them pairwise or by a set.
@Suite("Distinct tags and dependencies")
struct DistinctValuesTests {
    @Test func keepsTheFirstOfEachAsASetWould() {
        let words = ["home", "Home", "é", "e\u{301}", "", "a", "b", "k", "\u{212A}", "K", "日本", "x"]
        var lists: [[String]] = [[], ["a"], ["a", "a"], ["é", "e\u{301}"], ["k", "\u{212A}", "K"]]
        var seed: UInt64 = 0x0D15_71C7
        for _ in 0..<3_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int(seed >> 59)  // 0 to 31: either side of the pairwise limit
            lists.append((0..<count).map { words[Int((seed >> UInt64($0 % 40)) % UInt64(words.count))] })
        }
        for list in lists {
            var seen = Set<String>()
            #expect(TodoItem.distinct(list) == list.filter { seen.insert($0).inserted }, "\(list)")
        }
    }
}
