import Foundation
import TodoPlanning

/// `todo calendar`'s page: the month as a grid, each day with todos due marked with how many, today highlighted and
/// past days with open todos still due marked overdue.
public struct CalendarPage: Sendable, Hashable {
    /// The month.
    public var grid: MonthGrid
    /// Open todos due per day of the month.
    public var counts: [Int: Int]
    /// Today's day of the month when today is in this month.
    public var today: Int?
    /// Whether the month is wholly before today's (its due days are all overdue).
    public var isPast: Bool

    /// The page of `grid` with `counts`, today being `today` (a day in `calendar`).
    public init(grid: MonthGrid, counts: [Int: Int], today: Date, calendar: Calendar) {
        self.grid = grid
        self.counts = counts
        let parts = calendar.dateComponents([.year, .month, .day], from: today)
        let (year, month) = (parts.year ?? 0, parts.month ?? 0)
        self.today = year == grid.year && month == grid.month ? parts.day : nil
        isPast = (grid.year, grid.month) < (year, month)
    }

    /// Each day's cell is this wide: seven make 70 columns.
    static let cell = 10

    /// The page as lines of text (70 columns; 80×24 holds it with room to spare).
    public func text(ink: ReportInk = .plain) -> [String] {
        let width = Self.cell * 7
        let title = grid.title
        var out = [ink.paint(String(repeating: " ", count: (width - title.count) / 2) + title, .heading)]
        out.append(ink.paint(grid.weekdayNames.map { padded(" " + $0, Self.cell) }.joined().trimmingTrailing(), .muted))
        for week in grid.weeks {
            var line = ""
            for day in week { line += cell(day, ink: ink) }
            out.append(line.trimmingTrailing())
        }
        let due = counts.values.reduce(0, +)
        out.append("")
        let legend = ink.colour
            ? ink.paint(" 28 ", .today) + " today   " + ink.paint("•n", .due) + " n todos due   " + ink.paint("•n", .overdue) + " overdue"
            : "[28] today   *n n todos due   !n overdue"
        out.append(legend.replacingOccurrences(of: "28", with: today.map { String(format: "%2d", $0) } ?? "dd"))
        out.append(ink.paint("\(due) open todo\(due == 1 ? "" : "s") due in \(title)", .muted))
        return out
    }

    /// One day's cell, `cell` columns wide (blank for the days of the weeks outside the month).
    private func cell(_ day: Int?, ink: ReportInk) -> String {
        guard let day else { return String(repeating: " ", count: Self.cell) }
        let number = String(format: "%2d", day)
        let count = counts[day] ?? 0
        let overdue = count > 0 && (isPast || (today.map { day < $0 } ?? false))
        var text: String
        var visible: Int
        if ink.colour {
            let shown = " \(number) "
            text = day == today ? ink.paint(shown, .today) : count > 0 ? ink.paint(shown, overdue ? .overdue : .due) : shown
            visible = 4
            if count > 0 {
                let mark = "•\(count)"
                text += ink.paint(mark, overdue ? .overdue : .due)
                visible += mark.count
            }
        } else {
            text = day == today ? "[\(number)]" : " \(number) "
            visible = 4
            if count > 0 {
                let mark = (overdue ? "!" : "*") + "\(count)"
                text += mark
                visible += mark.count
            }
        }
        return text + String(repeating: " ", count: max(1, Self.cell - visible))
    }
}

extension String {
    /// This text without the spaces at its end.
    fileprivate func trimmingTrailing() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
