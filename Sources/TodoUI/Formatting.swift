import Foundation
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

    /// Reads a due date as typed in the form with `DueDateGrammar`: `.some(nil)` for none, nil when the text
    /// is not a date the grammar accepts (its error says why: `DueDateGrammar(now:calendar:).parse`).
    public static func parseDue(_ text: String, now: Date, calendar: Calendar) -> Date?? {
        do {
            return .some(try DueDateGrammar(now: now, calendar: calendar).parse(text)?.date)
        } catch {
            return nil
        }
    }
}
