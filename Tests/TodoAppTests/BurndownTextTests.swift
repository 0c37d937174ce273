import Foundation
import Testing
import TodoApp

/// `todo burndown`'s chart as printed, at 80×24 (16 rows of bars, the title, axis, days, months and legend), plain
/// (NO_COLOR, a pipe) and in colour; "today" is fixed, never the wall clock.
@Suite("Burndown text")
struct BurndownTextTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static func at(_ month: Int, _ day: Int, _ hour: Int = 10) -> Date {
        utc.date(from: DateComponents(year: 2026, month: month, day: day, hour: hour))!
    }

    /// Twelve todos: four from before the chart, eight made during it; seven done on the way.
    static let todos: [(created: Date?, completed: Date?)] = [
        (nil, nil), (at(10, 1), at(11, 17)), (at(10, 20), nil), (at(11, 1), at(11, 20)),
        (at(11, 16), at(11, 18)), (at(11, 16), nil), (at(11, 19), at(11, 22)), (at(11, 21), nil),
        (at(11, 23), at(11, 25)), (at(11, 24), at(11, 28, 9)), (at(11, 26), nil), (at(11, 28, 8), at(11, 28, 9)),
        // Done before the chart: neither pending nor counted done.
        (at(9, 1), at(9, 2)),
    ]

    @Test func plainAt80x24() {
        let chart = Burndown(Self.todos, dayCount: 14, today: Self.at(11, 28, 12), calendar: Self.utc)
        #expect(chart.days.count == 14)
        #expect(chart.days.last?.pending == 5 && chart.days.last?.done == 7)
        let lines = chart.text(width: 80, height: 16)
        #expect(lines.count == 21 && lines.allSatisfy { $0.count <= 80 })
        #expect(lines.joined(separator: "\n") == """
            Burndown, daily: 2026-11-15 to 2026-11-28
              12 |                                                    +++
                 |                                            +++ +++ +++
                 |                                            +++ +++ +++
                 |                                    +++ +++ +++ +++ +++
                 |                                +++ +++ +++ +++ +++ +++
                 |                        +++ +++ +++ +++ +++ +++ +++ +++
                 |                        +++ +++ +++ +++ +++ +++ +++ +++
                 |                +++ +++ +++ +++ +++ +++ +++ +++ +++ XXX
               6 |    +++ +++ +++ +++ +++ +++ +++ +++ +++ +++ +++ +++ XXX
                 |    +++ +++ +++ +++ +++ +++ +++ +++ +++ XXX XXX XXX XXX
                 |    +++ +++ +++ +++ +++ +++ +++ +++ +++ XXX XXX XXX XXX
                 |+++ +++ +++ +++ +++ +++ +++ XXX XXX XXX XXX XXX XXX XXX
                 |+++ +++ +++ +++ +++ XXX XXX XXX XXX XXX XXX XXX XXX XXX
                 |+++ +++ +++ XXX XXX XXX XXX XXX XXX XXX XXX XXX XXX XXX
                 |+++ +++ +++ XXX XXX XXX XXX XXX XXX XXX XXX XXX XXX XXX
                 |+++ +++ XXX XXX XXX XXX XXX XXX XXX XXX XXX XXX XXX XXX
               0 +--------------------------------------------------------
                  15  16  17  18  19  20  21  22  23  24  25  26  27  28
                  Nov
                  X done  = started  + pending    today: 5 pending, 7 done
            """, Comment(rawValue: "\n" + lines.joined(separator: "\n")))
    }

    /// Taskwarrior's started band: an active todo counts as started from its start, between done and pending.
    @Test func startedTodosHaveTheirOwnBand() {
        var todos = Self.todos.map { (created: $0.created, completed: $0.completed, started: Date?.none) }
        todos[2].started = Self.at(11, 25)  // made 10-20, open, started 11-25
        todos[5].started = Self.at(11, 27)  // made 11-16, open, started 11-27
        let chart = Burndown(todos, dayCount: 14, today: Self.at(11, 28, 12), calendar: Self.utc)
        #expect(chart.days.map(\.started) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2])
        #expect(chart.days.last?.pending == 3 && chart.days.last?.done == 7)
        let lines = chart.text(width: 80, height: 16)
        #expect(lines.count == 21 && lines.allSatisfy { $0.count <= 80 })
        // The last bar, bottom up: seven done (9 rows of 16 at 12), two started (3 rows), three pending (4 rows).
        let lastBar = lines[1...16].map { $0.count >= 61 ? String(Array($0)[58..<61]) : "   " }
        #expect(lastBar == Array(repeating: "+++", count: 4) + Array(repeating: "===", count: 3) + Array(repeating: "XXX", count: 9), "\(lastBar)")
        #expect(lines[20].hasSuffix("X done  = started  + pending    today: 2 started, 3 pending, 7 done"), "\(lines[20])")
        let colour = chart.text(width: 80, height: 16, ink: ReportInk(colour: true)).joined()
        #expect(colour.contains("\u{1B}[34m███\u{1B}[0m"), "the started band in its own colour")
    }

    @Test func colourMarksTheBarsOnly() {
        let chart = Burndown(Self.todos, dayCount: 14, today: Self.at(11, 28, 12), calendar: Self.utc)
        let lines = chart.text(width: 80, height: 16, ink: ReportInk(colour: true))
        #expect(lines.count == 21)
        #expect(lines.joined().contains("\u{1B}[32m███\u{1B}[0m") && lines.joined().contains("\u{1B}[33m███\u{1B}[0m"))
        #expect(!lines.joined().contains("X") && !lines.joined().contains("+++"))
    }
}
