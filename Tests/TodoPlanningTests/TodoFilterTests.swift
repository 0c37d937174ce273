import Foundation
import Testing
import TodoPlanning
import TestSupport

/// A todo as a filter sees it.
private struct Todo: Filterable {
    var title = ""
    var notes = ""
    var tags: [String] = []
    var listName: String?
    var due: DueDate?
    var priority = 0
    var isCompleted = false
    var isRepeating = false
}

/// Berlin, so that days do not start at midnight UTC.
private let calendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .current
    return calendar
}()

/// A moment in Berlin.
private func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
    calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)) ?? .distantPast
}

/// All day on a day in March 2026.
private func allDay(_ day: Int) -> DueDate { DueDate(at(2026, 3, day), allDay: true) }
/// At a time on a day in March 2026.
private func timed(_ day: Int, _ hour: Int, _ minute: Int = 0) -> DueDate { DueDate(at(2026, 3, day, hour, minute), allDay: false) }

/// Thursday 2026-03-12 10:00 in Berlin; its week ends on Sunday the 15th.
private let now = at(2026, 3, 12, 10)

/// The reader's own error.
private struct ReaderError: Error, CustomStringConvertible {
    var description: String { "boom is not a date I know" }
}

/// A small date reader standing in for the app's grammar.
private func readDate(_ text: String) throws -> DueDate? {
    switch text.lowercased() {
    case "today": return allDay(12)
    case "tomorrow": return allDay(13)
    case "eow": return allDay(15)
    case "eom": return allDay(31)
    case "2026-03-12": return allDay(12)
    case "2026-03-15": return allDay(15)
    case "2026-03-12 09:00": return timed(12, 9)
    case "boom": throw ReaderError()
    default: return nil
    }
}

private func parse(_ text: String) throws(FilterError) -> TodoFilter {
    try TodoFilter.parse(text, now: now, calendar: calendar, readDate: readDate)
}

/// The todos the evaluation table runs over, by name.
private let todos: [(String, Todo)] = [
    ("a", Todo(title: "Buy äpfel", tags: ["Garden"], listName: "Home", due: allDay(12), priority: 2)),
    ("b", Todo(title: "Call Bob", notes: "about ÄPFEL", tags: ["work"], listName: "Work Stuff", due: timed(12, 9), priority: 3)),
    ("c", Todo(title: "Mow lawn", tags: ["garden", "weekly"], due: allDay(15), priority: 1, isRepeating: true)),
    ("d", Todo(title: "Taxes", notes: "file them", listName: "Home", due: allDay(16))),
    ("e", Todo(title: "Old thing", tags: ["garden"], due: allDay(10), isCompleted: true)),
    ("f", Todo(title: "Late call", due: timed(11, 18), priority: 2)),
    ("g", Todo(title: "Someday", listName: "home")),
    ("h", Todo(title: "Sunday late", tags: ["GARDEN"], due: timed(15, 23, 30))),
    ("i", Todo(title: "Monday early", due: timed(16, 0))),
    ("j", Todo(title: "Temp -3 degrees")),
    ("k", Todo(title: "Cafe\u{301} run", tags: ["Übung"])),
]

@Suite(.onThreadOfItsOwn) struct TodoFilterTests {
    @Test(arguments: [
        ("  +Garden   due.before:EOW  PRI:2+ ", "+Garden due.before:EOW pri:2+"),
        ("list:\"Two words\" LIST:None list:\"none\" list:Home", "list:\"Two words\" list:none list:\"none\" list:Home"),
        ("pri:H pri:m pri:L pri:none pri:0- pri:3", "pri:3 pri:2 pri:1 pri:0 pri:0- pri:3"),
        ("\"call bob\" -3 - + \"a:b\" \"+x\" 9:30", "\"call bob\" -3 - + \"a:b\" \"+x\" 9:30"),
        ("word\"s more\" -\"two words\" +\"3\" +a:b --x", "\"words more\" -\"two words\" +\"3\" +a:b --x"),
        ("is:DONE is:open is:Repeating is:overdue is:tagged", "is:done is:open is:repeating is:overdue is:tagged"),
        ("due:Today due:NONE due:any due:overdue due:\"today\"", "due:Today due:none due:any due:overdue due:today"),
        ("due.by:\"2026-03-12 09:00\" due.after:eom DUE.BEFORE:today", "due.by:\"2026-03-12 09:00\" due.after:eom due.before:today"),
        ("a\tb\nc\u{7}d \"e\u{7}f\" \"\"", "a b c d \"e f\""),
        ("ÄPFEL", "ÄPFEL"),
    ])
    func summary(input: String, expected: String) throws {
        let filter = try parse(input)
        #expect(filter.summary == expected)
        #expect(try parse(filter.summary) == filter)
    }

