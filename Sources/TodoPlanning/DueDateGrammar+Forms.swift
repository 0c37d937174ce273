import Foundation

/// How each accepted form of a due date is read (the rules of `DueDateGrammar.rules` call these).
extension DueDateGrammar {
    /// The day `now` falls on in `calendar`'s time zone.
    var today: GregorianDay? { GregorianDay(now, in: calendar) }

    /// `count` days from today.
    func days(_ count: Int) -> Match {
        today?.adding(days: count).map(Match.day) ?? .impossible("too far away")
    }

    /// `fri`, `friday`: the next such day strictly after today (a week on when today is that day).
    func weekday(_ text: String) -> Match {
        guard let wanted = Self.weekdayNumbers[text] else { return .notThisForm }
        guard let today else { return .impossible("too far away") }
        let ahead = (wanted - today.isoWeekday + 7) % 7
        return days(ahead == 0 ? 7 : ahead)
    }

    /// ISO weekday numbers (Monday 1) of the weekday names, full and three letters.
    static let weekdayNumbers: [String: Int] = {
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        var numbers: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            numbers[name] = index + 1
            numbers[String(name.prefix(3))] = index + 1
        }
        return numbers
    }()

    /// The largest count each unit of a relative date takes (about 270 years ahead at most).
    static let relativeLimits: [Character: Int] = ["d": 100_000, "w": 10_000, "m": 3_000, "y": 250]

    /// `+3d`, `+2w`, `+1m`, `+1y`: days, weeks, months or years from today (`-3d`: ago); months and years keep the day of the
    /// month, or the month's last day when it is shorter (`+1m` on January 31 is February 28).
    func relative(_ text: String) -> Match {
        guard let sign = text.first, sign == "+" || sign == "-", let unit = text.last, let limit = Self.relativeLimits[unit] else {
            return .notThisForm
        }
        let digits = text.dropFirst().dropLast()
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return .notThisForm }
        guard let number = GregorianDay.number(digits), number <= limit else { return .impossible("at most \(sign)\(limit)\(unit)") }
        guard let today else { return .impossible("too far away") }
        // `-3d` counts back: three days ago.
        let count = sign == "-" ? -number : number
        let day: GregorianDay? =
            switch unit {
            case "d": today.adding(days: count)
            case "w": today.adding(days: count * 7)
            case "m": today.adding(months: count, clamp: true)
            default: today.adding(months: count * 12, clamp: true)
            }
        return day.map(Match.day) ?? .impossible("too far away")
    }

    /// `2026-05-01`: a day that exists in the Gregorian calendar.
    static func isoDay(_ text: String) -> Match {
        guard let (year, month, day) = dayParts(text) else { return .notThisForm }
        if let problem = GregorianDay.problem(year: year, month: month, day: day) { return .impossible(problem) }
        return GregorianDay(year: year, month: month, day: day).map(Match.day) ?? .impossible("too far away")
    }

    /// `17:00`, `9:30`, `9am`, `12pm`, `5:30pm`: a wall-clock time (12am is midnight, 12pm noon).
    static func time(_ text: String) -> Match {
        var clock = Substring(text)
        var half: Int?  // 0 for am, 12 for pm
        if clock.hasSuffix("am") || clock.hasSuffix("pm") {
            half = clock.hasSuffix("pm") ? 12 : 0
            clock = clock.dropLast(2)
        }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), (1...2).contains(parts[0].utf8.count), parts.count == 1 || parts[1].utf8.count == 2,
            half != nil || parts.count == 2, let hour = GregorianDay.number(parts[0])
        else { return .notThisForm }
        let minute = parts.count == 2 ? GregorianDay.number(parts[1]) : 0
        guard let minute else { return .notThisForm }
        if let half {
            guard (1...12).contains(hour) else { return .impossible("\(text) is not a time") }
            guard minute < 60 else { return .impossible("there is no minute \(minute)") }
            return .time(hour: hour % 12 + half, minute: minute)
        }
        guard hour < 24 else { return .impossible("there is no hour \(hour)") }
        guard minute < 60 else { return .impossible("there is no minute \(minute)") }
        return .time(hour: hour, minute: minute)
    }

    /// `2026-05-01T09:00:00Z`, with an offset (`+02:00`, `+0200`, `-05`) or a fraction of a second: the exact moment.
    static func isoMoment(_ text: String) -> Match {
        guard text.utf8.count > 10, let separator = text.firstIndex(of: "t"), let (year, month, day) = dayParts(String(text[..<separator]))
        else { return .notThisForm }
        if let problem = GregorianDay.problem(year: year, month: month, day: day) { return .impossible(problem) }
        guard let (clock, offset) = clockAndOffset(Array(text[text.index(after: separator)...].utf8)),
            let date = RepeatRule.utc.date(
                from: DateComponents(year: year, month: month, day: day, hour: clock.hour, minute: clock.minute, second: clock.second))
        else { return .impossible("not an ISO 8601 time such as 2026-05-01T09:00:00Z") }
        return .moment(date.addingTimeInterval(clock.fraction - Double(offset)))
    }

    /// `HH:MM:SS`, an optional `.fraction`, then `z` or a UTC offset: the wall-clock time and the offset in seconds.
    static func clockAndOffset(_ bytes: [UInt8]) -> ((hour: Int, minute: Int, second: Int, fraction: Double), Int)? {
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from >= 0, from + count <= bytes.count else { return nil }
            return GregorianDay.number(String(decoding: bytes[from..<from + count], as: UTF8.self))
        }
        guard bytes.count >= 9, bytes[2] == 0x3A, bytes[5] == 0x3A, let hour = digits(0, 2), let minute = digits(3, 2),
            let second = digits(6, 2), hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 8
        var fraction = 0.0
        if bytes[index] == 0x2E {  // "."
            var end = index + 1
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
            guard (1...9).contains(end - index - 1), let value = Double("0" + String(decoding: bytes[index..<end], as: UTF8.self))
            else { return nil }
            fraction = value
            index = end
        }
        let clock = (hour: hour, minute: minute, second: second, fraction: fraction)
        guard index < bytes.count else { return nil }
        if bytes[index] == 0x7A { return index + 1 == bytes.count ? (clock, 0) : nil }  // "z"
        guard bytes[index] == 0x2B || bytes[index] == 0x2D, let hours = digits(index + 1, 2), hours < 24 else { return nil }
        let sign = bytes[index] == 0x2D ? -1 : 1
        let rest = bytes.count - index - 3
        var minutes = 0
        if rest == 3, bytes[index + 3] == 0x3A, let value = digits(index + 4, 2) {
            minutes = value
        } else if rest == 2, let value = digits(index + 3, 2) {
            minutes = value
        } else if rest != 0 {
            return nil
        }
        guard minutes < 60 else { return nil }
        return (clock, sign * (hours * 3600 + minutes * 60))
    }

    /// Year, month and day of exactly `DDDD-DD-DD` (ASCII digits), or nil.
    static func dayParts(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 4, parts[1].utf8.count == 2, parts[2].utf8.count == 2,
            let year = GregorianDay.number(parts[0]), let month = GregorianDay.number(parts[1]), let day = GregorianDay.number(parts[2])
        else { return nil }
        return (year, month, day)
    }
}
