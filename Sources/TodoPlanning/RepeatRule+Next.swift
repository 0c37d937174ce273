import Foundation

/// The occurrences of a repeat rule: the due date that follows the current one.
extension RepeatRule {
    /// How many periods (days, weeks, months or years of `interval`) the search for the next occurrence looks
    /// ahead before giving up on a rule that never matches (such as every 7 days on a weekday the series never hits).
    static let searchPeriods = 400

    /// The due date of the occurrence after the current one, or nil when the series ends (COUNT reached, the
    /// next one after UNTIL, or none within reach).
    ///
    /// `occurrence` is the current one's 1-based number in the series. From `.due` the next is the first day
    /// strictly after `due`'s day that the rule gives; from `.completion` it counts the same way from the day of
    /// `completedAt` in `calendar` (monthly and yearly days then clamp to short months instead of skipping them). An all-day due
    /// date stays all day; a timed one keeps its wall-clock time in `calendar`'s time zone (a time the clocks skip
    /// that day moves on by the gap).
    public func next(after due: DueDate, completedAt: Date, occurrence: Int, calendar: Calendar) -> DueDate? {
        if let count, occurrence >= count { return nil }
        // An all-day date steps in the floating calendar (its day is the same in every zone); a timed one in the
        // person's zone, so its wall-clock time stays put across a daylight-saving change.
        guard let dueDay = GregorianDay(due.date, in: due.allDay ? DueDate.floating : calendar) else { return nil }
        let base: GregorianDay
        switch from {
        case .due: base = dueDay
        case .completion:
            guard let completionDay = GregorianDay(completedAt, in: calendar) else { return nil }
            base = completionDay
        }
        guard let day = nextDay(after: base, clampDays: from == .completion) else { return nil }
        let result: DueDate
        if due.allDay {
            guard let next = DueDate.day(year: day.year, month: day.month, day: day.day) else { return nil }
            result = next
        } else {
            let clock = GregorianDay.gregorian(like: calendar).dateComponents([.hour, .minute, .second], from: due.date)
            guard let date = day.at(hour: clock.hour ?? 0, minute: clock.minute ?? 0, second: clock.second ?? 0, in: calendar)
            else { return nil }
            result = DueDate(date, allDay: false)
        }
        switch until {
        case .day(let year, let month, let lastDay):
            guard let last = GregorianDay(year: year, month: month, day: lastDay), day <= last else { return nil }
        case .moment(let last):
            guard result.date <= last else { return nil }
        case nil: break
        }
        return result
    }

    /// The first day strictly after `base` the rule gives, counting periods from `base`'s; nil when none is within
    /// `searchPeriods` periods or year 9999.
    func nextDay(after base: GregorianDay, clampDays: Bool) -> GregorianDay? {
        switch frequency {
        case .daily:
            let weekdays = Set(byDay.map(\.weekday.rawValue))
            // The weekdays of every `interval`-th day repeat within 7 steps.
            for step in 1...7 {
                guard let day = base.adding(days: step * interval) else { return nil }
                if weekdays.isEmpty || weekdays.contains(day.isoWeekday) { return day }
            }
            return nil
        case .weekly:
            let weekdays = byDay.isEmpty ? [base.isoWeekday] : Array(Set(byDay.map(\.weekday.rawValue))).sorted()
            guard let monday = base.adding(days: 1 - base.isoWeekday), let first = weekdays.first else { return nil }
            if let later = weekdays.first(where: { $0 > base.isoWeekday }) { return monday.adding(days: later - 1) }
            return monday.adding(days: 7 * interval + first - 1)
        case .monthly:
            guard let firstOfMonth = GregorianDay(year: base.year, month: base.month, day: 1) else { return nil }
            return search(after: base) { periods in
                guard let start = firstOfMonth.adding(months: periods * interval, clamp: true) else { return nil }
                if byDay.isEmpty {
                    let day = clampDays ? min(base.day, start.monthLength) : base.day
                    return GregorianDay(year: start.year, month: start.month, day: day).map { [$0] } ?? []
                }
                return candidates(from: start, length: start.monthLength)
            }
        case .yearly:
            return search(after: base) { periods in
                let year = base.year + periods * interval
                guard year <= 9999, let start = GregorianDay(year: year, month: 1, day: 1) else { return nil }
                if byDay.isEmpty {
                    let length = GregorianDay.length(month: base.month, year: year)
                    let day = clampDays ? min(base.day, length) : base.day
                    return GregorianDay(year: year, month: base.month, day: day).map { [$0] } ?? []
                }
                return candidates(from: start, length: GregorianDay.isLeap(year) ? 366 : 365)
            }
        }
    }

    /// The first day after `base` among the sorted days `daysOfPeriod` gives for periods 0, 1, 2, … on (nil when out
    /// of range), looking at most `searchPeriods` periods ahead.
    func search(after base: GregorianDay, daysOfPeriod: (Int) -> [GregorianDay]?) -> GregorianDay? {
        for periods in 0...Self.searchPeriods {
            guard let days = daysOfPeriod(periods) else { return nil }
            if let day = days.first(where: { $0 > base }) { return day }
        }
        return nil
    }

    /// The days of the period of `length` days from `start` that BYDAY names, sorted: every such weekday, or the
    /// numbered one counted from the start (1, 2, …) or the end (-1, -2, …).
    func candidates(from start: GregorianDay, length: Int) -> [GregorianDay] {
        var offsets: Set<Int> = []
        for entry in byDay {
            let first = (entry.weekday.rawValue - start.isoWeekday + 7) % 7
            let matching = stride(from: first, to: length, by: 7)
            if let ordinal = entry.ordinal {
                let all = Array(matching)
                let index = ordinal > 0 ? ordinal - 1 : all.count + ordinal
                if all.indices.contains(index) { offsets.insert(all[index]) }
            } else {
                offsets.formUnion(matching)
            }
        }
        return offsets.sorted().compactMap { start.adding(days: $0) }
    }
}