    /// A filter reads its calendar only for a date term, and makes it once: the first calendar of a process (the local
    /// zone found through ICU) was a seventh of a `todo list +home`.
    @Test func theCalendarIsMadeOnlyForDatesAndOnce() throws {
        var made = 0
        func counted() -> Calendar {
            made += 1
            return calendar
        }
        _ = try TodoFilter.parse("+home -work pri:2 is:open \"a b\" list:x", now: at(2026, 3, 12), calendar: counted()) { _ in nil }
        #expect(made == 0)
        _ = try TodoFilter.parse("due.after:2026-03-01 due.before:2026-03-20 is:overdue", now: at(2026, 3, 12), calendar: counted()) { text in
            try DueDateGrammar(now: at(2026, 3, 12), calendar: calendar).parse(text)
        }
        #expect(made == 1)
        #expect(DueDate(at(2026, 3, 12), allDay: false).text(in: counted()).hasPrefix("2026-03-12"))
        #expect(made == 2)
        #expect(DueDate.day(at(2026, 3, 12), in: calendar).text(in: counted()) == "2026-03-12")
        #expect(made == 2, "an all-day date's text needs no calendar")
    }

    /// `list` and `next` show done or waiting todos when the filter has that term, not when a quoted text holds the
    /// same words (the summary split at spaces took `"call is:done"` for the term).
    @Test func hasTermIsATermNotAWordOfAText() throws {
        #expect(try parse("+x IS:Done").hasTerm("is:done"))
        #expect(try parse("is:waiting pri:2").hasTerm("is:waiting"))
        #expect(try !parse("\"call is:done today\"").hasTerm("is:done"))
        #expect(try !parse("\"is:waiting\"").hasTerm("is:waiting"))
        #expect(try !parse("+x is:open").hasTerm("is:done"))
        #expect(try parse("a  b   c").summary == "a b c")
    }

    @Test func emptyAndNeedles() throws {
        #expect(try parse("  \"\" ").isEmpty)
        #expect(try parse("").summary == "")
        #expect(try !parse("is:open").isEmpty)
        let filter = try parse("ÄPFEL +x Call \"a B\"")
        #expect(filter.textNeedles == [Array("äpfel".utf8), Array("call".utf8), Array("a b".utf8)])
        #expect(try parse("+x is:open").textNeedles.isEmpty)
    }

