import Foundation
import Testing
import TodoPlanning

/// The Next view ranks scores and due keys by position, reading titles and IDs only on ties; `todo next` ranks keys.
/// Both must give one order.
@Suite("NextRanking's two forms")
struct NextRankingTests {
    @Test func positionsAndKeysGiveTheSameOrder() {
        var generator = SystemRandomNumberGenerator()
        let titles = ["Buy milk", "buy milk", "Call", "call", "写周报", "Zebra", ""]
        let dues: [DueDate?] = [nil, DueDate(Date(timeIntervalSince1970: 1_773_309_600), allDay: false),
                                DueDate(Date(timeIntervalSince1970: 1_773_273_600), allDay: true)]
        for _ in 0..<20 {
            // Few distinct scores, due dates and titles: most comparisons tie on the first terms.
            let keys = (0..<400).map { index in
                NextRanking.Key(
                    score: [0, 1.8, 4.2, 15.8][Int.random(in: 0..<4, using: &generator)], due: dues.randomElement(using: &generator)!,
                    title: titles.randomElement(using: &generator)!, id: "id-\(Int.random(in: 0..<300, using: &generator))")
            }
            let byPosition = NextRanking.order(scores: keys.map(\.score), dues: keys.map(\.due), title: { keys[$0].title }, id: { keys[$0].id })
            let byKey = NextRanking.order(keys)
            // Equal keys (same ID twice) may come in either order; what is compared must not.
            #expect(byPosition.map { keys[$0].id } == byKey.map { keys[$0].id })
            #expect(byPosition.map { keys[$0].title } == byKey.map { keys[$0].title })
            #expect(byPosition.map { keys[$0].score } == byKey.map { keys[$0].score })
        }
    }
}
