import Foundation
import Terminal
import TodoPlanning

/// The calendar view (`C`): a month as a grid, the days with open todos due counted, today highlighted, and the
/// todos due on the selected day below it. The filter and context in effect apply, as they do to Today and Next.
public struct CalendarView: Hashable, Sendable {
    /// The month shown.
    public var grid: MonthGrid
    /// The selected day of that month.
    public var day: Int

    /// The view on `day` of `grid`'s month.
    public init(grid: MonthGrid, day: Int) {
        self.grid = grid
        self.day = min(max(1, day), grid.dayCount)
    }

    /// The keys of the view (fixed), for the status line and docs/USAGE.md.
    public static let keys: [(keys: String, description: String)] = [
        ("← → ↑ ↓ (h l k j)", "the day before / after, a week before / after"),
        ("< > PgUp PgDn", "the month before / after"),
        ("t", "today"),
        ("Esc q C", "close"),
    ]
}

extension AppState {
    /// Opens the calendar on today, or closes it.
    mutating func toggleCalendar() {
        if case .calendar = mode {
            mode = .list
            message = nil
            return
        }
        guard let grid = MonthGrid.containing(now, in: calendar, sundayFirst: sundayFirst) else { return }
        mode = .calendar(CalendarView(grid: grid, day: calendar.component(.day, from: now)))
        message = StatusMessage("Calendar: arrows move a day or a week, < > a month, t today, Esc closes")
    }

    /// A key in the calendar view.
    mutating func reduceCalendar(_ view: CalendarView, _ key: Key) -> [Effect] {
        var view = view
        switch key {
        case .left, .char("h"): view = moved(view, days: -1)
        case .right, .char("l"): view = moved(view, days: 1)
        case .up, .char("k"): view = moved(view, days: -7)
        case .down, .char("j"): view = moved(view, days: 7)
        case .pageUp, .char("<"): view = CalendarView(grid: view.grid.adding(months: -1) ?? view.grid, day: view.day)
        case .pageDown, .char(">"): view = CalendarView(grid: view.grid.adding(months: 1) ?? view.grid, day: view.day)
        case .char("t"):
            guard let grid = MonthGrid.containing(now, in: calendar, sundayFirst: sundayFirst) else { return [] }
            view = CalendarView(grid: grid, day: calendar.component(.day, from: now))
        case .escape, .char("q"), .char("C"):
            mode = .list
            message = nil
            return []
        default:
            if keymap.command(for: key) == .calendar {
                mode = .list
                message = nil
            }
            return []
        }
        mode = .calendar(view)
        return []
    }

    /// The view `days` days from its selected day (into the month before or after when it leaves this one).
    private func moved(_ view: CalendarView, days: Int) -> CalendarView {
        var grid = view.grid
        var day = view.day + days
        while day < 1, let before = grid.adding(months: -1) {
            grid = before
            day += before.dayCount
        }
        while day > grid.dayCount, let after = grid.adding(months: 1) {
            day -= grid.dayCount
            grid = after
        }
        return CalendarView(grid: grid, day: day)
    }

    /// The open todos (the filter and context in effect applied) due in the view's month, by day of the month,
    /// each day's in the Next view's order of due time, then title.
    func calendarDues(_ grid: MonthGrid) -> [Int: [TodoRow]] {
        var byDay: [Int: [TodoRow]] = [:]
        for tab in Tab.allCases {
            guard let data = tabs[tab] else { continue }
            for index in data.rows.indices {
                let row = data.rows[index]
                guard !row.isCompleted, !row.isList, let due = row.due else { continue }
                let day = due.day(in: calendar)
                guard day.year == grid.year, day.month == grid.month, filterMatches(index, in: data) else { continue }
                byDay[day.day, default: []].append(row)
            }
        }
        for day in byDay.keys {
            byDay[day]?.sort { a, b in
                if let byDue = DueDate.soonerFirst(a.due, b.due) { return byDue }
                return a.title.lowercased() < b.title.lowercased()
            }
        }
        return byDay
    }
}
