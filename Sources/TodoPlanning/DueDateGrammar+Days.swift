import Foundation

/// A day of the proleptic Gregorian calendar from year 1 to 9999, with its arithmetic done in whole days, so that
/// counting days, weeks and months never depends on time zones or daylight saving.
struct GregorianDay: Sendable, Hashable, Comparable {
    /// The year, 1…9999.
    let year: Int
    /// The month, 1…12.
    let month: Int
    /// The day of the month, 1…(length of the month).
    let day: Int

    /// The day, when it exists and lies within years 1…9999.
    init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= Self.length(month: month, year: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `serial` days after 0001-01-01, when within years 1…9999.
    init?(serial: Int) {
        guard serial >= 0, serial < Self.daysBefore(year: 10_000) else { return nil }
        var year = serial / 366 + 1
        while Self.daysBefore(year: year + 1) <= serial { year += 1 }
        var rest = serial - Self.daysBefore(year: year)
        var month = 1
        while month < 12, rest >= Self.length(month: month, year: year) {
            rest -= Self.length(month: month, year: year)
            month += 1
        }
        self.init(year: year, month: month, day: rest + 1)
    }

    /// The day `date` falls on in `calendar`'s time zone; nil for moments outside years 1…9999.
    init?(_ date: Date, in calendar: Calendar) {
        let seconds = date.timeIntervalSince1970
        // 0001-01-02 to 9999-12-30 UTC: every time zone's day of such a moment is in range.
        guard seconds.isFinite, seconds > -62_135_510_400, seconds < 253_402_128_000 else { return nil }
        let parts = Self.gregorian(like: calendar).dateComponents([.year, .month, .day], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Days since 0001-01-01 (which was a Monday).
    var serial: Int {
        var days = Self.daysBefore(year: year) + day - 1
        for earlier in 1..<month { days += Self.length(month: earlier, year: year) }
        return days
    }

    /// 1 for Monday … 7 for Sunday.
    var isoWeekday: Int { serial % 7 + 1 }

    /// How many days this month has.
    var monthLength: Int { Self.length(month: month, year: year) }

    /// `YYYY-MM-DD`.
    var text: String {
        let digits = String(year)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "-" + Self.two(month) + "-" + Self.two(day)
    }

    /// The day `count` days later (earlier when negative), when within range.
    func adding(days count: Int) -> GregorianDay? {
        let (sum, overflow) = serial.addingReportingOverflow(count)
        return overflow ? nil : GregorianDay(serial: sum)
    }

    /// The same day of the month `count` months later; a day the month lacks is clamped to its last day when
    /// `clamp`, else there is no such day (nil).
    func adding(months count: Int, clamp: Bool) -> GregorianDay? {
        guard abs(count) <= 120_000 else { return nil }
        let index = year * 12 + (month - 1) + count
        let newYear = index / 12
        let newMonth = index % 12 + 1
        guard (1...9999).contains(newYear) else { return nil }
        let length = Self.length(month: newMonth, year: newYear)
        guard clamp || day <= length else { return nil }
        return GregorianDay(year: newYear, month: newMonth, day: min(day, length))
    }

    /// The first moment of this day in `calendar`'s time zone.
    func start(in calendar: Calendar) -> Date? {
        let gregorian = Self.gregorian(like: calendar)
        return gregorian.date(from: DateComponents(year: year, month: month, day: day)).map { gregorian.startOfDay(for: $0) }
    }

    /// This day at a wall-clock time in `calendar`'s time zone; a time skipped by a clock change moves on by the
    /// length of the gap (2:30 on a spring-forward night becomes 3:30), as RFC 5545 says.
    func at(hour: Int, minute: Int, second: Int, in calendar: Calendar) -> Date? {
        Self.gregorian(like: calendar).date(
            from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    /// Whether `date` reads as exactly this day at `hour:minute` in `calendar`'s time zone (false in a gap).
    func shows(_ date: Date, hour: Int, minute: Int, in calendar: Calendar) -> Bool {
        let parts = Self.gregorian(like: calendar).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return parts.year == year && parts.month == month && parts.day == day && parts.hour == hour && parts.minute == minute
    }

    static func < (lhs: GregorianDay, rhs: GregorianDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Days in years 1 up to (not including) `year`.
    static func daysBefore(year: Int) -> Int {
        let past = year - 1
        return past * 365 + past / 4 - past / 100 + past / 400
    }

    /// Whether February of `year` has 29 days.
    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// Days in `month` of `year`.
    static func length(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `calendar` when it is Gregorian, else a Gregorian calendar in its time zone.
    static func gregorian(like calendar: Calendar) -> Calendar {
        if calendar.identifier == .gregorian { return calendar }
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = calendar.timeZone
        return gregorian
    }

    /// Two digits, zero-padded.
    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// Why a day does not exist ("there is no month 13", "February 2026 has 28 days"), or nil when it does.
    static func problem(year: Int, month: Int, day: Int) -> String? {
        guard year >= 1 else { return "there is no year 0" }
        guard (1...12).contains(month) else { return "there is no month \(month)" }
        let length = length(month: month, year: year)
        guard (1...length).contains(day) else { return "\(monthNames[month - 1]) \(year) has \(length) days" }
        return nil
    }

    /// The value of a run of ASCII digits (at most 9 of them), else nil.
    static func number<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9 else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
