import Foundation
import Testing
import TodoApp
import TodoPlanning

/// `todo calendar`'s page as printed at 80×24, plain (NO_COLOR, a pipe) and in colour, as of a fixed day.
@Suite("Calendar page text")
struct CalendarPageTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
    static let today = utc.date(from: DateComponents(year: 2026, month: 3, day: 10, hour: 12))!

    func page(sundayFirst: Bool = false) -> CalendarPage {
        let grid = MonthGrid(year: 2026, month: 3, sundayFirst: sundayFirst)!
        let dues = [DueDate.day(year: 2026, month: 3, day: 1)!, .day(year: 2026, month: 3, day: 10)!, .day(year: 2026, month: 3, day: 10)!,
            .day(year: 2026, month: 3, day: 31)!, .day(year: 2026, month: 4, day: 1)!]
        return CalendarPage(grid: grid, counts: grid.dueCounts(dues, in: Self.utc), today: Self.today, calendar: Self.utc)
    }

    @Test func plainAt80x24() {
        let lines = page().text()
        #expect(lines.count <= 23 && lines.allSatisfy { $0.count <= 80 })
        #expect(lines.joined(separator: "\n") == """
                                          March 2026
             Mon       Tue       Wed       Thu       Fri       Sat       Sun
                                                                          1 !1
              2         3         4         5         6         7         8
              9       [10]*2     11        12        13        14        15
             16        17        18        19        20        21        22
             23        24        25        26        27        28        29
             30        31 *1

            [10] today   *n n todos due   !n overdue
            4 open todos due in March 2026
            """)
        #expect(page(sundayFirst: true).text()[2] == "  1 !1      2         3         4         5         6         7")
    }

    @Test func colourHighlightsTodayAndMarksDueDays() {
        let lines = page().text(ink: ReportInk(colour: true))
        #expect(lines[0] == "\u{1B}[1m" + String(repeating: " ", count: 30) + "March 2026\u{1B}[0m")
        // Today reversed with its count in the due colour; the 1st, past, in the overdue colour.
        #expect(lines[4].contains("\u{1B}[1;7m 10 \u{1B}[0m\u{1B}[1;36m•2\u{1B}[0m"), "\(lines[4])")
        #expect(lines[2].hasSuffix("\u{1B}[1;31m  1 \u{1B}[0m\u{1B}[1;31m•1\u{1B}[0m"), "\(lines[2])")
        #expect(!lines.joined().contains("[10]"))
    }

    @Test func monthWords() {
        func named(_ words: String) -> String? { MonthGrid.named(words, today: Self.today, calendar: Self.utc)?.title }
        #expect(named("") == "March 2026" && named("this month") == "March 2026")
        #expect(named("dec") == "December 2026" && named("December 2027") == "December 2027" && named("2027-02") == "February 2027")
        #expect(named("next month") == "April 2026" && named("+1m") == "April 2026" && named("2026-12-24") == "December 2026")
        #expect(named("smarch") == nil && named("2026-13") == nil && named("de") == nil)
        #expect(MonthGrid(year: 2027, month: 2)?.weeks.count == 4)  // February 2027 starts on a Monday
        #expect(MonthGrid(year: 2026, month: 3)?.weeks.count == 6)
    }
}
