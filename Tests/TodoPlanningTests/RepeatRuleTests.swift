import Foundation
import Testing
import TodoPlanning
import TestSupport

/// Repeat rules: RRULE text in and out, the command line's words, summaries and the next occurrence.
@Suite("Repeat rules", .onThreadOfItsOwn)
struct RepeatRuleTests {
    typealias F = PlanningFixture
    let unsupported = "use FREQ, INTERVAL, BYDAY, COUNT and UNTIL"

    /// The rule of `words`, or the problem that refused it.
    func rule(_ words: String) -> Result<RepeatRule, RepeatRuleError> {
        do throws(RepeatRuleError) {
            return .success(try RepeatRule(words: words))
        } catch {
            return .failure(error)
        }
    }

    /// The problem RRULE `text` is refused with, or nil when it is read.
    func rruleProblem(_ text: String) -> String? {
        do throws(RepeatRuleError) {
            _ = try RepeatRule(rrule: text)
            return nil
        } catch {
            return error.problem
        }
    }

    @Test func rruleTextIsReadAndWrittenCanonically() throws {
        let table: [(String, String)] = [
            ("FREQ=DAILY", "FREQ=DAILY"),
            ("RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"),
            ("rrule:byday=we,mo;freq=weekly;interval=2", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"),
            ("FREQ=WEEKLY;INTERVAL=1;BYDAY=FR", "FREQ=WEEKLY;BYDAY=FR"),
            ("FREQ=WEEKLY;BYDAY=MO,MO,SU", "FREQ=WEEKLY;BYDAY=MO,SU"),
            ("FREQ=MONTHLY;BYDAY=-1FR", "FREQ=MONTHLY;BYDAY=-1FR"),
            ("FREQ=MONTHLY;BYDAY=+1MO,-1MO,MO,2MO", "FREQ=MONTHLY;BYDAY=MO,1MO,2MO,-1MO"),
            ("FREQ=YEARLY;BYDAY=20MO;COUNT=3", "FREQ=YEARLY;BYDAY=20MO;COUNT=3"),
            ("COUNT=10;FREQ=MONTHLY", "FREQ=MONTHLY;COUNT=10"),
            ("FREQ=DAILY;UNTIL=20261231", "FREQ=DAILY;UNTIL=20261231"),
            ("until=20261231t235959z;freq=daily", "FREQ=DAILY;UNTIL=20261231T235959Z"),
            ("FREQ=WEEKLY;WKST=MO;BYDAY=TU", "FREQ=WEEKLY;BYDAY=TU"),
            (" FREQ=DAILY; INTERVAL=3 ;", "FREQ=DAILY;INTERVAL=3"),
            ("FREQ=YEARLY;INTERVAL=1000;COUNT=10000", "FREQ=YEARLY;INTERVAL=1000;COUNT=10000"),
        ]
        for (text, canonical) in table {
            let parsed = try RepeatRule(rrule: text)
            #expect(parsed.rrule == canonical, "\(text)")
            #expect(try RepeatRule(rrule: parsed.rrule) == parsed, "\(text)")
        }
        let parsed = try RepeatRule(rrule: "FREQ=MONTHLY;INTERVAL=3;BYDAY=1MO,-1FR;UNTIL=20261231")
        #expect(parsed.frequency == .monthly)
        #expect(parsed.interval == 3)
        #expect(parsed.byDay == [RepeatRule.ByDay(.monday, ordinal: 1), RepeatRule.ByDay(.friday, ordinal: -1)])
        #expect(parsed.count == nil)
        #expect(parsed.until == .day(year: 2026, month: 12, day: 31))
        #expect(parsed.from == .due)
        let moment = try RepeatRule(rrule: "FREQ=DAILY;UNTIL=20261231T235959Z")
        #expect(moment.until == .moment(F.moment(2026, 12, 31, 23, 59).addingTimeInterval(59)))
        let made = try RepeatRule(frequency: .weekly, interval: 2, byDay: [.init(.thursday), .init(.monday)], count: 4, from: .completion)
        #expect(made.rrule == "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=4")
        #expect(made.text == "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=4 from completion")
    }

    @Test func rruleRefusalsSayWhatIsWrong() {
        let table: [(String, String)] = [
            ("FREQ=DAILY;BYHOUR=9", "BYHOUR is not supported; " + unsupported),
            ("FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO", "BYSETPOS is not supported; " + unsupported),
            ("FREQ=MONTHLY;bymonthday=15", "BYMONTHDAY is not supported; " + unsupported),
            ("FREQ=YEARLY;BYMONTH=3", "BYMONTH is not supported; " + unsupported),
            ("FREQ=DAILY;X-NAME=1", "X-NAME is not an RRULE part; " + unsupported),
            ("FREQ=DAILY;COUNT", "'COUNT' is not NAME=VALUE; " + unsupported),
            ("FREQ=HOURLY", "FREQ=HOURLY is not supported; use DAILY, WEEKLY, MONTHLY or YEARLY"),
            ("FREQ=", "FREQ= is not supported; use DAILY, WEEKLY, MONTHLY or YEARLY"),
            ("INTERVAL=2", "an RRULE needs FREQ=DAILY, WEEKLY, MONTHLY or YEARLY"),
            ("RRULE:", "an RRULE needs FREQ=DAILY, WEEKLY, MONTHLY or YEARLY"),
            ("FREQ=DAILY;FREQ=WEEKLY", "FREQ is given twice; give each part once"),
            ("FREQ=DAILY;COUNT=3;UNTIL=20261231", "COUNT and UNTIL cannot both be given; use one of them"),
            ("FREQ=DAILY;INTERVAL=0", "INTERVAL must be a whole number from 1 to 1000"),
            ("FREQ=DAILY;INTERVAL=1001", "INTERVAL must be a whole number from 1 to 1000"),
            ("FREQ=DAILY;INTERVAL=-1", "INTERVAL must be a whole number from 1 to 1000"),
            ("FREQ=DAILY;INTERVAL=99999999999999999999", "INTERVAL must be a whole number from 1 to 1000"),
            ("FREQ=DAILY;COUNT=0", "COUNT must be a whole number from 1 to 10000"),
            ("FREQ=DAILY;COUNT=10001", "COUNT must be a whole number from 1 to 10000"),
            ("FREQ=WEEKLY;BYDAY=1MO", "a numbered weekday (1MO) needs FREQ=MONTHLY or FREQ=YEARLY; use plain weekdays such as MO,WE"),
            ("FREQ=MONTHLY;BYDAY=6MO", "6MO is not in any month; number weekdays 1 to 5 or -1 to -5"),
            ("FREQ=YEARLY;BYDAY=-54FR", "-54FR is not in any year; number weekdays 1 to 53 or -1 to -53"),
            ("FREQ=WEEKLY;BYDAY=XX", "'XX' in BYDAY is not a weekday; use MO, TU, WE, TH, FR, SA or SU, optionally numbered (1MO, -1FR)"),
            ("FREQ=WEEKLY;BYDAY=0MO", "'0MO' in BYDAY is not a weekday; use MO, TU, WE, TH, FR, SA or SU, optionally numbered (1MO, -1FR)"),
            ("FREQ=WEEKLY;BYDAY=MO,", "'' in BYDAY is not a weekday; use MO, TU, WE, TH, FR, SA or SU, optionally numbered (1MO, -1FR)"),
            ("FREQ=WEEKLY;BYDAY=", "BYDAY needs weekdays: MO, TU, WE, TH, FR, SA or SU, optionally numbered (1MO, -1FR)"),
            ("FREQ=DAILY;UNTIL=2026-12-31", "UNTIL must be a date (20261231) or a UTC time (20261231T235959Z)"),
            ("FREQ=DAILY;UNTIL=20261231T235959", "UNTIL must be a date (20261231) or a UTC time (20261231T235959Z)"),
            ("FREQ=DAILY;UNTIL=20260230", "UNTIL: February 2026 has 28 days"),
            ("FREQ=DAILY;UNTIL=20261231T245959Z", "UNTIL: there is no time 24:59:59"),
            ("FREQ=WEEKLY;WKST=SU", "WKST=SU is not supported; weeks start on Monday (WKST=MO)"),
            ("FREQ=DAILY;" + String(repeating: "COUNT=1;", count: 1300), "a repeat rule is at most 10000 characters"),
        ]
        for (text, problem) in table {
            #expect(rruleProblem(text) == problem, "\(text.prefix(40))")
        }
        let error = RepeatRuleError(text: "FREQ=DAILY;BYHOUR=9", problem: "BYHOUR is not supported; " + unsupported)
        #expect(error.description == "cannot read the repeat rule 'FREQ=DAILY;BYHOUR=9': BYHOUR is not supported; " + unsupported)
        #expect(throws: RepeatRuleError(text: "FREQ=DAILY;INTERVAL=0", problem: "INTERVAL must be a whole number from 1 to 1000")) {
            try RepeatRule(frequency: .daily, interval: 0)
        }
    }

