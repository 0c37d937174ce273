import CloudModel
import Foundation

/// Why a filter's text was refused; `description` says what is wrong and what is accepted.
public enum FilterError: Error, CustomStringConvertible, Equatable {
    /// A `"` was opened and never closed.
    case unbalancedQuote
    /// More than `TodoFilter.maxCharacters` characters.
    case tooLong
    /// More than `TodoFilter.maxTerms` terms.
    case tooManyTerms
    /// A `key:` that is not a filter (the key as typed, with its colon).
    case unknownFilter(String)
    /// A value the key does not take (the term as typed).
    case badValue(key: String, term: String)
    /// A date the date reader did not understand (the term as typed).
    case notADate(key: String, term: String)
    /// The date reader's own error, by its description.
    case dateReader(String)

    /// One sentence: what is wrong and what is accepted.
    public var description: String {
        switch self {
        case .unbalancedQuote: return "a quote \" is not closed; put a \" after the phrase"
        case .tooLong: return "the filter has more than \(TodoFilter.maxCharacters) characters; at most \(TodoFilter.maxCharacters) are accepted"
        case .tooManyTerms: return "the filter has more than \(TodoFilter.maxTerms) terms; at most \(TodoFilter.maxTerms) are accepted"
        case .unknownFilter(let key):
            return
                "unknown filter '\(key)'; use list:, due:, due.before:, due.after:, due.by:, wait:, scheduled:, until: (each with .before:, .after:, .by:), project:, pri:, is:, +tag or -tag"
        case .badValue(let key, let term): return "'\(term)' is not accepted; \(FilterError.accepted(key))"
        case .notADate(let key, let term): return "'\(term)' is not a date; \(FilterError.accepted(key))"
        case .dateReader(let message): return message
        }
    }

    /// What `key` takes, as a clause.
    static func accepted(_ key: String) -> String {
        switch key {
        case "pri:": return "pri: takes 0-3, 0-3+, 0-3-, none, H, M or L"
        case "is:": return "is: takes done, open, repeating, overdue, tagged, waiting, scheduled, active, blocked or blocking"
        case "list:": return "list: takes a list name (quoted when it has spaces) or none"
        case "project:": return "project: takes a list path such as Home.Garden (quoted when it has spaces) or none"
        case "due:": return "due: takes a date such as today, eow or 2026-03-12, or none, any or overdue"
        case "wait:", "scheduled:", "until:": return "\(key) takes a date such as today, eow or 2026-03-12, or none or any"
        case "+", "-": return "\(key) takes a tag name"
        default: return "\(key) takes a date such as today, eow or 2026-03-12"
        }
    }
}

extension TodoFilter {
    /// The most characters (Unicode scalars) a filter's text may have.
    public static let maxCharacters = 1000
    /// The most terms a filter may have.
    public static let maxTerms = 64

    /// Compiles `text`; dates are read by `readDate` (nil: not a date) and resolved against `now` in `calendar`, which
    /// is made only when a term needs it (a filter of tags and words never does).
    public static func parse(
        _ text: String, now: Date, calendar: @escaping @autoclosure () -> Calendar, readDate: (String) throws -> DueDate?
    ) throws(FilterError) -> TodoFilter {
        guard text.utf8.count <= 4 * maxCharacters, text.unicodeScalars.count <= maxCharacters else { throw .tooLong }
        var needles: [Needle] = []
        var checks = FieldChecks()
        var parts: [String] = []
        let dates = DateResolver(now: now, calendar: calendar)
        for token in try tokens(of: text) {
            switch try term(token, dates: dates, readDate: readDate) {
            case .text(let word):
                needles.append(Needle(word))
                parts.append(bareIsText(word) ? word : "\"\(word)\"")
            case .field(let field, let part):
                checks.add(field)
                parts.append(part)
            case .nothing: break
            }
        }
        return TodoFilter(needles: needles, checks: checks, parts: parts)
    }

    /// One whitespace-separated term: its scalars without quotes, and how many came before the first quote.
    struct Token {
        /// The term with its quotes removed.
        var scalars: [Unicode.Scalar] = []
        /// How many leading scalars were outside quotes (all of them when unquoted).
        var bareCount = 0
        /// Whether any part was quoted.
        var quoted = false
    }

