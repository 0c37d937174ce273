import CloudModel
import Foundation
import Testing
import TestSupport
@testable import TodoStore

/// The words a todo's history gives a time: ISO 8601 in UTC, whole seconds, as `ISO8601DateFormatter` writes them.
@Suite("History words")
struct HistoryWordsTests {
    @Test func timesReadAsISO8601DateFormatterWritesThem() {
        let formatter = ISO8601DateFormatter()
        var random = SplitMix(seed: 62)
        var moments: [Int64] = [0, -1, 1, 999, 1_000, 86_399_999, -62_135_596_800_000, 253_402_300_799_000, 1_764_400_000_123]
        for _ in 0..<2_000 { moments.append(Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &random)) }
        for milliseconds in moments {
            let value = FieldValue.timestamp(milliseconds)
            let expected = value.dateValue.map { formatter.string(from: $0) } ?? "?"
            #expect(TodoStore.historyWords(value) == expected, "\(milliseconds)")
        }
    }
}
