import Foundation
import Testing
import TodoPlanning

/// Taskwarrior's date words in the one grammar, against a fixed clock (Tuesday 2026-03-10 12:00 UTC).
@Suite("Date words")
struct DateWordsTests {
    typealias F = PlanningFixture
    let grammar = DueDateGrammar(now: F.now, calendar: F.utc)

    func read(_ grammar: DueDateGrammar, _ text: String) -> Result<DueDate?, DueDateError> {
        do throws(DueDateError) {
            return .success(try grammar.parse(text))
        } catch {
            return .failure(error)
        }
    }

    @Test func startsAndEndsOfPeriods() {
        let table: [(String, DueDate)] = [
            ("sod", F.allDay(2026, 3, 10)), ("eod", F.allDay(2026, 3, 10)), ("sopd", F.allDay(2026, 3, 9)), ("eond", F.allDay(2026, 3, 11)),
            ("sow", F.allDay(2026, 3, 9)), ("eow", F.allDay(2026, 3, 15)), ("soww", F.allDay(2026, 3, 9)), ("eoww", F.allDay(2026, 3, 13)),
            ("sonw", F.allDay(2026, 3, 16)), ("eopw", F.allDay(2026, 3, 8)), ("sopw", F.allDay(2026, 3, 2)), ("eonww", F.allDay(2026, 3, 20)),
            ("som", F.allDay(2026, 3, 1)), ("eom", F.allDay(2026, 3, 31)), ("sonm", F.allDay(2026, 4, 1)), ("eopm", F.allDay(2026, 2, 28)),
            ("eonm", F.allDay(2026, 4, 30)), ("soq", F.allDay(2026, 1, 1)), ("eoq", F.allDay(2026, 3, 31)), ("sonq", F.allDay(2026, 4, 1)),
            ("eonq", F.allDay(2026, 6, 30)), ("sopq", F.allDay(2025, 10, 1)), ("soy", F.allDay(2026, 1, 1)), ("EOY", F.allDay(2026, 12, 31)),
            ("sony", F.allDay(2027, 1, 1)), ("eopy", F.allDay(2025, 12, 31)), ("later", F.allDay(9999, 12, 30)),
            ("someday", F.allDay(9999, 12, 30)),
        ]
        for (text, expected) in table {
            #expect(read(grammar, text) == .success(expected), "\(text)")
        }
    }

    @Test func monthsOrdinalsAndSpokenForms() {
        let table: [(String, DueDate?)] = [
            ("now", DueDate(F.now, allDay: false)), ("noon", F.at(2026, 3, 10, 12, 0)),
            ("dec", F.allDay(2026, 12, 1)), ("December", F.allDay(2026, 12, 1)), ("mar", F.allDay(2027, 3, 1)),
            ("apr", F.allDay(2026, 4, 1)), ("sept", F.allDay(2026, 9, 1)),
            ("dec 24", F.allDay(2026, 12, 24)), ("24 dec", F.allDay(2026, 12, 24)), ("December 24th", F.allDay(2026, 12, 24)),
            ("24th of december", F.allDay(2026, 12, 24)), ("mar 10", F.allDay(2026, 3, 10)), ("mar 9", F.allDay(2027, 3, 9)),
            ("feb 29", F.allDay(2028, 2, 29)), ("dec 24 2027", F.allDay(2027, 12, 24)), ("24 Dec 2027", F.allDay(2027, 12, 24)),
            ("1st", F.allDay(2026, 4, 1)), ("2nd", F.allDay(2026, 4, 2)), ("3rd", F.allDay(2026, 4, 3)), ("10th", F.allDay(2026, 4, 10)),
            ("11th", F.allDay(2026, 3, 11)), ("22nd", F.allDay(2026, 3, 22)), ("31st", F.allDay(2026, 3, 31)),
            ("next fri", F.allDay(2026, 3, 13)), ("next tuesday", F.allDay(2026, 3, 17)), ("next week", F.allDay(2026, 3, 16)),
            ("next month", F.allDay(2026, 4, 1)), ("next year", F.allDay(2027, 1, 1)), ("next dec", F.allDay(2026, 12, 1)),
            ("in 3 days", F.allDay(2026, 3, 13)), ("in a week", F.allDay(2026, 3, 17)), ("in 2 months", F.allDay(2026, 5, 10)),
            ("in 1 year", F.allDay(2027, 3, 10)), ("2 weeks ago", F.allDay(2026, 2, 24)),
            ("in 2 hours", F.at(2026, 3, 10, 14, 0)), ("in 30 minutes", F.at(2026, 3, 10, 12, 30)), ("an hour ago", F.at(2026, 3, 10, 11, 0)),
            ("tomorrow at 5pm", F.at(2026, 3, 11, 17, 0)), ("fri at noon", F.at(2026, 3, 13, 12, 0)), ("at 5pm", F.at(2026, 3, 10, 17, 0)),
            ("dec 24 9am", F.at(2026, 12, 24, 9, 0)), ("24 dec 2027 at 17:00", F.at(2027, 12, 24, 17, 0)),
            ("in 3 days at 9am", F.at(2026, 3, 13, 9, 0)), ("15th 8am", F.at(2026, 3, 15, 8, 0)), ("next fri 9am", F.at(2026, 3, 13, 9, 0)),
            ("eoww 17:00", F.at(2026, 3, 13, 17, 0)), ("  tomorrow   at   noon ", F.at(2026, 3, 11, 12, 0)),
        ]
        for (text, expected) in table {
            #expect(read(grammar, text) == .success(expected), "\(text)")
        }
    }

