import Foundation

/// The one grammar for due dates: the app's edit form and the command line's `--due` (and `todo import`) read
/// due dates through it, so both accept the same words and times and refuse the same impossible ones.
///
/// Each accepted form is one `Rule`; a new form is one more entry in `rules`, and the messages that say what is
/// accepted list it from there. A day form may be followed by a space and a time (`fri 9am`).
public struct DueDateGrammar: Sendable {
    /// "Now", from which `today`, `fri`, `+3d` and a time alone count.
    public var now: Date
    /// The calendar (Gregorian) whose time zone days and wall-clock times are read in.
    public var calendar: Calendar

    /// A grammar counting from `now` in `calendar`.
    public init(now: Date = Date(), calendar: Calendar = DueDateGrammar.localCalendar) {
        self.now = now
        self.calendar = calendar
    }

    /// The Gregorian calendar in this machine's time zone: the default for reading what a person typed.
    public static var localCalendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return calendar
    }

    /// What a rule made of the text.
    enum Match: Sendable {
        /// Not written in this rule's form.
        case notThisForm
        /// No due date.
        case none
        /// This day, all day (or at a time that follows).
        case day(GregorianDay)
        /// This wall-clock time (today unless it follows a day).
        case time(hour: Int, minute: Int)
        /// This exact moment.
        case moment(Date)
        /// Written in this form, but no such date or time: the reason.
        case impossible(String)
    }

    /// What a rule's text stands for, which decides where it may appear.
    enum Kind: Sendable {
        /// A day, alone or followed by a time.
        case day
        /// A time of day, alone (today) or after a day.
        case time
        /// A whole due date on its own (`none`, an ISO 8601 moment).
        case whole
    }

    /// One accepted form of a due date.
    struct Rule: Sendable {
        /// How the help shows it ("YYYY-MM-DD"; `+3d`, `+2w`, … for the relative rule).
        var forms: [String]
        /// How many of `forms` the edit form's short hint names.
        var inShortHint: Int
        /// Where it may appear.
        var kind: Kind
        /// Reads lowercased, trimmed text.
        var read: @Sendable (String, DueDateGrammar) -> Match
    }

    /// Every accepted form, tried in order.
    static let rules: [Rule] = [
        Rule(forms: ["YYYY-MM-DD"], inShortHint: 1, kind: .day) { text, _ in isoDay(text) },
        Rule(forms: ["today"], inShortHint: 1, kind: .day) { text, grammar in text == "today" ? grammar.days(0) : .notThisForm },
        Rule(forms: ["tomorrow"], inShortHint: 1, kind: .day) { text, grammar in text == "tomorrow" ? grammar.days(1) : .notThisForm },
        Rule(forms: ["yesterday"], inShortHint: 0, kind: .day) { text, grammar in text == "yesterday" ? grammar.days(-1) : .notThisForm },
        Rule(forms: ["a weekday (mon…sun, monday…sunday)"], inShortHint: 0, kind: .day) { text, grammar in grammar.weekday(text) },
        Rule(
            forms: ["sod, eod, sow, eow, soww, eoww, som, eom, soq, eoq, soy, eoy (sopw: the previous week's start, eonm: the next month's end, …)"],
            inShortHint: 0, kind: .day
        ) { text, grammar in grammar.periodEdge(text) },
        Rule(forms: ["a month (dec, december)"], inShortHint: 0, kind: .day) { text, grammar in grammar.monthName(text) },
        Rule(forms: ["dec 24", "24 dec 2027"], inShortHint: 0, kind: .day) { text, grammar in grammar.monthAndDay(text) },
        Rule(forms: ["15th"], inShortHint: 0, kind: .day) { text, grammar in grammar.ordinal(text) },
        Rule(forms: ["next fri", "next week"], inShortHint: 0, kind: .day) { text, grammar in grammar.nextWord(text) },
        Rule(forms: ["later"], inShortHint: 0, kind: .day) { text, _ in someday(text) },
        Rule(forms: ["+3d", "+2w", "+1m", "+1y", "-3d (3 days ago)"], inShortHint: 1, kind: .day) { text, grammar in grammar.relative(text) },
        Rule(forms: ["in 3 days", "2 weeks ago"], inShortHint: 0, kind: .day) { text, grammar in grammar.spoken(text) },
        Rule(forms: ["17:00", "9am", "5:30pm", "noon", "a day then a time (fri 9am, tomorrow at 5pm)"], inShortHint: 1, kind: .time) {
            text, _ in text == "noon" ? .time(hour: 12, minute: 0) : time(text)
        },
        Rule(forms: ["now", "in 2 hours"], inShortHint: 0, kind: .whole) { text, grammar in
            text == "now" ? .moment(grammar.now) : grammar.spoken(text)
        },
        Rule(forms: ["none"], inShortHint: 0, kind: .whole) { text, _ in text.isEmpty || text == "none" ? Match.none : .notThisForm },
        Rule(forms: ["an ISO 8601 time (2026-05-01T09:00:00Z)"], inShortHint: 0, kind: .whole) { text, _ in isoMoment(text) },
    ]

    /// Every accepted form in words: "YYYY-MM-DD, today, tomorrow, yesterday, …, none or an ISO 8601 time (…)".
    public static var accepted: String { listed(rules.flatMap(\.forms)) }

    /// The forms a short hint names: "YYYY-MM-DD, today, tomorrow, +3d or 17:00".
    public static var acceptedShort: String { listed(rules.flatMap { $0.forms.prefix($0.inShortHint) }) }

    /// The longest text worth reading (any accepted form is far shorter).
    static let maximumLength = 100

    /// Reads `text`: the due date, nil for none (`none` or nothing), or an error that says what is accepted.
    public func parse(_ text: String) throws(DueDateError) -> DueDate? {
        let trimmed = text.trimmingWhiteSpaceAndNewlines
        guard trimmed.utf8.count <= Self.maximumLength else { throw DueDateError(text: text, problem: nil) }
        let input = Self.withoutAt(trimmed.lowercased())
        switch read(input, kinds: [.day, .time, .whole]) {
        case .notThisForm: break
        case .none: return nil
        case .day(let day): return try resolve(day, text: text)
        case .time(let hour, let minute): return try resolve(today, hour: hour, minute: minute, text: text)
        case .moment(let date): return DueDate(date, allDay: false)
        case .impossible(let reason): throw DueDateError(text: text, problem: reason)
        }
        // A day followed by a time: `tomorrow 17:00`, `2026-05-01 9am`.
        guard let space = input.lastIndex(of: " ") else { throw DueDateError(text: text, problem: nil) }
        let head = String(input[..<space]).trimmingSpacesAndTabs
        let tail = String(input[input.index(after: space)...])
        let day: GregorianDay
        switch read(head, kinds: [.day]) {
        case .day(let found): day = found
        case .impossible(let reason): throw DueDateError(text: text, problem: reason)
        default: throw DueDateError(text: text, problem: nil)
        }
        switch read(tail, kinds: [.time]) {
        case .time(let hour, let minute): return try resolve(day, hour: hour, minute: minute, text: text)
        case .impossible(let reason): throw DueDateError(text: text, problem: reason)
        default: throw DueDateError(text: text, problem: nil)
        }
    }

    /// `tomorrow at 5pm` as `tomorrow 5pm`: the words split by single spaces, an `at` before the last one dropped (`at 5pm` is today).
    static func withoutAt(_ text: String) -> String {
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 2 else { return text }
        if words[words.count - 2] == "at" { words.remove(at: words.count - 2) }
        return words.joined(separator: " ")
    }

    /// What the first rule of one of `kinds` that knows the form makes of `text`.
    func read(_ text: String, kinds: Set<Kind>) -> Match {
        for rule in Self.rules where kinds.contains(rule.kind) {
            let match = rule.read(text, self)
            if case .notThisForm = match { continue }
            return match
        }
        return .notThisForm
    }

    /// `day`, all day: a floating calendar date, the same day in every time zone.
    func resolve(_ day: GregorianDay?, text: String) throws(DueDateError) -> DueDate {
        guard let day, let due = DueDate.day(year: day.year, month: day.month, day: day.day) else {
            throw DueDateError(text: text, problem: "too far away")
        }
        return due
    }

    /// `day` at `hour:minute` on the wall clock of `calendar`'s time zone, refused when the clocks skip that time.
    func resolve(_ day: GregorianDay?, hour: Int, minute: Int, text: String) throws(DueDateError) -> DueDate {
        guard let day, let date = day.at(hour: hour, minute: minute, second: 0, in: calendar) else {
            throw DueDateError(text: text, problem: "too far away")
        }
        guard day.shows(date, hour: hour, minute: minute, in: calendar) else {
            let zone = calendar.timeZone.identifier
            throw DueDateError(
                text: text, problem: "\(hour):\(GregorianDay.two(minute)) does not exist on \(day.text) in \(zone) (clocks go forward)")
        }
        return DueDate(date, allDay: false)
    }

    /// "a, b or c".
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
        "cannot read the due date '\(Self.shown(text))'" + (problem.map { ": \($0)" } ?? "") + "; use " + DueDateGrammar.accepted
    }

    /// A line for the edit form: "Due: February 2026 has 28 days." or "Due: use YYYY-MM-DD, today, tomorrow, +3d or 17:00."
    public var formLine: String {
        if let problem { return "Due: \(problem)." }
        return "Due: use \(DueDateGrammar.acceptedShort)."
    }

    /// The text as a message can show it: control characters as U+FFFD, at most 40 characters.
    static func shown(_ text: String) -> String {
        let visible = String(String.UnicodeScalarView(text.unicodeScalars.prefix(41).map { scalar in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format ? "\u{FFFD}" : scalar
        }))
        return visible.unicodeScalars.count > 40 ? String(String.UnicodeScalarView(visible.unicodeScalars.prefix(40))) + "…" : visible
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
