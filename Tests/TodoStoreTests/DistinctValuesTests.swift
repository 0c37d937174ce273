import TestSupport
import Testing

@testable import TodoStore

/// `TodoItem.distinct` keeps what a set of the values kept, in order, whether it compares them pairwise or by a set.
@Suite("Distinct tags and dependencies")
struct DistinctValuesTests {
    @Test func keepsTheFirstOfEachAsASetWould() {
        let words = ["home", "Home", "é", "e\u{301}", "", "a", "b", "k", "\u{212A}", "K", "日本", "x"]
        var random = SplitMix(seed: 0x0D15_71C7)
        // Up to 31 values: either side of the pairwise limit.
        let lists = [[], ["a"], ["a", "a"], ["é", "e\u{301}"], ["k", "\u{212A}", "K"]] + random.wordLists(3_000, from: words, longest: 31)
        for list in lists {
            var seen = Set<String>()
            #expect(TodoItem.distinct(list) == list.filter { seen.insert($0).inserted }, "\(list)")
        }
    }
}
