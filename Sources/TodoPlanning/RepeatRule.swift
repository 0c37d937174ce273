import Foundation

/// How a todo repeats: the subset of an RFC 5545 RRULE the app supports (FREQ, INTERVAL, BYDAY, COUNT, UNTIL),
/// and whether the next due date counts from the current due date or from when the todo was completed.
///
/// The value is always valid: every way to make one checks it. `rrule` is its canonical RRULE text, `text` what
/// `init(words:)` reads back, `summary` how the detail view says it.
public struct RepeatRule: Sendable, Hashable {
    /// How often the rule repeats, in units of `interval`.
    public enum Frequency: String, Sendable, Hashable, CaseIterable {
        case daily = "DAILY"
        case weekly = "WEEKLY"
        case monthly = "MONTHLY"
        case yearly = "YEARLY"
    }

    /// A day of the week, numbered as ISO 8601 does (Monday 1 … Sunday 7).
    public enum Weekday: Int, Sendable, Hashable, CaseIterable, Comparable {
        case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

        /// The RRULE code: `MO` … `SU`.
        public var code: String { ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][rawValue - 1] }

        /// The short English name: `Mon` … `Sun`.
        public var shortName: String { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][rawValue - 1] }

        /// The weekday of an RRULE code (`MO`, any case), else nil.
        public init?(code: String) {
            guard let index = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"].firstIndex(of: code.uppercased()) else { return nil }
            self.init(rawValue: index + 1)
        }

        /// Ordered Monday first.
        public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// One BYDAY entry: a weekday, optionally numbered within the month or year (`1MO` the first Monday, `-1FR`
    /// the last Friday).
    public struct ByDay: Sendable, Hashable, Comparable {
        /// Which weekday.
        public var weekday: Weekday
        /// Which one of them in the month or year (1 the first, -1 the last), or nil for every one.
        public var ordinal: Int?

        /// An entry for `weekday`, numbered when `ordinal` is given.
        public init(_ weekday: Weekday, ordinal: Int? = nil) {
            self.weekday = weekday
            self.ordinal = ordinal
        }

        /// The RRULE text: `MO`, `1MO`, `-1FR`.
        public var code: String { (ordinal.map(String.init) ?? "") + weekday.code }

        /// Weekday first, then unnumbered, first, second, …, last, second to last, ….
        public static func < (lhs: ByDay, rhs: ByDay) -> Bool {
            func rank(_ ordinal: Int?) -> Int { guard let ordinal else { return 0 }; return ordinal > 0 ? ordinal : 100 - ordinal }
            return (lhs.weekday.rawValue, rank(lhs.ordinal)) < (rhs.weekday.rawValue, rank(rhs.ordinal))
        }
    }

    /// The last day or moment an occurrence may fall on (inclusive).
    public enum Until: Sendable, Hashable {
        /// A day (RRULE `UNTIL=20261231`): occurrences on days up to and including it.
        case day(year: Int, month: Int, day: Int)
        /// A moment in whole seconds (RRULE `UNTIL=20261231T235959Z`): occurrences up to and including it.
        case moment(Date)
    }

    /// What the next due date counts from.
    public enum Origin: Sendable, Hashable {
        /// The current due date: the schedule stays fixed however late the todo is done.
        case due
        /// The day the todo was completed: "every 2 weeks from completion".
        case completion
    }

    /// How often: daily, weekly, monthly or yearly.
    public let frequency: Frequency
    /// Every how many days, weeks, months or years (1…1000).
    public let interval: Int
    /// The weekdays it falls on, sorted and without repeats (numbered only for monthly and yearly rules).
    public let byDay: [ByDay]
    /// How many occurrences the series has in all (1…10,000), or nil.
    public let count: Int?
    /// The last day or moment an occurrence may fall on, or nil.
    public let until: Until?
    /// What the next due date counts from (not part of the RRULE text).
    public var from: Origin

    /// The largest `interval`.
    public static let maximumInterval = 1000
    /// The largest `count`.
    public static let maximumCount = 10_000

    /// A rule from its parts, refused with the reason when they do not make a valid rule.
    public init(
        frequency: Frequency, interval: Int = 1, byDay: [ByDay] = [], count: Int? = nil, until: Until? = nil, from: Origin = .due
    ) throws(RepeatRuleError) {
        self.frequency = frequency
        self.interval = interval
        self.byDay = Array(Set(byDay)).sorted()
        self.count = count
        self.until = until.map(Self.wholeSeconds)
        self.from = from
        if let problem = Self.problem(frequency: frequency, interval: interval, byDay: byDay, count: count, until: until) {
            throw RepeatRuleError(text: rrule, problem: problem)
        }
    }

    /// What is wrong with these parts, or nil when they make a valid rule.
    static func problem(frequency: Frequency, interval: Int, byDay: [ByDay], count: Int?, until: Until?) -> String? {
        guard (1...maximumInterval).contains(interval) else { return "INTERVAL must be a whole number from 1 to \(maximumInterval)" }
        if let count, !(1...maximumCount).contains(count) { return "COUNT must be a whole number from 1 to \(maximumCount)" }
        if count != nil, until != nil { return "COUNT and UNTIL cannot both be given; use one of them" }
        for entry in byDay {
            guard let ordinal = entry.ordinal else { continue }
            switch frequency {
            case .daily, .weekly:
                return "a numbered weekday (\(entry.code)) needs FREQ=MONTHLY or FREQ=YEARLY; use plain weekdays such as MO,WE"
            case .monthly:
                guard (1...5).contains(abs(ordinal)) else { return "\(entry.code) is not in any month; number weekdays 1 to 5 or -1 to -5" }
            case .yearly:
                guard (1...53).contains(abs(ordinal)) else { return "\(entry.code) is not in any year; number weekdays 1 to 53 or -1 to -53" }
            }
        }
        switch until {
        case .day(let year, let month, let day):
            if let problem = GregorianDay.problem(year: year, month: month, day: day) { return "UNTIL: \(problem)" }
            if year > 9999 { return "UNTIL must be a year from 1 to 9999" }
        case .moment(let date):
            guard GregorianDay(date, in: utc) != nil else { return "UNTIL must be a year from 1 to 9999" }
        case nil: break
        }
        return nil
    }

    /// `until` with a moment rounded down to the second, as RRULE text holds it.
    static func wholeSeconds(_ until: Until) -> Until {
        guard case .moment(let date) = until, date.timeIntervalSince1970.isFinite else { return until }
        return .moment(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }

    /// The canonical RRULE text (no `RRULE:` prefix): FREQ, INTERVAL when not 1, BYDAY, then COUNT or UNTIL,
    /// e.g. `FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE`.
    public var rrule: String {
        var parts = ["FREQ=" + frequency.rawValue]
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        if !byDay.isEmpty { parts.append("BYDAY=" + byDay.map(\.code).joined(separator: ",")) }
        if let count { parts.append("COUNT=\(count)") }
        if let until { parts.append("UNTIL=" + Self.untilText(until)) }
        return parts.joined(separator: ";")
    }

    /// The rule as `init(words:)` reads it back: the RRULE, then ` from completion` when it counts from completion.
    public var text: String { rrule + (from == .completion ? " from completion" : "") }

    /// `20261231` or `20261231T235959Z`.
    static func untilText(_ until: Until) -> String {
        switch until {
        case .day(let year, let month, let day):
            let digits = String(year)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + GregorianDay.two(month) + GregorianDay.two(day)
        case .moment(let date):
            let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            return untilText(.day(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)) + "T"
                + GregorianDay.two(parts.hour ?? 0) + GregorianDay.two(parts.minute ?? 0) + GregorianDay.two(parts.second ?? 0) + "Z"
        }
    }

    /// The Gregorian calendar in UTC, for UNTIL moments.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}

/// A repeat rule that cannot be read or made, with what is wrong and what is accepted.
public struct RepeatRuleError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The text as given (for a rule made from parts, its RRULE text).
    public var text: String
    /// What is wrong and what is accepted: "BYHOUR is not supported; use FREQ, INTERVAL, BYDAY, COUNT and UNTIL".
    public var problem: String

    /// An error about `text`.
    public init(text: String, problem: String) {
        self.text = text
        self.problem = problem
    }

    /// One sentence: "cannot read the repeat rule 'FREQ=DAILY;BYHOUR=9': BYHOUR is not supported; use …".
    public var description: String { "cannot read the repeat rule '\(DueDateError.shown(text))': \(problem)" }
}
