import Foundation
import Terminal
import TodoPlanning

/// Pure, locale-independent formatting and parsing used by the renderer and the edit form.
public enum Formatting {
    /// The Gregorian calendar in the local time zone. Due dates are ISO 8601 days whatever calendar the locale
    /// prefers, and this one needs no ICU calendar data (megabytes of a 100,000-todo process's memory).
    public static var isoCalendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return calendar
    }

    /// "3,400": thousands separated by commas, whatever the locale.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }

    /// "1 todo", "1,200 todos".
    public static func counted(_ count: Int, _ noun: String) -> String {
        "\(grouped(count)) \(noun)\(count == 1 ? "" : "s")"
    }

    /// "2 s ago", "5 min ago", "3 h ago", "2 d ago" (future times count as "just now").
    public static func ago(_ date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date).rounded(.down))
        switch seconds {
        case ..<1: return "just now"
        case ..<60: return "\(seconds) s ago"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86_400) d ago"
        }
    }

    /// "2026-05-01" in the calendar's time zone.
    public static func day(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let year = parts.year ?? 0
        let month = parts.month ?? 0
        let day = parts.day ?? 0
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    /// "Mon" … "Sun", in English whatever the locale.
    public static func weekday(_ date: Date, calendar: Calendar) -> String {
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return names[(calendar.component(.weekday, from: date) - 1 + 7) % 7]
    }

    /// "09:30" in the calendar's time zone.
    public static func time(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let hour = parts.hour ?? 0
        let minute = parts.minute ?? 0
        return "\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute)"
    }

    /// A due date as a list row shows it: the day ("2026-05-01"); when timed, "today 09:30" or, within the next six
    /// days, "Fri 17:00".
    public static func due(_ due: DueDate, now: Date, calendar: Calendar) -> String {
        guard !due.allDay else { return due.text(in: calendar) }
        let today = calendar.startOfDay(for: now)
        let days = calendar.dateComponents([.day], from: today, to: calendar.startOfDay(for: due.date)).day ?? -1
        switch days {
        case 0: return "today " + time(due.date, calendar: calendar)
        case 1...6: return weekday(due.date, calendar: calendar) + " " + time(due.date, calendar: calendar)
        default: return day(due.date, calendar: calendar)
        }
    }

    /// A due date in full, for the detail view: "Fri 2026-03-13 17:00" or "Fri 2026-03-13 (all day)".
    public static func dueInFull(_ due: DueDate, calendar: Calendar) -> String {
        // An all-day date is read at its start in `calendar`'s zone: the same calendar day, whatever the zone.
        let start = due.start(in: calendar)
        return weekday(start, calendar: calendar) + " " + day(start, calendar: calendar) + " "
            + (due.allDay ? "(all day)" : time(due.date, calendar: calendar))
    }

    /// How a due date stands at `now`: overdue (its deadline passed), today, or later.
    static func urgency(of due: DueDate, now: Date, calendar: Calendar) -> DueUrgency {
        if due.deadline(in: calendar) <= now { return .overdue }
        return calendar.isDate(due.start(in: calendar), inSameDayAs: now) ? .today : .later
    }

    /// Wraps `text` into lines at most `width` columns wide, breaking at spaces where it can (newlines kept).
    public static func wrapped(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var piece = String(word)
                var pieceWidth = displayWidth(piece)
                if lineWidth > 0, lineWidth + 1 + pieceWidth <= width {
                    line += " " + piece
                    lineWidth += 1 + pieceWidth
                    continue
                }
                if lineWidth > 0 || !line.isEmpty {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                // A word wider than the line is cut.
                while pieceWidth > width {
                    var head = ""
                    var headWidth = 0
                    var rest = Substring(piece)
                    while let first = rest.first, headWidth + displayWidth(of: first) <= width {
                        head.append(first)
                        headWidth += displayWidth(of: first)
                        rest = rest.dropFirst()
                    }
                    if head.isEmpty, let first = rest.first {
                        head.append(first)
                        rest = rest.dropFirst()
                    }
                    lines.append(head)
                    piece = String(rest)
                    pieceWidth = displayWidth(piece)
                }
                line = piece
                lineWidth = pieceWidth
            }
            lines.append(line)
        }
        return lines
    }
}

/// How urgent a due date is now.
enum DueUrgency {
    /// Its deadline passed.
    case overdue
    /// Due later today.
    case today
    /// Due after today.
    case later
}
