import Foundation
import Terminal
import TodoPlanning

/// The calendar view: the month's grid (10 columns a day), then the todos due on the selected day.
extension Renderer {
    func drawCalendar(_ view: CalendarView, _ screen: inout Screen, top: Int, height: Int) {
        guard height > 0 else { return }
        let grid = view.grid
        let dues = state.calendarDues(grid)
        let cell = 10
        let left = max(0, (screen.width - cell * 7) / 2)
        let today = calendarToday(grid)
        var row = top
        let title = grid.title
        screen.put(title, row: row, col: max(0, (screen.width - title.count) / 2), style: Style(bold: true, color: .accent))
        row += 1
        for (index, name) in grid.weekdayNames.enumerated() where row < top + height {
            screen.put(name, row: row, col: left + index * cell + 1, style: .muted)
        }
        row += 1
        for week in grid.weeks where row < top + height {
            for (index, day) in week.enumerated() {
                guard let day else { continue }
                let col = left + index * cell
                let selected = day == view.day
                let count = dues[day]?.count ?? 0
                let overdue = count > 0 && (today.map { day < $0 } ?? calendarIsPast(grid))
                // Today stands out in reverse video (kept without colours); the selected day is bracketed.
                var style = count > 0 ? Style(bold: true, color: overdue ? .overdue : .today) : .plain
                if day == today { style = Style(bold: true, reverse: true, color: .accent) }
                let number = String(format: "%2d", day)
                screen.put(selected ? "[" : " ", row: row, col: col, style: selected ? .bold : .plain)
                screen.put(number, row: row, col: col + 1, style: style)
                screen.put(selected ? "]" : " ", row: row, col: col + 3, style: selected ? .bold : .plain)
                if count > 0 { screen.put("•\(count)", row: row, col: col + 4, style: Style(color: overdue ? .overdue : .today)) }
            }
            row += 1
        }
        row += 1
        guard row < top + height else { return }
        let selectedDate = DueDate.day(year: grid.year, month: grid.month, day: view.day)
        let heading = selectedDate.map { Formatting.weekday($0.date, calendar: DueDate.floating) } ?? ""
        let due = dues[view.day] ?? []
        let label = "\(heading) \(view.day) \(grid.monthName) \(grid.year): " + (due.isEmpty ? "nothing due" : Formatting.counted(due.count, "todo") + " due")
        screen.put(truncated(label, toWidth: screen.width - 1), row: row, col: 1, style: .bold)
        row += 1
        for todo in due where row < top + height {
            let time = todo.due.map { $0.allDay ? "" : Formatting.time($0.date, calendar: state.calendar) } ?? ""
            let text = "[ ] " + sanitize(todo.title) + (time.isEmpty ? "" : "  " + time)
            screen.put(truncated(text, toWidth: screen.width - 2), row: row, col: 1)
            row += 1
        }
    }

    /// Today's day of the month when today falls in `grid`'s month.
    private func calendarToday(_ grid: MonthGrid) -> Int? {
        let parts = state.calendar.dateComponents([.year, .month, .day], from: state.now)
        return parts.year == grid.year && parts.month == grid.month ? parts.day : nil
    }

    /// Whether `grid`'s month is wholly before today's.
    private func calendarIsPast(_ grid: MonthGrid) -> Bool {
        let parts = state.calendar.dateComponents([.year, .month], from: state.now)
        return (grid.year, grid.month) < (parts.year ?? 0, parts.month ?? 0)
    }
}
