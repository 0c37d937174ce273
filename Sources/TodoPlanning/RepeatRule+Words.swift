import Foundation

/// The command line's words for a repeat rule, and the plain-English summary the detail view shows.
extension RepeatRule {
    /// Every form `init(words:)` accepts, for messages and help.
    public static let acceptedWords =
        "daily, weekly, monthly, yearly, weekdays, every 3 days, every 2 weeks, every month, every friday, every mon,wed, "
        + "every 2 weeks on mon,thu or an RRULE (FREQ=MONTHLY;BYDAY=-1FR), each optionally followed by 'from completion'"

    /// Reads the command line's words: `daily`, `weekdays`, `every 2 weeks on mon,thu`, `every friday`, … or RRULE
    /// text (starting `FREQ=` or `RRULE:`), each optionally followed by `from completion` (or `from due`).
    public init(words text: String) throws(RepeatRuleError) {
        func refuse(_ problem: String) -> RepeatRuleError { RepeatRuleError(text: text, problem: problem) }
        guard text.utf8.count <= Self.maximumLength else { throw refuse("a repeat rule is at most \(Self.maximumLength) characters") }
        var words = text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        var origin = Origin.due
        for (suffix, value) in [(" from completion", Origin.completion), (" from due", Origin.due)] where words.hasSuffix(suffix) {
            words = String(words.dropLast(suffix.count))
            origin = value
            break
        }
        if words.hasPrefix("freq=") || words.hasPrefix("rrule:") {
            do {
                try self.init(rrule: words, from: origin)
            } catch {
                throw refuse(error.problem)
            }
            return
        }
        let (frequency, interval, byDay) = try Self.readWords(words, text: text)
        do {
            try self.init(frequency: frequency, interval: interval, byDay: byDay, from: origin)
        } catch {
            throw refuse(error.problem)
        }
    }

    /// The frequency, interval and weekdays of words without the `from` suffix.
    static func readWords(_ words: String, text: String) throws(RepeatRuleError) -> (Frequency, Int, [ByDay]) {
        let unknown = RepeatRuleError(text: text, problem: "use " + acceptedWords)
        let weekdays = Weekday.allCases.prefix(5).map { ByDay($0) }
        switch words {
        case "daily": return (.daily, 1, [])
        case "weekly": return (.weekly, 1, [])
        case "monthly": return (.monthly, 1, [])
        case "yearly": return (.yearly, 1, [])
        case "weekdays", "every weekday": return (.weekly, 1, weekdays)
        default: break
        }
        guard words.hasPrefix("every ") else { throw unknown }
        var rest = Substring(words.dropFirst(6))
        // every mon,wed / every friday
        if let days = try? readWeekdays(rest, text: text) { return (.weekly, 1, days) }
        var interval = 1
        if let space = rest.firstIndex(of: " "), rest[..<space].utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard let number = GregorianDay.number(rest[..<space]), (1...maximumInterval).contains(number) else {
                throw RepeatRuleError(text: text, problem: "repeat every 1 to \(maximumInterval) days, weeks, months or years")
            }
            interval = number
            rest = rest[rest.index(after: space)...]
        }
        var unit = rest
        var on: Substring?
        if let range = rest.range(of: " on ") {
            unit = rest[..<range.lowerBound]
            on = rest[range.upperBound...]
        }
        let units: [Substring: Frequency] = [
            "day": .daily, "days": .daily, "week": .weekly, "weeks": .weekly, "month": .monthly, "months": .monthly,
            "year": .yearly, "years": .yearly,
        ]
        guard let frequency = units[unit] else {
            if interval == 1, on == nil, rest.split(separator: ",").count == 1 {
                throw RepeatRuleError(
                    text: text, problem: "'\(DueDateError.shown(String(rest)))' is not a weekday or a unit; use mon…sun, monday…sunday, days, weeks, months or years")
            }
            _ = try readWeekdays(rest, text: text)
            throw unknown
        }
        guard let on else { return (frequency, interval, []) }
        guard frequency == .weekly else {
            throw RepeatRuleError(text: text, problem: "weekdays go with weeks (every 2 weeks on mon,thu); for months write an RRULE such as FREQ=MONTHLY;BYDAY=-1FR")
        }
        return (frequency, interval, try readWeekdays(on, text: text))
    }

    /// `mon,wed`, `mon, wed`, `friday`: weekday names, full or three letters, separated by commas.
    static func readWeekdays(_ list: Substring, text: String) throws(RepeatRuleError) -> [ByDay] {
        var days: [ByDay] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let number = DueDateGrammar.weekdayNumbers[trimmed], let weekday = Weekday(rawValue: number) else {
                throw RepeatRuleError(
                    text: text, problem: "'\(DueDateError.shown(trimmed))' is not a weekday; use mon…sun or monday…sunday, separated by commas")
            }
            days.append(ByDay(weekday))
        }
        return days
    }

    /// The rule in plain English for the detail view: "every 2 weeks on Mon, Wed", "monthly on the last Fri",
    /// "weekly, 5 times", "daily until 2026-12-31", "daily from completion".
    public var summary: String {
        let units: [Frequency: (adverb: String, unit: String)] = [
            .daily: ("daily", "days"), .weekly: ("weekly", "weeks"), .monthly: ("monthly", "months"), .yearly: ("yearly", "years"),
        ]
        let names = units[frequency] ?? ("daily", "days")
        var text = interval == 1 ? names.adverb : "every \(interval) \(names.unit)"
        let workdays = Weekday.allCases.prefix(5).map { ByDay($0) }
        if frequency == .weekly, interval == 1, byDay == workdays {
            text = "every weekday"
        } else if !byDay.isEmpty {
            text += " on " + byDay.map { Self.summary(of: $0, in: frequency) }.joined(separator: ", ")
        }
        if let count { text += count == 1 ? ", once" : ", \(count) times" }
        if let until { text += " until " + Self.summary(of: until) }
        if from == .completion { text += " from completion" }
        return text
    }

    /// "Mon" (weekly, daily), "every Mon" (monthly, yearly), "the 1st Mon", "the last Fri", "the 2nd-to-last Fri".
    static func summary(of entry: ByDay, in frequency: Frequency) -> String {
        guard let ordinal = entry.ordinal else {
            return frequency == .monthly || frequency == .yearly ? "every " + entry.weekday.shortName : entry.weekday.shortName
        }
        if ordinal == -1 { return "the last " + entry.weekday.shortName }
        let place = ordinalWord(abs(ordinal))
        return "the " + place + (ordinal < 0 ? "-to-last " : " ") + entry.weekday.shortName
    }

    /// 1st, 2nd, 3rd, 4th, 11th, 21st, ….
    static func ordinalWord(_ number: Int) -> String {
        let suffix =
            switch (number % 10, number % 100) {
            case (_, 11...13): "th"
            case (1, _): "st"
            case (2, _): "nd"
            case (3, _): "rd"
            default: "th"
            }
        return "\(number)\(suffix)"
    }

    /// "2026-12-31" or "2026-12-31 23:59:59 UTC".
    static func summary(of until: Until) -> String {
        switch until {
        case .day(let year, let month, let day):
            return GregorianDay(year: year, month: month, day: day)?.text ?? untilText(until)
        case .moment(let date):
            let parts = utc.dateComponents([.hour, .minute, .second], from: date)
            let day = GregorianDay(date, in: utc)?.text ?? untilText(until)
            return day + " " + GregorianDay.two(parts.hour ?? 0) + ":" + GregorianDay.two(parts.minute ?? 0) + ":"
                + GregorianDay.two(parts.second ?? 0) + " UTC"
        }
    }
}