    /// What one token compiles to.
    enum Compiled {
        /// A text word or phrase.
        case text(String)
        /// A term on another field and its canonical text.
        case field(FieldTerm, String)
        /// Nothing (an empty `""`).
        case nothing
    }

    /// Splits `text` into terms at whitespace and control characters outside quotes, shell-like (`list:"Two words"`).
    static func tokens(of text: String) throws(FilterError) -> [Token] {
        var tokens: [Token] = []
        var current = Token()
        var inToken = false
        var inQuote = false
        for scalar in text.unicodeScalars {
            if scalar == "\"" {
                if !current.quoted { current.bareCount = current.scalars.count }
                current.quoted = true
                inQuote.toggle()
                inToken = true
            } else if isSeparator(scalar) {
                if inQuote {
                    current.scalars.append(" ")
                } else if inToken {
                    if !current.quoted { current.bareCount = current.scalars.count }
                    tokens.append(current)
                    guard tokens.count <= maxTerms else { throw .tooManyTerms }
                    current = Token()
                    inToken = false
                }
            } else {
                current.scalars.append(scalar)
                inToken = true
            }
        }
        guard !inQuote else { throw .unbalancedQuote }
        if inToken {
            if !current.quoted { current.bareCount = current.scalars.count }
            tokens.append(current)
            guard tokens.count <= maxTerms else { throw .tooManyTerms }
        }
        return tokens
    }

