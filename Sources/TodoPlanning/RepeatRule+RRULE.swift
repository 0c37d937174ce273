import Foundation

/// Reading RFC 5545 RRULE text into a `RepeatRule`.
extension RepeatRule {
    /// The longest rule text read (RRULE or words).
    static let maximumLength = 10_000

    /// What the supported parts are, for messages.
    static let supportedParts = "use FREQ, INTERVAL, BYDAY, COUNT and UNTIL"

    /// RRULE parts RFC 5545 defines that this subset leaves out.
    static let unsupportedParts: Set<String> = [
        "BYSECOND", "BYMINUTE", "BYHOUR", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "RSCALE", "SKIP",
    ]

    /// Reads RRULE text such as `FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE` (an `RRULE:` prefix allowed, any case, parts
    /// in any order and each at most once); the rule counts from `from`.
    public init(rrule text: String, from: Origin = .due) throws(RepeatRuleError) {
        func refuse(_ problem: String) -> RepeatRuleError { RepeatRuleError(text: text, problem: problem) }
        guard text.utf8.count <= Self.maximumLength else { throw refuse("a repeat rule is at most \(Self.maximumLength) characters") }
        var body = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if body.uppercased().hasPrefix("RRULE:") { body = body.dropFirst(6) }
        var frequency: Frequency?
        var interval = 1
        var byDay: [ByDay] = []
        var count: Int?
        var until: Until?
        var seen: Set<String> = []
        for part in body.split(separator: ";") where !part.allSatisfy(\.isWhitespace) {
            guard let equals = part.firstIndex(of: "=") else {
                throw refuse("'\(DueDateError.shown(String(part)))' is not NAME=VALUE; \(Self.supportedParts)")
            }
            let name = part[..<equals].trimmingCharacters(in: .whitespaces).uppercased()
            let value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces).uppercased()
            guard !seen.contains(name) else { throw refuse("\(name) is given twice; give each part once") }
            seen.insert(name)
            switch name {
            case "FREQ":
                guard let known = Frequency(rawValue: value) else {
                    throw refuse("FREQ=\(DueDateError.shown(value)) is not supported; use DAILY, WEEKLY, MONTHLY or YEARLY")
                }
                frequency = known
            case "INTERVAL":
                guard let number = GregorianDay.number(value), (1...Self.maximumInterval).contains(number) else {
                    throw refuse("INTERVAL must be a whole number from 1 to \(Self.maximumInterval)")
                }
                interval = number
            case "COUNT":
                guard let number = GregorianDay.number(value), (1...Self.maximumCount).contains(number) else {
                    throw refuse("COUNT must be a whole number from 1 to \(Self.maximumCount)")
                }
                count = number
            case "UNTIL": until = try Self.readUntil(value, text: text)
            case "BYDAY": byDay = try Self.readByDay(value, text: text)
            case "WKST":
                guard value == "MO" else { throw refuse("WKST=\(DueDateError.shown(value)) is not supported; weeks start on Monday (WKST=MO)") }
            default:
                guard Self.unsupportedParts.contains(name) else {
                    throw refuse("\(DueDateError.shown(name)) is not an RRULE part; \(Self.supportedParts)")
                }
                throw refuse("\(name) is not supported; \(Self.supportedParts)")
            }
        }
        guard let frequency else { throw refuse("an RRULE needs FREQ=DAILY, WEEKLY, MONTHLY or YEARLY") }
        do {
            try self.init(frequency: frequency, interval: interval, byDay: byDay, count: count, until: until, from: from)
        } catch {
            throw refuse(error.problem)
        }
    }

    /// `20261231` (a day) or `20261231T235959Z` (a UTC moment).
    static func readUntil(_ value: String, text: String) throws(RepeatRuleError) -> Until {
        let shape = "UNTIL must be a date (20261231) or a UTC time (20261231T235959Z)"
        let bytes = Array(value.utf8)
        guard bytes.count == 8 || (bytes.count == 16 && bytes[8] == 0x54 && bytes[15] == 0x5A) else {
            throw RepeatRuleError(text: text, problem: shape)
        }
        func digits(_ range: Range<Int>) -> Int? { GregorianDay.number(String(decoding: bytes[range], as: UTF8.self)) }
        guard let year = digits(0..<4), let month = digits(4..<6), let day = digits(6..<8) else {
            throw RepeatRuleError(text: text, problem: shape)
        }
        if let problem = GregorianDay.problem(year: year, month: month, day: day) {
            throw RepeatRuleError(text: text, problem: "UNTIL: \(problem)")
        }
        guard bytes.count == 16 else { return .day(year: year, month: month, day: day) }
        guard let hour = digits(9..<11), let minute = digits(11..<13), let second = digits(13..<15) else {
            throw RepeatRuleError(text: text, problem: shape)
        }
        guard hour < 24, minute < 60, second < 60,
            let date = utc.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
        else { throw RepeatRuleError(text: text, problem: "UNTIL: there is no time \(hour):\(GregorianDay.two(minute)):\(GregorianDay.two(second))") }
        return .moment(date)
    }

    /// `MO,WE`, `1MO`, `-1FR`, `+2TU`: weekdays, each optionally numbered.
    static func readByDay(_ value: String, text: String) throws(RepeatRuleError) -> [ByDay] {
        let items = value.split(separator: ",", omittingEmptySubsequences: false)
        guard !value.isEmpty else {
            throw RepeatRuleError(text: text, problem: "BYDAY needs weekdays: MO, TU, WE, TH, FR, SA or SU, optionally numbered (1MO, -1FR)")
        }
        var entries: [ByDay] = []
        for item in items {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard let entry = byDayEntry(trimmed) else {
                throw RepeatRuleError(
                    text: text,
                    problem: "'\(DueDateError.shown(trimmed))' in BYDAY is not a weekday; use MO, TU, WE, TH, FR, SA or SU, optionally numbered (1MO, -1FR)")
            }
            entries.append(entry)
        }
        return entries
    }

    /// One BYDAY entry (uppercase), or nil.
    static func byDayEntry(_ item: String) -> ByDay? {
        guard item.utf8.count >= 2, item.utf8.count <= 5, let weekday = Weekday(code: String(item.suffix(2))) else { return nil }
        var number = item.dropLast(2)
        guard !number.isEmpty else { return ByDay(weekday) }
        var sign = 1
        if number.first == "-" || number.first == "+" {
            sign = number.first == "-" ? -1 : 1
            number = number.dropFirst()
        }
        guard number.utf8.count <= 2, let ordinal = GregorianDay.number(number), ordinal != 0 else { return nil }
        return ByDay(weekday, ordinal: sign * ordinal)
    }
}
