import Foundation

/// Times as iCalendar and Taskwarrior write them: `YYYYMMDD`, `YYYYMMDDTHHMMSS` (floating or with a TZID) and
/// `YYYYMMDDTHHMMSSZ` (UTC); the extended forms `YYYY-MM-DD` and `YYYY-MM-DDTHH:MM:SS[Z]` are read too.
enum CompactTime {
    /// The fields of one written time, checked to be a real day and time.
    struct Parsed: Equatable {
        var year: Int
        var month: Int
        var day: Int
        var hour = 0
        var minute = 0
        var second = 0
        /// False for a bare date.
        var hasTime = false
        /// True when it ended in `Z`.
        var utc = false
    }

    /// The fields of `text`, or nil when it is not one of the accepted shapes or not a real day and time.
    static func parse(_ text: some StringProtocol) -> Parsed? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        for byte in text.utf8 {
            guard bytes.count < 24 else { return nil }
            bytes.append(byte)
        }
        if bytes.count >= 10, bytes[4] == 0x2D, bytes[7] == 0x2D {
            if bytes.count >= 19, bytes[13] == 0x3A, bytes[16] == 0x3A { bytes.removeSubrange(16...16); bytes.removeSubrange(13...13) }
            bytes.removeSubrange(7...7)
            bytes.removeSubrange(4...4)
        }
        func number(_ range: Range<Int>) -> Int? { ASCIIDigits.number(bytes, range) }
        guard bytes.count == 8 || bytes.count == 15 || bytes.count == 16, let year = number(0..<4), let month = number(4..<6),
            let day = number(6..<8), (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= daysIn(month: month, year: year)
        else { return nil }
        var parsed = Parsed(year: year, month: month, day: day)
        guard bytes.count > 8 else { return parsed }
        guard bytes[8] == 0x54 || bytes[8] == 0x74, let hour = number(9..<11), let minute = number(11..<13),
            let second = number(13..<15), hour < 24, minute < 60, second <= 60
        else { return nil }
        if bytes.count == 16 {
            guard bytes[15] == 0x5A || bytes[15] == 0x7A else { return nil }
            parsed.utc = true
        }
        parsed.hour = hour
        parsed.minute = minute
        parsed.second = min(second, 59)
        parsed.hasTime = true
        return parsed
    }

    /// Days in `month` of `year` (Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given Gregorian day.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian day `days` after 1970-01-01.
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The moment `parsed` names: UTC when it says so, else its wall time in `timeZone` (a bare date: its midnight).
    static func date(_ parsed: Parsed, in timeZone: TimeZone) -> Date? {
        if parsed.utc {
            let seconds = days(year: parsed.year, month: parsed.month, day: parsed.day) * 86_400 + parsed.hour * 3_600
                + parsed.minute * 60 + parsed.second
            return Date(timeIntervalSince1970: Double(seconds))
        }
        let parts = DateComponents(
            year: parsed.year, month: parsed.month, day: parsed.day, hour: parsed.hour, minute: parsed.minute, second: parsed.second)
        return gregorian(timeZone).date(from: parts)
    }

    /// The start of the day `parsed` names, in `calendar`'s time zone.
    static func startOfDay(_ parsed: Parsed, in calendar: Calendar) -> Date? {
        let noon = DateComponents(year: parsed.year, month: parsed.month, day: parsed.day, hour: 12)
        guard let date = gregorian(calendar.timeZone).date(from: noon) else { return nil }
        return calendar.startOfDay(for: date)
    }

    /// Whole seconds since 1970 of `date`, when it lies in the years 1 to 9999.
    static func seconds(_ date: Date) -> Int? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= -62_135_596_800, interval < 253_402_300_800 else { return nil }
        return Int(interval.rounded(.down))
    }

    /// `YYYYMMDDTHHMMSSZ` of `date`, or nil outside the years 1 to 9999.
    static func utcText(_ date: Date) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        guard appendUTC(date, to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `YYYYMMDDTHHMMSSZ` of `date` to `bytes` (a writer's own buffer: no string is made); false, appending
    /// nothing, outside the years 1 to 9999.
    static func appendUTC(_ date: Date, to bytes: inout [UInt8]) -> Bool {
        guard let seconds = seconds(date) else { return false }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let day = civil(days: days)
        // Every part has its fixed width here (the years are 1 to 9999), so the 16 bytes are made in place and
        // appended at once: digit by digit, a 1,000-todo Taskwarrior export spent 3 M instructions on its dates.
        let hour = inDay / 3_600, minute = inDay / 60 % 60, second = inDay % 60
        let text: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            digit(day.year / 1000), digit(day.year / 100), digit(day.year / 10), digit(day.year), digit(day.month / 10), digit(day.month),
            digit(day.day / 10), digit(day.day), 0x54, digit(hour / 10), digit(hour), digit(minute / 10), digit(minute),
            digit(second / 10), digit(second), 0x5A
        )
        withUnsafeBytes(of: text) { bytes.append(contentsOf: $0) }
        return true
    }

    /// `YYYYMMDD` of the day `date` falls on in `calendar`'s time zone, or nil outside the years 1 to 9999.
    static func dateText(_ date: Date, in calendar: Calendar) -> String? {
        guard seconds(date) != nil else { return nil }
        let parts = gregorian(calendar.timeZone).dateComponents([.year, .month, .day], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day, (1...9999).contains(year) else { return nil }
        var bytes: [UInt8] = []
        append(year, width: 4, to: &bytes)
        append(month, width: 2, to: &bytes)
        append(day, width: 2, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `date` is exactly 00:00:00 on the clock of `timeZone`.
    static func isMidnight(_ date: Date, in timeZone: TimeZone) -> Bool {
        guard let seconds = seconds(date), Double(seconds) == date.timeIntervalSince1970 else { return false }
        let local = seconds + timeZone.secondsFromGMT(for: date)
        return local % 86_400 == 0
    }

    /// A Gregorian calendar in `timeZone`.
    static func gregorian(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The ASCII of `value`'s last decimal digit (`value` not negative), for parts written at a fixed width.
    static func digit(_ value: Int) -> UInt8 { 0x30 + UInt8(truncatingIfNeeded: value % 10) }

    /// The decimal digits of `value` (0 for a negative one) after as many zeros as make it `width` long: written in
    /// place, since a Taskwarrior export writes seven of these for each of thousands of dates.
    private static func append(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        let value = max(0, value)
        var digits = 1
        var scale = 1
        while value / scale >= 10 {
            scale *= 10
            digits += 1
        }
        for _ in digits..<max(width, digits) { bytes.append(0x30) }
        while scale > 0 {
            bytes.append(UInt8(0x30 + value / scale % 10))
            scale /= 10
        }
    }
}