    @Test func wordsCountInTheCalendarsZone() {
        // 23:30 UTC on Tuesday is Wednesday in Berlin: its week, month and ordinals count from Wednesday 2026-03-11.
        let berlin = DueDateGrammar(now: F.moment(2026, 3, 10, 23, 30), calendar: F.berlin)
        #expect(read(berlin, "eod") == .success(F.allDay(2026, 3, 11, in: F.berlin)))
        #expect(read(berlin, "11th") == .success(F.allDay(2026, 4, 11, in: F.berlin)))
        #expect(read(berlin, "tomorrow at noon") == .success(F.at(2026, 3, 12, 12, 0, in: F.berlin)))
        // A Sunday: sow is six days back, eow today, sonw tomorrow.
        let sunday = DueDateGrammar(now: F.moment(2026, 3, 15, 12, 0), calendar: F.utc)
        #expect(read(sunday, "sow") == .success(F.allDay(2026, 3, 9)))
        #expect(read(sunday, "eow") == .success(F.allDay(2026, 3, 15)))
        #expect(read(sunday, "sonw") == .success(F.allDay(2026, 3, 16)))
        // On the 31st of January, 31st skips February, March has one.
        let monthEnd = DueDateGrammar(now: F.moment(2026, 1, 31, 12, 0), calendar: F.utc)
        #expect(read(monthEnd, "31st") == .success(F.allDay(2026, 3, 31)))
        #expect(read(monthEnd, "in 1 month") == .success(F.allDay(2026, 2, 28)))
    }

    @Test func refusalsNameWhatWasNotUnderstood() {
        let impossible: [(String, String)] = [
            ("dec 32", "there is no December 32"), ("feb 30", "there is no February 30"), ("apr 31", "there is no April 31"),
            ("feb 29 2027", "February 2027 has 28 days"), ("32nd", "no month has a day 32"), ("in 100001 days", "at most 100000 days"),
            ("in 251 years", "at most 250 years"), ("dec 32 9am", "there is no December 32"),
        ]
        for (text, problem) in impossible {
            #expect(read(grammar, text) == .failure(DueDateError(text: text, problem: problem)), "\(text)")
        }
        let unknown = [
            "1th", "2st", "next", "next soon", "in days", "in 3 fortnights", "dec dec", "eoxx", "eoww2", "at", "tomorrow at", "midnight",
            "in -3 days", "3 days", "dec 24 27", "24 24", "next next fri", "sooow",
        ]
        for text in unknown {
            #expect(read(grammar, text) == .failure(DueDateError(text: text, problem: nil)), "\(text)")
        }
        #expect(DueDateError(text: "soon", problem: nil).description.split(separator: "\n").count == 1)
    }

    @Test func filtersTakeEndWordsWhole() throws {
        #expect(DueDateGrammar.namesEndOfPeriod("eoww"))
        #expect(DueDateGrammar.namesEndOfPeriod("EONM"))
        #expect(!DueDateGrammar.namesEndOfPeriod("sow"))
        #expect(!DueDateGrammar.namesEndOfPeriod("today"))
    }
}
