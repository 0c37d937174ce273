import Foundation

/// The words Taskwarrior users type for dates (`sow`, `eoww`, `dec 24`, `15th`, `in 3 days`, `next fri`), read as
/// days of the one grammar so that they also take a time after them (`dec 24 9am`).
extension DueDateGrammar {
    /// The periods `s…`/`e…` words name, by their letters.
    enum Period: String, CaseIterable, Sendable {
        case day = "d", week = "w", workWeek = "ww", month = "m", quarter = "q", year = "y"
    }

    /// Whether `word` names the end of a period (`eod`, `eow`, `eopm` …): a filter's `due.before:` takes it whole.
    public static func namesEndOfPeriod(_ word: String) -> Bool {
        guard case .some((true, _, _)) = periodWord(word.lowercased()) else { return false }
        return true
    }

    /// `sow` → (start, this, week); `eonm` → (end, next, month): whether it is the end, which period from this one
    /// (-1 previous, 0 this, 1 next), and the period.
    static func periodWord(_ text: String) -> (end: Bool, offset: Int, period: Period)? {
        guard text.utf8.count >= 3, text.utf8.count <= 5 else { return nil }
        let end: Bool
        if text.hasPrefix("so") { end = false } else if text.hasPrefix("eo") { end = true } else { return nil }
        var rest = text.dropFirst(2)
        var offset = 0
        if let which = rest.first, which == "p" || which == "n", Period(rawValue: String(rest.dropFirst())) != nil {
            offset = which == "p" ? -1 : 1
            rest = rest.dropFirst()
        }
        guard let period = Period(rawValue: String(rest)) else { return nil }
        return (end, offset, period)
    }

    /// `sod`, `eod`, `sow`, `eoww`, `som`, `eoq`, `soy`, with `p` (previous) or `n` (next) after the `so`/`eo`: the
    /// first or last day of that period. Weeks start on Monday; the work week ends on Friday.
    func periodEdge(_ text: String) -> Match {
        guard let (end, offset, period) = Self.periodWord(text) else { return .notThisForm }
        guard let today else { return .impossible("too far away") }
        let first: GregorianDay?
        let last: GregorianDay?
        switch period {
        case .day:
            first = today.adding(days: offset)
            last = first
        case .week, .workWeek:
            first = today.adding(days: 1 - today.isoWeekday + 7 * offset)
            last = first?.adding(days: period == .week ? 6 : 4)
        case .month, .quarter, .year:
            let months = period == .month ? 1 : period == .quarter ? 3 : 12
            let startMonth = (today.month - 1) / months * months + 1
            first = GregorianDay(year: today.year, month: startMonth, day: 1)?.adding(months: offset * months, clamp: true)
            last = first?.adding(months: months, clamp: true)?.adding(days: -1)
        }
        return (end ? last : first).map(Match.day) ?? .impossible("too far away")
    }

    /// `later`, `someday`: 9999-12-30, Taskwarrior's far-off day for what has no date yet.
    static func someday(_ text: String) -> Match {
        guard text == "later" || text == "someday" else { return .notThisForm }
        return GregorianDay(year: 9999, month: 12, day: 30).map(Match.day) ?? .impossible("too far away")
    }

    /// Month numbers of the month names, full and three letters (`sept` too).
    static let monthNumbers: [String: Int] = {
        var numbers: [String: Int] = ["sept": 9]
        for (index, name) in GregorianDay.monthNames.enumerated() {
            numbers[name.lowercased()] = index + 1
            numbers[String(name.lowercased().prefix(3))] = index + 1
        }
        return numbers
    }()

    /// `dec`, `december`: the first of the next such month after today (next year's when this year's has begun).
    func monthName(_ text: String) -> Match {
        guard let month = Self.monthNumbers[text] else { return .notThisForm }
        guard let today else { return .impossible("too far away") }
        let year = today.month < month ? today.year : today.year + 1
        return GregorianDay(year: year, month: month, day: 1).map(Match.day) ?? .impossible("too far away")
    }

    /// `1st`, `2nd`, `15th`, `31st`: the next such day of a month after today, skipping months too short for it.
    func ordinal(_ text: String) -> Match {
        guard let number = Self.ordinalNumber(text) else { return .notThisForm }
        guard (1...31).contains(number) else { return .impossible("no month has a day \(number)") }
        guard let today, let first = GregorianDay(year: today.year, month: today.month, day: 1) else { return .impossible("too far away") }
        for ahead in 0...12 {
            guard let month = first.adding(months: ahead, clamp: true) else { break }
            if let day = GregorianDay(year: month.year, month: month.month, day: number), today < day { return .day(day) }
        }
        return .impossible("too far away")
    }

    /// The number of an English ordinal with its right suffix (`1st`, `22nd`, `13th`), else nil.
    static func ordinalNumber<S: StringProtocol>(_ text: S) -> Int? {
        guard text.utf8.count >= 3, let number = GregorianDay.number(text.dropLast(2)) else { return nil }
        let suffix = text.suffix(2)
        let expected: String
        switch (number % 10, number % 100) {
        case (_, 11...13): expected = "th"
        case (1, _): expected = "st"
        case (2, _): expected = "nd"
        case (3, _): expected = "rd"
        default: expected = "th"
        }
        return suffix == expected ? number : nil
    }