    /// Whitespace and control characters: they separate terms (inside quotes they become a space).
    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }

    /// A lone `+`/`-`, or a number such as `-3` or `+1.5`: text, not a tag.
    static func isNumberOrNothing(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        var digits = false
        for scalar in scalars {
            if ("0"..."9").contains(scalar) { digits = true } else if scalar != "." && scalar != "," { return false }
        }
        return scalars.isEmpty || digits
    }

    /// Where the key's colon is when the unquoted start reads `letters-or-dots:`, else nil.
    static func keyColon(_ scalars: ArraySlice<Unicode.Scalar>) -> Int? {
        guard let colon = scalars.firstIndex(of: ":"), colon > scalars.startIndex,
            scalars[scalars.startIndex].properties.isAlphabetic
        else { return nil }
        for scalar in scalars[scalars.startIndex..<colon] where !scalar.properties.isAlphabetic && scalar != "." { return nil }
        return colon
    }

    /// Whether `word` written without quotes reads back as the same text term.
    static func bareIsText(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard let first = scalars.first, !scalars.contains(where: { isSeparator($0) || $0 == "\"" }) else { return false }
        if first == "+" || first == "-" { return isNumberOrNothing(scalars.dropFirst()) }
        return keyColon(scalars[...]) == nil
    }

    /// `value`, quoted when it has spaces, is empty, or reads as one of `keywords` (lowercase) unquoted.
    static func quoted(_ value: String, unless keywords: Set<String> = []) -> String {
        let plain = !value.isEmpty && !value.unicodeScalars.contains(where: isSeparator) && !keywords.contains(value.lowercased())
        return plain ? value : "\"\(value)\""
    }

    /// At most 40 characters of `text`, for an error message.
    static func shown(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(39)) + "…"
    }

    /// Compiles one token.
    static func term(_ token: Token, dates: DateResolver, readDate: (String) throws -> DueDate?) throws(FilterError) -> Compiled {
        let scalars = token.scalars
        let bare = scalars[..<token.bareCount]
        let whole = String(scalars: scalars[...])
        guard let first = scalars.first else { return .nothing }
        if first == "+" || first == "-", !bare.isEmpty {
            let rest = scalars.dropFirst()
            if rest.isEmpty && token.quoted { throw .badValue(key: String(first), term: shown(whole)) }
            if isNumberOrNothing(rest) && !token.quoted { return .text(whole) }
            let name = String(scalars: rest)
            let part = String(first) + (isNumberOrNothing(rest) ? "\"\(name)\"" : quoted(name))
            return .field(.tag(FoldedName(name), first == "+"), part)
        }
        guard let colon = keyColon(bare) else { return .text(whole) }
        let typedKey = String(scalars: scalars[..<colon]) + ":"
        let key = typedKey.lowercased()
        let value = String(scalars: scalars[(colon + 1)...])
        let word = token.quoted ? "" : value.lowercased()
        let bad = FilterError.badValue(key: key, term: shown(whole))
        switch key {
        case "list:":
            guard !value.isEmpty else { throw bad }
            if word == "none" { return .field(.list(nil), "list:none") }
            return .field(.list(FoldedName(value)), "list:" + quoted(value, unless: ["none"]))
        case "project:":
            guard !value.isEmpty else { throw bad }
            if word == "none" { return .field(.project(nil), "project:none") }
            return .field(.project(FoldedName(value)), "project:" + quoted(value, unless: ["none"]))
        case "pri:":
            let test = try priority(value.lowercased(), bad: bad)
            return .field(.priority(test), "pri:" + priorityText(test))
        case "is:":
            switch word {
            case "done": return .field(.completed(true), "is:done")
            case "open": return .field(.completed(false), "is:open")
            case "repeating": return .field(.repeating, "is:repeating")
            case "overdue": return .field(.overdueOpen(dates.overdue), "is:overdue")
            case "tagged": return .field(.tagged, "is:tagged")
            case "waiting": return .field(.waiting(dates.now.timeIntervalSinceReferenceDate), "is:waiting")
            case "scheduled": return .field(.scheduled, "is:scheduled")
            case "active": return .field(.active, "is:active")
            case "blocked": return .field(.blocked(true), "is:blocked")
            case "blocking": return .field(.blocked(false), "is:blocking")
            default: throw bad
            }
        case "due:", "due.before:", "due.after:", "due.by:":
            guard !value.isEmpty else { throw bad }
            if key == "due:" {
                switch word {
                case "none": return .field(.due(.none), "due:none")
                case "any": return .field(.due(.any), "due:any")
                case "overdue": return .field(.due(dates.overdue), "due:overdue")
                default: break
                }
            }
            let test = try dates.test(key, value: value, term: shown(whole), read: readDate)
            return .field(.due(test), key + quoted(value, unless: key == "due:" ? ["none", "any", "overdue"] : []))
        default:
            if let compiled = try momentTerm(key: key, value: value, word: word, whole: whole, dates: dates, readDate: readDate) {
                return compiled
            }
            throw .unknownFilter(shown(typedKey))
        }
    }

    /// `wait:`, `scheduled:` and `until:` with `.before:`, `.after:` and `.by:`: read as the `due` term of the same
    /// form reads its date, and tested against the moment; nil for any other key.
    static func momentTerm(
        key: String, value: String, word: String, whole: String, dates: DateResolver, readDate: (String) throws -> DueDate?
    ) throws(FilterError) -> Compiled? {
        let name = key.prefix { $0 != "." && $0 != ":" }
        guard let field = MomentTest.Field(rawValue: String(name)) else { return nil }
        let form = key.dropFirst(name.count)
        guard [":", ".before:", ".after:", ".by:"].contains(form) else { return nil }
        guard !value.isEmpty else { throw .badValue(key: key, term: shown(whole)) }
        if form == ":" {
            switch word {
            case "none": return .field(.moment(MomentTest(field: field, test: .none)), key + "none")
            case "any": return .field(.moment(MomentTest(field: field, test: .any)), key + "any")
            default: break
            }
        }
        let test: DueTest
        do {
            test = try dates.test("due" + form, value: value, term: shown(whole), read: readDate)
        } catch .notADate(_, let term) {
            throw .notADate(key: key, term: term)
        }
        return .field(.moment(MomentTest(field: field, test: test)), key + quoted(value, unless: form == ":" ? ["none", "any"] : []))
    }

    /// Reads a `pri:` value (lowercased).
    static func priority(_ value: String, bad: FilterError) throws(FilterError) -> PriorityTest {
        switch value {
        case "none": return .exactly(0)
        case "l": return .exactly(1)
        case "m": return .exactly(2)
        case "h": return .exactly(3)
        default: break
        }
        let scalars = Array(value.unicodeScalars)
        guard (1...2).contains(scalars.count), let digit = scalars.first, ("0"..."3").contains(digit) else { throw bad }
        let level = Int(digit.value) - 0x30
        guard scalars.count == 2 else { return .exactly(level) }
        switch scalars[1] {
        case "+": return .atLeast(level)
        case "-": return .atMost(level)
        default: throw bad
        }
    }

    /// A priority test's canonical value: `2`, `2+` or `2-`.
    static func priorityText(_ test: PriorityTest) -> String {
        switch test {
        case .exactly(let level): return "\(level)"
        case .atLeast(let level): return "\(level)+"
        case .atMost(let level): return "\(level)-"
        }
    }
}

