import Foundation

/// The one grammar for due dates: the app's edit form and the command line's `--due` (and `todo import`) read
/// dates through it, so both accept the same words and refuse the same impossible dates.
///
/// Each accepted form is one `Rule`; a new form (weekday names, times) is one more entry in `rules`, and the
/// messages that say what is accepted list it from there.
public struct DueDateGrammar: Sendable {
    /// "Now", from which `today`, `tomorrow` and `+3d` count.
    public var now: Date
    /// The calendar days are counted in (the Gregorian calendar in the local time zone).
    public var calendar: Calendar

    /// A grammar counting from `now` in `calendar`.
    public init(now: Date = Date(), calendar: Calendar = Formatting.isoCalendar) {
        self.now = now
        self.calendar = calendar
    }

    /// What a rule made of the text.
    enum Match {
        /// Not written in this rule's form.
        case notThisForm
        /// No due date.
        case none
        /// This day (or time).
        case date(Date)
        /// Written in this form, but no such date: the reason.
        case impossible(String)
    }

    /// One accepted form of a due date.
    struct Rule: Sendable {
        /// How the help shows it ("YYYY-MM-DD"; `+3d` and `+2w` for the relative rule).
        var forms: [String]
        /// How many of `forms` the edit form's short hint names.
        var inShortHint: Int
        /// Reads lowercased, trimmed text.
        var read: @Sendable (String, DueDateGrammar) -> Match
    }

    /// Every accepted form, tried in order.
    static let rules: [Rule] = [
        Rule(forms: ["YYYY-MM-DD"], inShortHint: 1) { text, grammar in grammar.isoDay(text) },
        Rule(forms: ["today"], inShortHint: 1) { text, grammar in text == "today" ? .date(grammar.today) : .notThisForm },
        Rule(forms: ["tomorrow"], inShortHint: 1) { text, grammar in text == "tomorrow" ? grammar.days(1) : .notThisForm },
        Rule(forms: ["+3d", "+2w"], inShortHint: 1) { text, grammar in grammar.relative(text) },
        Rule(forms: ["none"], inShortHint: 0) { text, _ in text.isEmpty || text == "none" ? Match.none : .notThisForm },
        Rule(forms: ["an ISO 8601 time (2026-05-01T09:00:00Z)"], inShortHint: 0) { text, grammar in grammar.isoTime(text) },
    ]

    /// Every accepted form in words: "YYYY-MM-DD, today, tomorrow, +3d, +2w, none or an ISO 8601 time (…)".
    public static var accepted: String { listed(rules.flatMap(\.forms)) }

    /// The forms a short hint names: "YYYY-MM-DD, today, tomorrow or +3d".
    public static var acceptedShort: String { listed(rules.flatMap { $0.forms.prefix($0.inShortHint) }) }

    /// Reads `text`: the due date, nil for none (`none` or nothing), or an error that says what is accepted.
    public func parse(_ text: String) throws(DueDateError) -> Date? {
        let input = text.trimmingCharacters(in: .whitespaces).lowercased()
        for rule in Self.rules {
            switch rule.read(input, self) {
            case .notThisForm: continue
            case .none: return nil
            case .date(let date): return date
            case .impossible(let reason): throw DueDateError(text: text, problem: reason)
            }
        }
        throw DueDateError(text: text, problem: nil)
    }

    // MARK: the forms

    var today: Date { calendar.startOfDay(for: now) }

    func days(_ count: Int) -> Match {
        calendar.date(byAdding: .day, value: count, to: today).map(Match.date) ?? .impossible("too far away")
    }

    /// `+3d`, `+2w`: days or weeks from today (up to 100,000 days).
    func relative(_ text: String) -> Match {
        guard text.hasPrefix("+"), let unit = text.last, unit == "d" || unit == "w" else { return .notThisForm }
        let digits = text.dropFirst().dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .notThisForm }
        guard let count = Int(digits), count <= 100_000 else { return .impossible("at most +100000d") }
        return days(unit == "w" ? count * 7 : count)
    }

    /// `2026-05-01`: a day that exists in the Gregorian calendar.
    func isoDay(_ text: String) -> Match {
        guard let (year, month, day) = Self.dayParts(text) else { return .notThisForm }
        if let problem = Self.problem(year: year, month: month, day: day) { return .impossible(problem) }
        return calendar.date(from: DateComponents(year: year, month: month, day: day)).map(Match.date) ?? .impossible("no such day")
    }

    /// `2026-05-01T09:00:00Z` (or with an offset): the exact time.
    func isoTime(_ text: String) -> Match {
        guard text.count > 10, let separator = text.firstIndex(of: "t"), let (year, month, day) = Self.dayParts(String(text[..<separator]))
        else { return .notThisForm }
        if let problem = Self.problem(year: year, month: month, day: day) { return .impossible(problem) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text.uppercased()) { return .date(date) }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: text.uppercased()) { return .date(date) }
        return .impossible("not an ISO 8601 time such as 2026-05-01T09:00:00Z")
    }

    /// Year, month and day of exactly `DDDD-DD-DD` (ASCII digits), or nil.
    static func dayParts(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        return (year, month, day)
    }

    /// Why a day does not exist ("there is no month 13", "February 2026 has 28 days"), or nil when it does.
    static func problem(year: Int, month: Int, day: Int) -> String? {
        guard year >= 1 else { return "there is no year 0" }
        guard (1...12).contains(month) else { return "there is no month \(month)" }
        let length = daysIn(month: month, year: year)
        guard (1...length).contains(day) else { return "\(monthNames[month - 1]) \(year) has \(length) days" }
        return nil
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    static func listed(_ forms: [String]) -> String {
        guard let last = forms.last else { return "" }
        return forms.count == 1 ? last : forms.dropLast().joined(separator: ", ") + " or " + last
    }
}

/// A due date the grammar cannot read, with what is wrong and what is accepted.
public struct DueDateError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The text as given.
    public var text: String
    /// What is wrong with a date written in an accepted form ("February 2026 has 28 days"), or nil when the
    /// text is in no accepted form.
    public var problem: String?

    /// An error about `text`, with what is wrong when it is written in an accepted form.
    public init(text: String, problem: String?) {
        self.text = text
        self.problem = problem
    }

    /// One sentence for the command line: "cannot read the due date '2026-02-30': February 2026 has 28 days;
    /// use YYYY-MM-DD, today, …".
    public var description: String {
        let quoted = "'" + text + "'"
        return "cannot read the due date \(quoted)" + (problem.map { ": \($0)" } ?? "") + "; use " + DueDateGrammar.accepted
    }

    /// A line for the edit form: "Due: February 2026 has 28 days." or "Due: use YYYY-MM-DD, today, tomorrow or +3d."
    public var formLine: String {
        if let problem { return "Due: \(problem)." }
        return "Due: use \(DueDateGrammar.acceptedShort)."
    }
}

extension DueDateGrammar {
    /// The edit form's line for a due date it refuses (empty when the text is a date after all).
    public static func formLine(for text: String, now: Date, calendar: Calendar) -> String {
        do {
            _ = try DueDateGrammar(now: now, calendar: calendar).parse(text)
            return ""
        } catch {
            return error.formLine
        }
    }
}
