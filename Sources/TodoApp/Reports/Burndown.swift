import Foundation

/// `todo burndown`: for each day of the last weeks, how many todos were open at its end (started ones apart) and how
/// many had been done since the first day, as a stacked bar chart (Taskwarrior's `burndown.daily`: done, started and
/// pending bands).
public struct Burndown: Sendable, Hashable {
    /// One day's counts.
    public struct Day: Sendable, Hashable {
        /// The day's start, in the report's calendar.
        public var start: Date
        /// Open at the end of the day and not started: made by then, not done by then.
        public var pending: Int
        /// Open at the end of the day and started by then (active).
        public var started = 0
        /// Done from the first day of the chart to the end of this one.
        public var done: Int
    }

    /// The days, oldest first; the last is today.
    public private(set) var days: [Day] = []
    /// The calendar (and zone) the days are cut in.
    public let calendar: Calendar

    /// The chart of `todos` (when each was made, nil if unknown: before the chart; when it was done, nil if open)
    /// over the `dayCount` days that end with the day of `today`; none of them started.
    public init(_ todos: [(created: Date?, completed: Date?)], dayCount: Int, today: Date, calendar: Calendar) {
        self.init(todos.map { ($0.created, $0.completed, nil) }, dayCount: dayCount, today: today, calendar: calendar)
    }

    /// The chart of `todos` as above, each with when it was started if it is active (`todo start`): from then on, while
    /// open, it counts as started, not pending. Only the start of an open todo is kept (done clears it), so a todo
    /// done since counts as pending on the days it was active, not started.
    public init(_ todos: [(created: Date?, completed: Date?, started: Date?)], dayCount: Int, today: Date, calendar: Calendar) {
        self.calendar = calendar
        let last = calendar.startOfDay(for: today)
        guard dayCount > 0, let first = calendar.date(byAdding: .day, value: -(dayCount - 1), to: last) else { return }
        for offset in 0..<dayCount {
            guard let start = calendar.date(byAdding: .day, value: offset, to: first),
                let end = calendar.date(byAdding: .day, value: 1, to: start)
            else { continue }
            var day = Day(start: start, pending: 0, done: 0)
            for todo in todos where (todo.created ?? .distantPast) < end {
                if let completed = todo.completed, completed < end {
                    if completed >= first { day.done += 1 }
                } else if let started = todo.started, started < end {
                    day.started += 1
                } else {
                    day.pending += 1
                }
            }
            days.append(day)
        }
    }

    /// The chart as lines of text for a terminal `width` columns wide, its bars `height` rows tall.
    public func text(width: Int = 80, height: Int = 16, ink: ReportInk = .plain) -> [String] {
        guard let firstDay = days.first, let lastDay = days.last else { return ["No days to chart."] }
        let axis = 6  // "  12 |"
        let column = max(1, min(4, (width - axis) / days.count))
        let bar = column >= 2 ? column - 1 : 1
        let top = max(1, days.map { $0.pending + $0.started + $0.done }.max() ?? 1)
        var out = [ink.paint("Burndown, daily: \(Self.dayText(firstDay.start, calendar)) to \(Self.dayText(lastDay.start, calendar))", .heading)]
        // Each band's top, rounded from the sums below it, so the bands of a bar always add up to its height.
        let heights = days.map { day -> (done: Int, started: Int, all: Int) in
            let rows = { (count: Int) in Int((Double(count * height) / Double(top)).rounded()) }
            let all = rows(day.pending + day.started + day.done)
            let started = min(rows(day.started + day.done), all)
            return (min(rows(day.done), started), started, all)
        }
        for level in stride(from: height - 1, through: 0, by: -1) {
            var label = ""
            if level == height - 1 { label = String(top) } else if level == height / 2 - 1, top >= 4 { label = String(top / 2) }
            var row = ink.paint(rightAligned(label, axis - 2) + " |", .muted)
            for (index, height) in heights.enumerated() {
                let mark: String
                if level < height.done {
                    mark = ink.colour ? ink.paint(String(repeating: "█", count: bar), .done) : String(repeating: "X", count: bar)
                } else if level < height.started {
                    mark = ink.colour ? ink.paint(String(repeating: "█", count: bar), .started) : String(repeating: "=", count: bar)
                } else if level < height.all {
                    mark = ink.colour ? ink.paint(String(repeating: "█", count: bar), .pending) : String(repeating: "+", count: bar)
                } else {
                    mark = String(repeating: " ", count: bar)
                }
                row += mark + (index < heights.count - 1 ? String(repeating: " ", count: column - bar) : "")
            }
            out.append(Self.trimmedRight(row))
        }
        out.append(ink.paint(rightAligned("0", axis - 2) + " +" + String(repeating: "-", count: column * days.count), .muted))
        out.append(Self.trimmedRight(String(repeating: " ", count: axis) + labels(column: column, width: width - axis)))
        out.append(Self.trimmedRight(String(repeating: " ", count: axis) + months(column: column)))
        let legend = ink.colour
            ? ink.paint("█", .done) + " done  " + ink.paint("█", .started) + " started  " + ink.paint("█", .pending) + " pending"
            : "X done  = started  + pending"
        let started = lastDay.started > 0 ? "\(lastDay.started) started, " : ""
        out.append(String(repeating: " ", count: axis) + legend + "    today: \(started)\(lastDay.pending) pending, \(lastDay.done) done")
        return out
    }

    /// Day numbers under the bars: every day when there is room for two digits and a space, else every few days.
    private func labels(column: Int, width: Int) -> String {
        let every = column >= 3 ? 1 : (3 + column - 1) / column
        var line = ""
        for (index, day) in days.enumerated() {
            let at = index * column
            guard index % every == 0, line.count <= at else { continue }
            line += String(repeating: " ", count: at - line.count) + String(format: "%2d", calendar.component(.day, from: day.start))
        }
        return line
    }

    /// The month's short name under its first day shown and under each 1st.
    private func months(column: Int) -> String {
        var line = ""
        for (index, day) in days.enumerated() {
            let at = index * column
            guard index == 0 || calendar.component(.day, from: day.start) == 1, line.count <= at else { continue }
            line += String(repeating: " ", count: at - line.count) + Self.monthNames[calendar.component(.month, from: day.start) - 1]
            line += " "
        }
        return line
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func dayText(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    static func trimmedRight(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }
}
