import Foundation

/// One month laid out as a calendar page: weeks as rows of seven days, Monday first unless told Sunday.
public struct MonthGrid: Sendable, Hashable {
    /// The year.
    public let year: Int
    /// The month, 1…12.
    public let month: Int
    /// Whether weeks start on Sunday (else Monday, ISO 8601).
    public let sundayFirst: Bool
    /// The weeks: seven days of the month each, nil before the 1st and after the last day.
    public let weeks: [[Int?]]

    /// The page of `month` of `year` (nil for a month that does not exist).
    public init?(year: Int, month: Int, sundayFirst: Bool = false) {
        guard (1...9999).contains(year), (1...12).contains(month), let first = GregorianDay(year: year, month: month, day: 1) else { return nil }
        self.year = year
        self.month = month
        self.sundayFirst = sundayFirst
        let mondayBased = first.isoWeekday - 1  // 0: Monday … 6: Sunday
        let blanks = sundayFirst ? (mondayBased + 1) % 7 : mondayBased
        var cells: [Int?] = Array(repeating: nil, count: blanks) + (1...first.monthLength).map { Optional($0) }
        while cells.count % 7 != 0 { cells.append(nil) }
        weeks = stride(from: 0, to: cells.count, by: 7).map { Array(cells[$0..<($0 + 7)]) }
    }

    /// The month's name ("December").
    public var monthName: String { GregorianDay.monthNames[month - 1] }

    /// The title of the page: "December 2026".
    public var title: String { "\(monthName) \(year)" }

    /// How many days the month has.
    public var dayCount: Int { GregorianDay.length(month: month, year: year) }

    /// The weekday names in column order, three letters each.
    public var weekdayNames: [String] {
        let monday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        return sundayFirst ? ["Sun"] + monday.dropLast() : monday
    }

    /// The page `count` months later (earlier when negative).
    public func adding(months count: Int) -> MonthGrid? {
        let index = year * 12 + (month - 1) + count
        return MonthGrid(year: index / 12, month: index % 12 + 1, sundayFirst: sundayFirst)
    }

    /// The month a date falls in, read in `calendar`.
    public static func containing(_ date: Date, in calendar: Calendar, sundayFirst: Bool = false) -> MonthGrid? {
        let parts = calendar.dateComponents([.year, .month], from: date)
        guard let year = parts.year, let month = parts.month else { return nil }
        return MonthGrid(year: year, month: month, sundayFirst: sundayFirst)
    }

    /// How many of `dues` fall on each day of this month (day of the month → count), each read in `calendar`.
    public func dueCounts(_ dues: some Sequence<DueDate>, in calendar: Calendar) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for due in dues {
            let day = due.day(in: calendar)
            if day.year == year, day.month == month { counts[day.day, default: 0] += 1 }
        }
        return counts
    }

    /// The month MONTH words name, as `todo calendar` reads them: nothing (this month), `YYYY-MM`, a month name with
    /// an optional year (`dec`, `december 2026`; without a year, this year's), `this month`, or any date the due-date
    /// grammar reads (`next month`, `+1m`, `eom`, `2026-12-24`): the month it falls in. Nil when none of those.
    public static func named(_ words: String, today: Date, calendar: Calendar, sundayFirst: Bool = false) -> MonthGrid? {
        let text = words.trimmingCharacters(in: .whitespaces).lowercased()
        let this = containing(today, in: calendar, sundayFirst: sundayFirst)
        if text.isEmpty || text == "this month" { return this }
        let parts = text.split(separator: " ").map(String.init)
        let dashed = text.split(separator: "-").map(String.init)
        if dashed.count == 2, dashed[0].count == 4, dashed[1].count <= 2, let year = Int(dashed[0]), let month = Int(dashed[1]) {
            return MonthGrid(year: year, month: month, sundayFirst: sundayFirst)
        }
        if let name = parts.first, name.count >= 3,
            let index = GregorianDay.monthNames.map({ $0.lowercased() }).firstIndex(where: { $0.hasPrefix(name) && (name.count == 3 || $0 == name) }),
            parts.count == 1 || (parts.count == 2 && parts[1].count == 4 && Int(parts[1]) != nil)
        {
            let year = parts.count == 2 ? Int(parts[1]) ?? 0 : this?.year ?? 0
            return MonthGrid(year: year, month: index + 1, sundayFirst: sundayFirst)
        }
        guard let date = try? DueDateGrammar(now: today, calendar: calendar).parse(text) else { return nil }
        let day = date.day(in: calendar)
        return MonthGrid(year: day.year, month: day.month, sundayFirst: sundayFirst)
    }
}