    /// `dec 24`, `24 dec`, `december 24th`, `24th of december`, with a year after them (`dec 24 2027`): that day,
    /// this year's when it is today or later, else next year's.
    func monthAndDay(_ text: String) -> Match {
        var words = text.split(separator: " ")
        words.removeAll { $0 == "of" }
        guard (2...3).contains(words.count) else { return .notThisForm }
        let month: Int
        let dayWord: Substring
        if let named = Self.monthNumbers[String(words[0])] {
            (month, dayWord) = (named, words[1])
        } else if let named = Self.monthNumbers[String(words[1])] {
            (month, dayWord) = (named, words[0])
        } else {
            return .notThisForm
        }
        guard let day = GregorianDay.number(dayWord) ?? Self.ordinalNumber(dayWord), dayWord.utf8.count <= 4 else { return .notThisForm }
        let name = GregorianDay.monthNames[month - 1]
        guard (1...(month == 2 ? 29 : GregorianDay.length(month: month, year: 2001))).contains(day) else {
            return .impossible("there is no \(name) \(day)")
        }
        if words.count == 3 {
            guard words[2].utf8.count == 4, let year = GregorianDay.number(words[2]) else { return .notThisForm }
            if let problem = GregorianDay.problem(year: year, month: month, day: day) { return .impossible(problem) }
            return GregorianDay(year: year, month: month, day: day).map(Match.day) ?? .impossible("too far away")
        }
        guard let today else { return .impossible("too far away") }
        // February 29 waits for the next leap year.
        for year in today.year...(today.year + 8) {
            if let found = GregorianDay(year: year, month: month, day: day), today <= found { return .day(found) }
        }
        return .impossible("too far away")
    }

    /// `next fri`, `next december`: as the weekday or month alone; `next week`, `next month`, `next year`: the first
    /// day of the next one.
    func nextWord(_ text: String) -> Match {
        guard text.hasPrefix("next ") else { return .notThisForm }
        let rest = String(text.dropFirst(5))
        switch rest {
        case "week": return periodEdge("sonw")
        case "month": return periodEdge("sonm")
        case "year": return periodEdge("sony")
        default:
            let weekday = weekday(rest)
            if case .notThisForm = weekday { return monthName(rest) }
            return weekday
        }
    }

    /// The units of `in 3 days` that count whole days or calendar months, with the largest count each takes.
    static let dayUnits: [String: (days: Int, months: Int, limit: Int)] = {
        var units: [String: (days: Int, months: Int, limit: Int)] = [:]
        for name in ["d", "day", "days"] { units[name] = (1, 0, 100_000) }
        for name in ["w", "wk", "wks", "week", "weeks"] { units[name] = (7, 0, 10_000) }
        for name in ["mo", "mos", "month", "months"] { units[name] = (0, 1, 3_000) }
        for name in ["y", "yr", "yrs", "year", "years"] { units[name] = (0, 12, 250) }
        return units
    }()

    /// Seconds per unit of `in 2 hours`, with the largest count each takes.
    static let timeUnits: [String: (seconds: Int, limit: Int)] = {
        var units: [String: (seconds: Int, limit: Int)] = [:]
        for name in ["min", "mins", "minute", "minutes"] { units[name] = (60, 10_000_000) }
        for name in ["h", "hr", "hrs", "hour", "hours"] { units[name] = (3_600, 1_000_000) }
        return units
    }()

    /// `in 3 days`, `in a week`, `in 2 months`, `2 weeks ago`: a day that long from today; `in 2 hours`,
    /// `in 30 minutes`: that moment.
    func spoken(_ text: String) -> Match {
        let words = text.split(separator: " ")
        let ahead: Bool
        let countWord: Substring
        let unitWord: String
        if words.count == 3, words[0] == "in" {
            (ahead, countWord, unitWord) = (true, words[1], String(words[2]))
        } else if words.count == 3, words[2] == "ago" {
            (ahead, countWord, unitWord) = (false, words[0], String(words[1]))
        } else {
            return .notThisForm
        }
        guard let count = countWord == "a" || countWord == "an" ? 1 : GregorianDay.number(countWord) else { return .notThisForm }
        let sign = ahead ? 1 : -1
        if let unit = Self.timeUnits[unitWord] {
            guard count <= unit.limit else { return .impossible("at most \(unit.limit) \(unitWord)") }
            return .moment(now.addingTimeInterval(Double(sign * count * unit.seconds)))
        }
        guard let unit = Self.dayUnits[unitWord] else { return .notThisForm }
        guard count <= unit.limit else { return .impossible("at most \(unit.limit) \(unitWord)") }
        guard let today else { return .impossible("too far away") }
        let day = unit.months == 0 ? today.adding(days: sign * count * unit.days) : today.adding(months: sign * count * unit.months, clamp: true)
        return day.map(Match.day) ?? .impossible("too far away")
    }
}