/// Turns `due:` values into tests, against one moment in one calendar.
struct DateResolver {
    /// The moment the filter is made.
    let now: Date
    /// The calendar days are counted in, made at its first use: the first calendar of a process (the local time zone
    /// found through ICU) was 14 % of the instructions of a `todo list +home`, whose filter reads no date.
    var calendar: Calendar { made.value }
    private let made: MadeOnce

    init(now: Date, calendar: @escaping () -> Calendar) {
        self.now = now
        made = MadeOnce(calendar)
    }

    /// A calendar made when first asked for.
    private final class MadeOnce {
        let make: () -> Calendar
        lazy var value: Calendar = make()
        init(_ make: @escaping () -> Calendar) { self.make = make }
    }

    /// Past its deadline (`DueDate.deadline(in:)` before `now`).
    var overdue: DueTest {
        let moment = now.timeIntervalSinceReferenceDate
        // An all-day todo's deadline is the start of the day after it: before `now` when its day began before the
        // day that ended before `now`.
        let today = calendar.startOfDay(for: now)
        let floatingToday = DueDate.day(now, in: calendar).date
        let limit = today < now ? floatingToday : floatingToday.addingTimeInterval(-86_400)
        return .within(timed: .before(moment), allDay: .before(limit.timeIntervalSinceReferenceDate))
    }

    /// The test of `key` (`due:`, `due.before:`, `due.after:`, `due.by:`) with a date `value` read by `read`.
    func test(_ key: String, value: String, term: String, read: (String) throws -> DueDate?) throws(FilterError) -> DueTest {
        let date: DueDate?
        do {
            date = try read(value)
        } catch let error as FilterError {
            throw error
        } catch {
            throw .dateReader(String(describing: error))
        }
        guard let date else { throw .notADate(key: key, term: term) }
        // The day named, as the person's zone bounds it (for timed todos) and as a floating date (for all-day ones,
        // whose `date` is 00:00 UTC of their day).
        let dayStart = date.start(in: calendar)
        let nextDay = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: dayStart)) ?? dayStart.addingTimeInterval(86_400)
        let start = calendar.startOfDay(for: dayStart).timeIntervalSinceReferenceDate
        let end = nextDay.timeIntervalSinceReferenceDate
        let floatingStart = (date.allDay ? date : DueDate.day(date.date, in: calendar)).date.timeIntervalSinceReferenceDate
        let floatingEnd = floatingStart + 86_400
        // The end of a period names its last day whole; a timed date is its moment; an all-day todo compares by its day.
        let endOfPeriod = DueDateGrammar.namesEndOfPeriod(value)
        let moment = date.allDay || endOfPeriod ? nil : date.date.timeIntervalSinceReferenceDate
        switch key {
        case "due.before:":
            if endOfPeriod { return .within(timed: .before(end), allDay: .before(floatingEnd)) }
            return .within(timed: .before(moment ?? start), allDay: .before(floatingStart))
        case "due.after:":
            return .within(timed: moment.map(Bounds.after) ?? .from(end), allDay: .from(floatingEnd))
        case "due.by:":
            return .within(timed: moment.map(Bounds.upTo) ?? .before(end), allDay: .before(floatingEnd))
        default:
            return .within(timed: .span(start, end), allDay: .span(floatingStart, floatingEnd))
        }
    }
}