    @Test func commandLineWords() throws {
        let table: [(String, String, RepeatRule.Origin)] = [
            ("daily", "FREQ=DAILY", .due), ("Weekly", "FREQ=WEEKLY", .due), ("monthly", "FREQ=MONTHLY", .due),
            ("yearly", "FREQ=YEARLY", .due), ("weekdays", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", .due),
            ("every weekday", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", .due), ("every day", "FREQ=DAILY", .due),
            ("every 3 days", "FREQ=DAILY;INTERVAL=3", .due), ("every 2 weeks", "FREQ=WEEKLY;INTERVAL=2", .due),
            ("every month", "FREQ=MONTHLY", .due), ("every 1 year", "FREQ=YEARLY", .due),
            ("every friday", "FREQ=WEEKLY;BYDAY=FR", .due), ("every mon,wed", "FREQ=WEEKLY;BYDAY=MO,WE", .due),
            ("every wed, Mon", "FREQ=WEEKLY;BYDAY=MO,WE", .due), ("every 2 weeks on mon,thu", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", .due),
            ("every week on saturday", "FREQ=WEEKLY;BYDAY=SA", .due),
            ("every 2 weeks from completion", "FREQ=WEEKLY;INTERVAL=2", .completion),
            ("  Every   3   Days   From   Completion ", "FREQ=DAILY;INTERVAL=3", .completion),
            ("daily from due", "FREQ=DAILY", .due),
            ("FREQ=MONTHLY;BYDAY=-1FR", "FREQ=MONTHLY;BYDAY=-1FR", .due),
            ("RRULE:FREQ=DAILY;COUNT=3 from completion", "FREQ=DAILY;COUNT=3", .completion),
            ("freq=daily;until=20261231t235959z", "FREQ=DAILY;UNTIL=20261231T235959Z", .due),
        ]
        for (words, rrule, origin) in table {
            let read = try RepeatRule(words: words)
            #expect(read.rrule == rrule, "\(words)")
            #expect(read.from == origin, "\(words)")
            #expect(try RepeatRule(words: read.text) == read, "\(words)")
        }
    }

    @Test func commandLineWordsRefusals() {
        let unknown = "use " + RepeatRule.acceptedWords
        let table: [(String, String)] = [
            ("sometimes", unknown), ("every", unknown), ("from completion", unknown), ("", unknown),
            ("every 2", "'2' is not a weekday or a unit; use mon…sun, monday…sunday, days, weeks, months or years"),
            ("every 0 days", "repeat every 1 to 1000 days, weeks, months or years"),
            ("every 1001 weeks", "repeat every 1 to 1000 days, weeks, months or years"),
            ("every funday", "'funday' is not a weekday or a unit; use mon…sun, monday…sunday, days, weeks, months or years"),
            ("every mon,funday", "'funday' is not a weekday; use mon…sun or monday…sunday, separated by commas"),
            ("every 2 weeks on mon,", "'' is not a weekday; use mon…sun or monday…sunday, separated by commas"),
            ("every 2 months on mon",
             "weekdays go with weeks (every 2 weeks on mon,thu); for months write an RRULE such as FREQ=MONTHLY;BYDAY=-1FR"),
            ("FREQ=DAILY;BYHOUR=9 from completion", "BYHOUR is not supported; " + unsupported),
        ]
        for (words, problem) in table {
            #expect(rule(words) == .failure(RepeatRuleError(text: words, problem: problem)), "\(words)")
        }
        #expect(
            RepeatRule.acceptedWords
                == "daily, weekly, monthly, yearly, weekdays, every 3 days, every 2 weeks, every month, every friday, every mon,wed, "
                + "every 2 weeks on mon,thu or an RRULE (FREQ=MONTHLY;BYDAY=-1FR), each optionally followed by 'from completion'")
    }

    @Test func summariesInPlainEnglish() throws {
        let table: [(String, String)] = [
            ("daily", "daily"), ("every 3 days", "every 3 days"), ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE", "every 2 weeks on Mon, Wed"),
            ("every friday", "weekly on Fri"), ("weekdays", "every weekday"), ("FREQ=MONTHLY;BYDAY=-1FR", "monthly on the last Fri"),
            ("FREQ=MONTHLY;BYDAY=1MO,-2FR", "monthly on the 1st Mon, the 2nd-to-last Fri"),
            ("FREQ=YEARLY;BYDAY=22TH", "yearly on the 22nd Thu"), ("FREQ=MONTHLY;BYDAY=TU", "monthly on every Tue"),
            ("FREQ=WEEKLY;COUNT=5", "weekly, 5 times"), ("FREQ=WEEKLY;COUNT=1", "weekly, once"),
            ("FREQ=DAILY;UNTIL=20261231", "daily until 2026-12-31"),
            ("FREQ=DAILY;UNTIL=20261231T235959Z", "daily until 2026-12-31 23:59:59 UTC"),
            ("every 2 weeks from completion", "every 2 weeks from completion"),
            ("FREQ=YEARLY;INTERVAL=11;BYDAY=11MO,13MO,-12MO", "every 11 years on the 11th Mon, the 13th Mon, the 12th-to-last Mon"),
            ("FREQ=MONTHLY;BYDAY=3WE;COUNT=2 from completion", "monthly on the 3rd Wed, 2 times from completion"),
            ("FREQ=DAILY;BYDAY=SA,SU", "daily on Sat, Sun"),
        ]
        for (words, summary) in table {
            #expect(try RepeatRule(words: words).summary == summary, "\(words)")
        }
    }

    /// One row of the next-occurrence table.
    struct Step {
        var rule: String
        var due: DueDate
        var completed: Date? = nil
        var occurrence = 1
        var calendar = PlanningFixture.utc
        var next: DueDate?
        var line: Int = #line
    }

    @Test func nextOccurrences() throws {
        let berlin = F.berlin
        let table: [Step] = [
            // Days and weeks (2026-03-10 is a Tuesday; weeks start on Monday).
            Step(rule: "daily", due: F.allDay(2026, 3, 10), next: F.allDay(2026, 3, 11)),
            Step(rule: "every 3 days", due: F.allDay(2026, 3, 10), next: F.allDay(2026, 3, 13)),
            Step(rule: "daily", due: F.at(2026, 3, 10, 9, 30), next: F.at(2026, 3, 11, 9, 30)),
            Step(rule: "weekly", due: F.allDay(2026, 3, 10), next: F.allDay(2026, 3, 17)),
            Step(rule: "every mon,wed,fri", due: F.allDay(2026, 3, 10), next: F.allDay(2026, 3, 11)),
            Step(rule: "every mon,wed,fri", due: F.allDay(2026, 3, 13), next: F.allDay(2026, 3, 16)),
            Step(rule: "every 2 weeks on mon,thu", due: F.allDay(2026, 3, 9), next: F.allDay(2026, 3, 12)),
            Step(rule: "every 2 weeks on mon,thu", due: F.allDay(2026, 3, 12), next: F.allDay(2026, 3, 23)),
            Step(rule: "every 2 weeks on mon", due: F.allDay(2026, 3, 15), next: F.allDay(2026, 3, 23)),
            Step(rule: "weekdays", due: F.at(2026, 3, 13, 8, 0), next: F.at(2026, 3, 16, 8, 0)),
            Step(rule: "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", due: F.allDay(2026, 3, 13), next: F.allDay(2026, 3, 16)),
            // Month ends are skipped, not clamped (RFC 5545).
            Step(rule: "monthly", due: F.allDay(2026, 1, 31), next: F.allDay(2026, 3, 31)),
            Step(rule: "monthly", due: F.allDay(2026, 3, 31), next: F.allDay(2026, 5, 31)),
            Step(rule: "monthly", due: F.allDay(2026, 1, 15), next: F.allDay(2026, 2, 15)),
            Step(rule: "every 2 months", due: F.allDay(2026, 12, 31), next: F.allDay(2027, 8, 31)),
            // Numbered weekdays of the month and year.
            Step(rule: "FREQ=MONTHLY;BYDAY=1MO", due: F.allDay(2026, 3, 2), next: F.allDay(2026, 4, 6)),
            Step(rule: "FREQ=MONTHLY;BYDAY=-1FR", due: F.allDay(2026, 3, 27), next: F.allDay(2026, 4, 24)),
            Step(rule: "FREQ=MONTHLY;BYDAY=5MO", due: F.allDay(2026, 3, 30), next: F.allDay(2026, 6, 29)),
            Step(rule: "FREQ=MONTHLY;BYDAY=1MO,-1FR", due: F.allDay(2026, 3, 2), next: F.allDay(2026, 3, 27)),
            Step(rule: "FREQ=MONTHLY;INTERVAL=3;BYDAY=2TU", due: F.allDay(2026, 3, 10), next: F.allDay(2026, 6, 9)),
            Step(rule: "FREQ=YEARLY;BYDAY=-1FR", due: F.allDay(2026, 12, 25), next: F.allDay(2027, 12, 31)),
            Step(rule: "FREQ=YEARLY;BYDAY=1MO", due: F.allDay(2026, 1, 5), next: F.allDay(2027, 1, 4)),
            // Years: February 29 waits for the next leap year.
            Step(rule: "yearly", due: F.allDay(2026, 3, 10), next: F.allDay(2027, 3, 10)),
            Step(rule: "yearly", due: F.allDay(2028, 2, 29), next: F.allDay(2032, 2, 29)),
            Step(rule: "every 2 years", due: F.allDay(2096, 2, 29), next: F.allDay(2104, 2, 29)),
            // COUNT and UNTIL end the series.
            Step(rule: "FREQ=DAILY;COUNT=3", due: F.allDay(2026, 3, 11), occurrence: 2, next: F.allDay(2026, 3, 12)),
            Step(rule: "FREQ=DAILY;COUNT=3", due: F.allDay(2026, 3, 12), occurrence: 3, next: nil),
            Step(rule: "FREQ=DAILY;COUNT=3", due: F.allDay(2026, 3, 12), occurrence: Int.max, next: nil),
            Step(rule: "FREQ=DAILY;UNTIL=20260311", due: F.allDay(2026, 3, 10), next: F.allDay(2026, 3, 11)),
            Step(rule: "FREQ=DAILY;UNTIL=20260311", due: F.allDay(2026, 3, 11), next: nil),
            Step(rule: "FREQ=DAILY;UNTIL=20260311T090000Z", due: F.at(2026, 3, 10, 9, 0), next: F.at(2026, 3, 11, 9, 0)),
            Step(rule: "FREQ=DAILY;UNTIL=20260311T090000Z", due: F.at(2026, 3, 10, 9, 1), next: nil),
            // From completion: done late, done early, a short month, the completion day in the calendar's zone.
            Step(rule: "every 3 days from completion", due: F.allDay(2026, 3, 10), completed: F.moment(2026, 3, 14, 15, 0),
                 next: F.allDay(2026, 3, 17)),
            Step(rule: "weekly from completion", due: F.at(2026, 3, 10, 9, 30), completed: F.moment(2026, 3, 6, 20, 0),
                 next: F.at(2026, 3, 13, 9, 30)),
            Step(rule: "monthly from completion", due: F.allDay(2026, 1, 15), completed: F.moment(2026, 1, 31, 10, 0),
                 next: F.allDay(2026, 2, 28)),
            Step(rule: "every mon,thu from completion", due: F.allDay(2026, 3, 9), completed: F.moment(2026, 3, 13, 10, 0),
                 next: F.allDay(2026, 3, 16)),
            Step(rule: "daily from completion", due: F.allDay(2026, 3, 10, in: berlin), completed: F.moment(2026, 3, 10, 23, 30),
                 calendar: berlin, next: F.allDay(2026, 3, 12, in: berlin)),
            // The wall-clock time stays across the clock changes in Berlin.
            Step(rule: "daily", due: F.at(2026, 3, 28, 9, 0, in: berlin), calendar: berlin, next: F.at(2026, 3, 29, 9, 0, in: berlin)),
            Step(rule: "weekly", due: F.at(2026, 10, 20, 18, 0, in: berlin), calendar: berlin, next: F.at(2026, 10, 27, 18, 0, in: berlin)),
            Step(rule: "daily", due: F.allDay(2026, 3, 28, in: berlin), calendar: berlin, next: F.allDay(2026, 3, 29, in: berlin)),
            Step(rule: "daily", due: F.at(2026, 3, 28, 2, 30, in: berlin), calendar: berlin,
                 next: DueDate(F.moment(2026, 3, 29, 1, 30), allDay: false)),
            // Rules that never match again end instead of looping.
            Step(rule: "FREQ=DAILY;INTERVAL=7;BYDAY=MO", due: F.allDay(2026, 3, 10), next: nil),
            Step(rule: "monthly", due: F.allDay(9999, 12, 15), next: nil),
            Step(rule: "daily", due: DueDate(Date(timeIntervalSince1970: .nan), allDay: true), next: nil),
        ]
        #expect(table.count >= 25)
        for step in table {
            let rule = try RepeatRule(words: step.rule)
            let next = rule.next(after: step.due, completedAt: step.completed ?? step.due.date, occurrence: step.occurrence, calendar: step.calendar)
            #expect(next == step.next, "\(step.rule) after \(step.due.text(in: step.calendar))",
                    sourceLocation: SourceLocation(fileID: #fileID, filePath: #filePath, line: step.line, column: 1))
        }
        // Checks of the Berlin rows in UTC, so they do not lean on the calendar they test.
        #expect(F.at(2026, 3, 29, 9, 0, in: berlin).date == F.moment(2026, 3, 29, 7, 0))
        #expect(F.at(2026, 10, 27, 18, 0, in: berlin).date == F.moment(2026, 10, 27, 17, 0))
    }

    @Test func hostileRulesNeverCrashAndNextStaysAhead() {
        let alphabet = [
            "FREQ=", "DAILY", "WEEKLY", "MONTHLY", "YEARLY", ";", "INTERVAL=", "BYDAY=", "COUNT=", "UNTIL=", "1", "7", "-1", "5", "53",
            "MO", "FR", ",", "20261231", "T235959Z", "=", "every ", "2 ", "weeks", " on ", "mon", "fri", " from completion", "\u{0}",
            "é", "RRULE:",
        ]
        let parts = [
            ";INTERVAL=2", ";INTERVAL=1000", ";INTERVAL=7", ";BYDAY=MO,FR", ";BYDAY=-1FR", ";BYDAY=5MO", ";BYDAY=53SU", ";BYDAY=SA",
            ";COUNT=3", ";UNTIL=20261231", ";BYHOUR=1", " from completion",
        ]
        var noise = PlanningNoise(state: 11)
        var rules = 0
        for _ in 0..<3000 {
            let text =
                noise.below(2) == 0
                ? noise.text(from: alphabet, pieces: 8)
                : "FREQ=" + ["DAILY", "WEEKLY", "MONTHLY", "YEARLY"][noise.below(4)] + noise.text(from: parts, pieces: 3)
            guard let rule = try? RepeatRule(words: text) else { continue }
            rules += 1
            #expect((try? RepeatRule(words: rule.text)) == rule, "\(text)")
            let due = F.allDay(2000 + noise.below(100), 1 + noise.below(12), 1 + noise.below(28))
            if let next = rule.next(after: due, completedAt: due.date, occurrence: 1, calendar: F.berlin), rule.from == .due {
                #expect(next > due, "\(text)")
            }
        }
        #expect(rules > 300)
    }
}