    @Test(arguments: [
        ("lsit:home", "unknown filter 'lsit:'; use list:, due:, due.before:, due.after:, due.by:, wait:, scheduled:, until: (each with .before:, .after:, .by:), project:, pri:, is:, +tag or -tag"),
        ("Foo.Bar:", "unknown filter 'Foo.Bar:'; use list:, due:, due.before:, due.after:, due.by:, wait:, scheduled:, until: (each with .before:, .after:, .by:), project:, pri:, is:, +tag or -tag"),
        (String(repeating: "k", count: 50) + ":v",
         "unknown filter '" + String(repeating: "k", count: 39) + "…'; use list:, due:, due.before:, due.after:, due.by:, wait:, scheduled:, until: (each with .before:, .after:, .by:), project:, pri:, is:, +tag or -tag"),
        ("pri:7", "'pri:7' is not accepted; pri: takes 0-3, 0-3+, 0-3-, none, H, M or L"),
        ("pri:", "'pri:' is not accepted; pri: takes 0-3, 0-3+, 0-3-, none, H, M or L"),
        ("pri:2*", "'pri:2*' is not accepted; pri: takes 0-3, 0-3+, 0-3-, none, H, M or L"),
        ("is:late", "'is:late' is not accepted; is: takes done, open, repeating, overdue, tagged, waiting, scheduled, active, blocked or blocking"),
        ("list:", "'list:' is not accepted; list: takes a list name (quoted when it has spaces) or none"),
        ("list:\"\"", "'list:' is not accepted; list: takes a list name (quoted when it has spaces) or none"),
        ("+\"\"", "'+' is not accepted; + takes a tag name"),
        ("due:", "'due:' is not accepted; due: takes a date such as today, eow or 2026-03-12, or none, any or overdue"),
        ("due:someday", "'due:someday' is not a date; due: takes a date such as today, eow or 2026-03-12, or none, any or overdue"),
        ("Due.Before:any", "'Due.Before:any' is not a date; due.before: takes a date such as today, eow or 2026-03-12"),
        ("due.by:boom", "boom is not a date I know"),
        ("\"abc", "a quote \" is not closed; put a \" after the phrase"),
        ("list:\"abc def", "a quote \" is not closed; put a \" after the phrase"),
        (Array(repeating: "w", count: 65).joined(separator: " "), "the filter has more than 64 terms; at most 64 are accepted"),
        (String(repeating: "a", count: 1001), "the filter has more than 1000 characters; at most 1000 are accepted"),
        (String(repeating: "ä", count: 1001), "the filter has more than 1000 characters; at most 1000 are accepted"),
    ])
    func errors(input: String, message: String) {
        #expect(throws: FilterError.self) { try parse(input) }
        do {
            _ = try parse(input)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func limitsAreInclusive() throws {
        #expect(try parse(Array(repeating: "w", count: 64).joined(separator: " ")).textNeedles.count == 64)
        #expect(try parse(String(repeating: "a", count: 1000)).textNeedles == [Array(repeating: 0x61, count: 1000)])
        #expect(throws: FilterError.unknownFilter("lsit:")) { try parse("lsit:x") }
    }

    @Test(arguments: [
        ("", "abcdefghijk"),
        ("+garden", "aceh"), ("+GARDEN", "aceh"), ("-garden", "bdfgijk"), ("+übung", "k"), ("+ÜBUNG -übung", ""),
        ("list:home", "adg"), ("list:\"work stuff\"", "b"), ("list:none", "cefhijk"),
        ("due:none", "gjk"), ("due:any", "abcdefhi"), ("due:today", "ab"), ("due:2026-03-12", "ab"),
        ("due:\"2026-03-12 09:00\"", "ab"), ("due:overdue", "bef"), ("is:overdue", "bf"),
        ("due.before:today", "ef"), ("due.before:eow", "abcefh"), ("due.by:eow", "abcefh"), ("due.by:2026-03-15", "abcefh"),
        ("due.before:2026-03-15", "abef"), ("due.after:2026-03-15", "di"), ("due.after:eow", "di"),
        ("due.before:\"2026-03-12 09:00\"", "ef"), ("due.by:\"2026-03-12 09:00\"", "abef"), ("due.after:\"2026-03-12 09:00\"", "cdhi"),
        ("pri:2", "af"), ("pri:2+", "abf"), ("pri:1-", "cdeghijk"), ("pri:none", "deghijk"), ("pri:H", "b"), ("pri:m", "af"), ("pri:l", "c"),
        ("is:done", "e"), ("is:open", "abcdfghijk"), ("is:repeating", "c"), ("is:tagged", "abcehk"),
        ("äpfel", "ab"), ("ÄPFEL", "ab"), ("call", "bf"), ("\"call bob\"", "b"), ("CALL them", ""), ("them", "d"), ("-3", "j"),
        ("café", "k"), ("cafe", ""),
        ("+garden due.before:eow", "aceh"), ("+garden due.before:eow -weekly is:open", "ah"), ("call pri:3", "b"),
    ])
    func evaluation(filterText: String, expected: String) throws {
        let filter = try parse(filterText)
        let matched = todos.filter { filter.matches($0.1) }.map(\.0).joined()
        #expect(matched == expected)
        let again = try parse(filter.summary)
        #expect(todos.filter { again.matches($0.1) }.map(\.0).joined() == expected)
    }

    @Test func fieldsLeaveTextToTheCaller() throws {
        let filter = try parse("call +work")
        #expect(filter.matchesFields(Todo(title: "nothing", tags: ["WORK"])))
        #expect(!filter.matches(Todo(title: "nothing", tags: ["WORK"])))
        #expect(filter.matches(Todo(notes: "to CALL", tags: ["WORK"])))
        #expect(!filter.matchesFields(Todo(title: "call")))
    }

    @Test(arguments: [
        ("aab", "aaab", true), ("abab", "abaabab", true), ("abc", "ab", false), ("ÄPFEL", "grüne äpfel", true),
        ("äpfel", "GRÜNE ÄPFEL", true), ("é", "E\u{301}", true), ("caf", "CAFE\u{301}", true), ("cafe", "CAFE\u{301}", false),
        ("x", "", false), ("ß", "STRASSE", false), ("\"a b\"", "xA B", true), ("ABA", "xxabxaba", true), ("日本", "東京 日本語", true),
    ])
    func textSearch(needle: String, haystack: String, expected: Bool) throws {
        #expect(try parse(needle).matches(Todo(title: haystack)) == expected)
        #expect(try parse(needle).matches(Todo(notes: haystack)) == expected)
    }

    /// The fast fold must agree with lowercasing and composing the whole text, for text search and for tags.
    @Test func fastFoldingAgreesWithFullFolding() throws {
        let alphabet: [String] = [
            "a", "B", "z", "Ä", "ä", "ß", "ẞ", "İ", "ı", "I", "Σ", "σ", "ς", "Ж", "ж", "\u{301}", "\u{308}", "日", "\u{212B}",
            "\u{212A}", "ǅ", "\u{345}", "Ω", "ﬀ", "\u{37E}", "Å", "e", "Ǆ", "Ⱥ", "\u{483}", "-", "1",
        ]
        func fold(_ text: String) -> [UInt8] { Array(text.lowercased().precomposedStringWithCanonicalMapping.utf8) }
        func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
            guard !needle.isEmpty else { return true }
            guard haystack.count >= needle.count else { return false }
            return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
        }
        var state: UInt64 = 12_345
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        var found = 0
        for _ in 0..<3000 {
            let scalars = (0..<(1 + next(12))).map { _ in alphabet[next(alphabet.count)] }
            let haystack = scalars.joined()
            let start = next(scalars.count)
            var needle = scalars[start..<min(scalars.count, start + 1 + next(4))].joined()
            if next(3) == 0 { needle = needle.uppercased() }
            if next(4) == 0 { needle = alphabet[next(alphabet.count)] + needle }
            let expected = contains(fold(haystack), fold(needle))
            found += expected ? 1 : 0
            let filter = try parse("\"" + needle + "\"")
            #expect(filter.matches(Todo(title: haystack)) == expected, "\(needle.debugDescription) in \(haystack.debugDescription)")
            let tagFilter = try parse("+\"" + needle + "\"")
            let other = next(2) == 0 ? needle.lowercased() : haystack
            let sameTag = needle.lowercased().precomposedStringWithCanonicalMapping == other.lowercased().precomposedStringWithCanonicalMapping
            #expect(tagFilter.matches(Todo(tags: [other])) == sameTag, "tag \(needle.debugDescription) = \(other.debugDescription)")
        }
        #expect(found > 1000)
    }

    @Test func overdueAtMidnight() throws {
        // At exactly midnight yesterday's all-day deadline is now: not yet before now.
        let midnight = at(2026, 3, 12)
        let filter = try TodoFilter.parse("due:overdue", now: midnight, calendar: calendar, readDate: readDate)
        #expect(!filter.matches(Todo(due: allDay(11))))
        #expect(filter.matches(Todo(due: allDay(10))))
        #expect(filter.matches(Todo(due: DueDate(midnight.addingTimeInterval(-1), allDay: false))))
        #expect(!filter.matches(Todo(due: DueDate(midnight, allDay: false))))
    }

    @Test func hostileInputNeverCrashesAndRoundTrips() {
        let alphabet: [String] = [
            "a", "B", "ä", "\u{301}", " ", "\t", "\n", "\u{0}", "\u{7F}", "\"", "+", "-", ":", ".", "3", "list:", "pri:", "is:",
            "due:", "due.by:", "today", "none", "open", "日", "\u{202E}", "é", "🇩🇪",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var parsed = 0
        for _ in 0..<2000 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for _ in 0..<Int(state >> 58) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += alphabet[Int(state >> 33) % alphabet.count]
            }
            guard let filter = try? parse(text) else { continue }
            parsed += 1
            #expect((try? parse(filter.summary)) == filter, "\(text.debugDescription) -> \(filter.summary.debugDescription)")
            _ = todos.map { filter.matches($0.1) }
        }
        #expect(parsed > 200)
    }

    /// Folding is lowercasing then composing (NFC) for every text, the ASCII ones (folded without Foundation) included.
    @Test func foldingLowercasesAndComposes() {
        for text in ["home", "HOME", "Ho_Me 100%", "", "café", "Cafe\u{301}", "\u{212A}ey", "ÅNGSTRÖM", "\u{1E9E}", "İstanbul", "a\u{0}b"] {
            #expect(foldedText(text) == text.lowercased().precomposedStringWithCanonicalMapping, "\(text)")
        }
        #expect(foldedText("Cafe\u{301}") == "café" && foldedText("\u{212A}EY") == "key")
    }
}
