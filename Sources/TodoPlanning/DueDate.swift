import Foundation

/// When a todo is due: a calendar day (all day), or a moment, as the person gave it.
///
/// An all-day due date is a floating calendar date: `date` is 00:00 UTC of that day, and the day is read in the UTC
/// (`floating`) calendar by every device whatever its zone, so 2026-12-10 stays 2026-12-10 in Tokyo and in New York.
/// A timed due date is an instant, shown in the reader's zone. On the wire it is the `dueDate` TIMESTAMP beside the
/// `allDay` INT64 field (absent: all day, as records written before due times existed are).
///
/// Versions before this one stored an all-day date as the writer's local midnight. `init` reads such an instant as
/// the day `floatingDay(ofStored:)` gives (see docs/PLANNING.md, "Due dates across time zones").
public struct DueDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The moment (timed), or 00:00 UTC of the day (all day).
    public var date: Date
    /// Whether only the day counts (no time of day).
    public var allDay: Bool

    /// A due date at a moment, or on a day when `allDay` (the day `floatingDay(ofStored:)` reads from `date`).
    public init(_ date: Date, allDay: Bool) {
        self.date = allDay ? DueDate.floatingDay(ofStored: date) : date
        self.allDay = allDay
    }

    /// The calendar all-day dates are read in: Gregorian, UTC, whatever the device's zone.
    public static let floating: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The all-day due date of a calendar day, nil when the day does not exist.
    public static func day(year: Int, month: Int, day: Int) -> DueDate? {
        guard (1...12).contains(month), (1...31).contains(day),
            let date = floating.date(from: DateComponents(year: year, month: month, day: day)),
            floating.component(.day, from: date) == day
        else { return nil }
        return DueDate(date, allDay: true)
    }

    /// The day `date` falls on in `calendar` (the person's zone), all day.
    public static func day(_ date: Date, in calendar: Calendar) -> DueDate {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return day(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
            ?? DueDate(date, allDay: true)
    }

    /// The all-day date a stored instant means: 00:00 UTC of its day.
    ///
    /// This version writes exactly 00:00 UTC, which reads back unchanged. Earlier versions wrote the writer's local
    /// midnight, which lies between 14 hours before and 12 hours after 00:00 UTC of the intended day (zones UTC−12 to
    /// UTC+14). The ranges of neighbouring days overlap by two hours, so the rule splits them at 10:15 past UTC
    /// midnight: an instant up to 10 hours after a UTC midnight (zones UTC to UTC−10, Hawaii) is that day, one at
    /// 10:15 or later (zones UTC+1 to UTC+13:45, New Zealand, Chatham) is the next day. Only writers in UTC−11
    /// (American Samoa, Niue) and UTC+14 (Kiribati's Line Islands) are read a day off.
    public static func floatingDay(ofStored date: Date) -> Date {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return date }
        let day = ((seconds + 13.75 * 3_600) / 86_400).rounded(.down)
        return Date(timeIntervalSince1970: day * 86_400)
    }

    /// Ordered as the person meets them (`localMoment`: an all-day date at the start of its day in this device's
    /// zone); on the same moment an all-day date comes first.
    public static func < (lhs: DueDate, rhs: DueDate) -> Bool {
        let (left, right) = (lhs.localMoment, rhs.localMoment)
        if left != right { return left < right }
        return lhs.allDay && !rhs.allDay
    }

    /// When this due date begins for the person at this device, in seconds since 1970: the moment when timed, the
    /// start of the day in the device's zone when all day (00:00 UTC of the day less the zone's offset), so that a
    /// timed todo on the evening before sorts before the day in New York as in Tokyo.
    public var localMoment: Double { localMoment(offset: TimeZone.current.secondsFromGMT(for:)) }

    /// `localMoment` in the zone whose offset at a moment `offset` gives.
    func localMoment(offset: (Date) -> Int) -> Double {
        let seconds = date.timeIntervalSince1970
        guard allDay, seconds.isFinite else { return seconds }
        return seconds - Double(offset(date))
    }

    /// Moments that order `dues` among themselves as their `localMoment`s do, the zone's offset (`offset`, the device's
    /// zone when nil) asked only when it can change that order: when all-day and timed dates are both among them.
    ///
    /// Two all-day dates a day or more apart keep their order in any zone (their starts move by the zone's offset,
    /// hours), and two timed dates are instants, so a list of one kind is ordered by `date` alone. Finding the device's
    /// zone was 7 % of a `todo list +home` over 1,000 todos, with ICU's zone data in its memory.
    public static func orderingMoments(_ dues: [DueDate?], offset: ((Date) -> Int)? = nil) -> [Double?] {
        var (allDay, timed) = (false, false)
        for due in dues {
            guard let due else { continue }
            if due.allDay { allDay = true } else { timed = true }
        }
        guard allDay && timed else { return dues.map { $0?.date.timeIntervalSince1970 } }
        let offset = offset ?? { [zone = TimeZone.current] in zone.secondsFromGMT(for: $0) }
        return dues.map { $0?.localMoment(offset: offset) }
    }

    /// The order of two todos' due dates in a list: the sooner (by `localMoment`) first, none last; nil when they
    /// begin at the same moment or neither has one.
    public static func soonerFirst(_ a: DueDate?, _ b: DueDate?) -> Bool? { soonerFirst(moments: a?.localMoment, b?.localMoment) }

    /// `soonerFirst` of two due dates' `localMoment`s, read beforehand: a sort compares each date many times, and
    /// an all-day date's moment asks the time zone each time it is read.
    public static func soonerFirst(moments a: Double?, _ b: Double?) -> Bool? {
        switch (a, b) {
        case let (x?, y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return nil
        }
    }

    /// The year, month and day: of the floating day when all day, of the moment in `calendar` when timed.
    public func day(in calendar: Calendar) -> (year: Int, month: Int, day: Int) {
        let parts = (allDay ? DueDate.floating : calendar).dateComponents([.year, .month, .day], from: date)
        return (parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The moment this due date begins for a person in `calendar`'s zone: the start of the day there when all day,
    /// else the moment itself. What a local calendar should read instead of `date`.
    public func start(in calendar: Calendar) -> Date {
        guard allDay else { return date }
        let (year, month, day) = day(in: calendar)
        return calendar.date(from: DateComponents(year: year, month: month, day: day)).map { calendar.startOfDay(for: $0) } ?? date
    }

    /// The last moment this due date is still not overdue: the end of its day in `calendar`'s zone when all day,
    /// else the moment itself.
    public func deadline(in calendar: Calendar) -> Date {
        guard allDay else { return date }
        let start = start(in: calendar)
        return calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
    }

    /// "2026-05-01" (all day, the same in every zone) or "2026-05-01 09:30" in `calendar`'s time zone (made only for
    /// a time, or a day outside 1583–9999).
    public func text(in calendar: @autoclosure () -> Calendar) -> String {
        if allDay, let day = DueDate.floatingDayText(date) { return day }
        let parts = (allDay ? DueDate.floating : calendar()).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { let v = value ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        let day = "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))"
        return allDay ? day : day + " " + two(parts.hour) + ":" + two(parts.minute)
    }

    public var description: String { "\(date.timeIntervalSince1970)\(allDay ? " all day" : "")" }

    /// "2026-05-01" of the UTC day `date` falls on, worked out from the days since 1970, for the years 1583 to 9999:
    /// there `floating` (Gregorian, Julian before 15 October 1582) gives the same day, and its arithmetic was 4,000
    /// instructions a line of `todo list`. Nil outside those years.
    static func floatingDayText(_ date: Date) -> String? {
        let seconds = date.timeIntervalSince1970
        guard seconds >= -12_212_553_600, seconds < 253_402_300_800 else { return nil }
        let day = CompactTime.civil(days: Int((seconds / 86_400).rounded(.down)))
        let digit = CompactTime.digit
        let text: [UInt8] = [
            digit(day.year / 1000), digit(day.year / 100), digit(day.year / 10), digit(day.year), 0x2D, digit(day.month / 10), digit(day.month),
            0x2D, digit(day.day / 10), digit(day.day),
        ]
        return String(decoding: text, as: UTF8.self)
    }
}

/// `DueDate.start(in:)` for many due dates in one calendar, each all-day day worked out once: a file of thousands of
/// todos names a few hundred days, and the calendar's arithmetic for each date was a tenth of an export.
struct DayStarts {
    let calendar: Calendar
    private var known: [Date: Date] = [:]

    init(calendar: Calendar) {
        self.calendar = calendar
    }

    /// The moment `due` begins in the calendar's zone (the same answer as `due.start(in: calendar)`).
    mutating func start(of due: DueDate) -> Date {
        guard due.allDay else { return due.date }
        if let start = known[due.date] { return start }
        let start = due.start(in: calendar)
        known[due.date] = start
        return start
    }
}
