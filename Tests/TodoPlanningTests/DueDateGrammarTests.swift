import Foundation
import Testing
import TodoPlanning

/// The one due-date grammar: days, weekday names, ends of periods, relative dates, times and ISO 8601 moments.
@Suite("Due date grammar")
struct DueDateGrammarTests {
    typealias F = PlanningFixture
    let grammar = DueDateGrammar(now: F.now, calendar: F.utc)

    /// Parses `text` with `grammar`, or records the error and gives nil.
    func read(_ grammar: DueDateGrammar, _ text: String) -> Result<DueDate?, DueDateError> {
        do throws(DueDateError) {
            return .success(try grammar.parse(text))
        } catch {
            return .failure(error)
        }
    }

    @Test func acceptedFormsInUTC() {
        // Fixture.now is Tuesday 2026-03-10 12:00 UTC.
        let table: [(String, DueDate?)] = [
            ("", nil), ("none", nil), (" None ", nil), ("\tnone\n", nil),
            ("today", F.allDay(2026, 3, 10)), ("Tomorrow", F.allDay(2026, 3, 11)), ("YESTERDAY", F.allDay(2026, 3, 9)),
            ("+3d", F.allDay(2026, 3, 13)), ("+0d", F.allDay(2026, 3, 10)), ("+2w", F.allDay(2026, 3, 24)),
            ("+1m", F.allDay(2026, 4, 10)), ("+12m", F.allDay(2027, 3, 10)), ("+1y", F.allDay(2027, 3, 10)),
            ("+100000d", F.allDay(2299, 12, 24)),
            ("-3d", F.allDay(2026, 3, 7)), ("-2w", F.allDay(2026, 2, 24)), ("-1m", F.allDay(2026, 2, 10)), ("-1y", F.allDay(2025, 3, 10)),
            ("2026-12-31", F.allDay(2026, 12, 31)), ("2028-02-29", F.allDay(2028, 2, 29)), ("0001-01-01", F.allDay(1, 1, 1)),
            ("mon", F.allDay(2026, 3, 16)), ("Monday", F.allDay(2026, 3, 16)), ("tue", F.allDay(2026, 3, 17)),
            ("tuesday", F.allDay(2026, 3, 17)), ("wed", F.allDay(2026, 3, 11)), ("thursday", F.allDay(2026, 3, 12)),
            ("fri", F.allDay(2026, 3, 13)), ("sat", F.allDay(2026, 3, 14)), ("SUN", F.allDay(2026, 3, 15)),
            ("eow", F.allDay(2026, 3, 15)), ("eom", F.allDay(2026, 3, 31)), ("EOY", F.allDay(2026, 12, 31)),
            ("17:00", F.at(2026, 3, 10, 17, 0)), ("9:30", F.at(2026, 3, 10, 9, 30)), ("09:05", F.at(2026, 3, 10, 9, 5)),
            ("0:00", F.at(2026, 3, 10, 0, 0)), ("23:59", F.at(2026, 3, 10, 23, 59)), ("9am", F.at(2026, 3, 10, 9, 0)),
            ("12am", F.at(2026, 3, 10, 0, 0)), ("12pm", F.at(2026, 3, 10, 12, 0)), ("5:30pm", F.at(2026, 3, 10, 17, 30)),
            ("11:59PM", F.at(2026, 3, 10, 23, 59)), ("1am", F.at(2026, 3, 10, 1, 0)),
            ("tomorrow 9am", F.at(2026, 3, 11, 9, 0)), ("fri 17:00", F.at(2026, 3, 13, 17, 0)),
            ("2026-05-01 09:30", F.at(2026, 5, 1, 9, 30)), ("+2w 8am", F.at(2026, 3, 24, 8, 0)), ("eom 23:59", F.at(2026, 3, 31, 23, 59)),
            ("  today   6pm  ", F.at(2026, 3, 10, 18, 0)), ("yesterday 12:15pm", F.at(2026, 3, 9, 12, 15)),
            ("2026-05-01T09:30:00Z", F.at(2026, 5, 1, 9, 30)), ("2026-05-01t11:30:00+02:00", F.at(2026, 5, 1, 9, 30)),
            ("2026-05-01T09:30:00.250Z", DueDate(F.moment(2026, 5, 1, 9, 30).addingTimeInterval(0.25), allDay: false)),
            ("2026-05-01T04:30:00-0500", F.at(2026, 5, 1, 9, 30)), ("2026-05-01T10:30:00+01", F.at(2026, 5, 1, 9, 30)),
        ]
        #expect(table.count >= 40)
        for (text, expected) in table {
            #expect(read(grammar, text) == .success(expected), "\(text)")
        }
    }

    @Test func endsOfPeriodsAndClampedMonthsFromOtherDays() {
        // Saturday 2026-01-31: a month end, the day before a Sunday.
        let saturday = DueDateGrammar(now: F.moment(2026, 1, 31, 8, 0), calendar: F.utc)
        #expect(read(saturday, "+1m") == .success(F.allDay(2026, 2, 28)))
        #expect(read(saturday, "+3m") == .success(F.allDay(2026, 4, 30)))
        #expect(read(saturday, "sat") == .success(F.allDay(2026, 2, 7)))
        #expect(read(saturday, "eow") == .success(F.allDay(2026, 2, 1)))
        // Sunday 2026-02-01: eow is today, sun a week on.
        let sunday = DueDateGrammar(now: F.moment(2026, 2, 1, 23, 0), calendar: F.utc)
        #expect(read(sunday, "eow") == .success(F.allDay(2026, 2, 1)))
        #expect(read(sunday, "sun") == .success(F.allDay(2026, 2, 8)))
        #expect(read(sunday, "eom") == .success(F.allDay(2026, 2, 28)))
        // Leap day: +1y clamps, eom is the 29th.
        let leap = DueDateGrammar(now: F.moment(2028, 2, 29, 12, 0), calendar: F.utc)
        #expect(read(leap, "+1y") == .success(F.allDay(2029, 2, 28)))
        #expect(read(leap, "+4y") == .success(F.allDay(2032, 2, 29)))
        #expect(read(leap, "eom") == .success(F.allDay(2028, 2, 29)))
        #expect(read(leap, "eoy") == .success(F.allDay(2028, 12, 31)))
    }

    @Test func daysAndTimesAreReadInTheCalendarsZone() {
        let berlin = DueDateGrammar(now: F.now, calendar: F.berlin)
        #expect(read(berlin, "today") == .success(DueDate(F.moment(2026, 3, 9, 23, 0), allDay: true)))
        #expect(read(berlin, "17:00") == .success(DueDate(F.moment(2026, 3, 10, 16, 0), allDay: false)))
        #expect(read(berlin, "+3w 9am") == .success(DueDate(F.moment(2026, 3, 31, 7, 0), allDay: false)))
        #expect(read(berlin, "2026-03-29") == .success(DueDate(F.moment(2026, 3, 28, 23, 0), allDay: true)))
        #expect(read(berlin, "2026-03-29 01:59") == .success(DueDate(F.moment(2026, 3, 29, 0, 59), allDay: false)))
        #expect(read(berlin, "2026-03-29 03:00") == .success(DueDate(F.moment(2026, 3, 29, 1, 0), allDay: false)))
        // 2:30 happens twice when the clocks go back: the first (summer time) one.
        #expect(read(berlin, "2026-10-25 2:30") == .success(DueDate(F.moment(2026, 10, 25, 0, 30), allDay: false)))
        #expect(read(berlin, "2026-05-01T09:30:00Z") == .success(F.at(2026, 5, 1, 9, 30)))
        // 23:30 UTC is already tomorrow in Berlin.
        let lateEvening = DueDateGrammar(now: F.moment(2026, 3, 10, 23, 30), calendar: F.berlin)
        #expect(read(lateEvening, "today") == .success(F.allDay(2026, 3, 11, in: F.berlin)))
        #expect(read(lateEvening, "wed") == .success(F.allDay(2026, 3, 18, in: F.berlin)))
        #expect(read(lateEvening, "8am") == .success(F.at(2026, 3, 11, 8, 0, in: F.berlin)))
    }

    @Test func refusalsSayWhy() {
        let table: [(String, String)] = [
            ("2026-02-30", "February 2026 has 28 days"), ("2026-13-01", "there is no month 13"),
            ("2027-02-29", "February 2027 has 28 days"), ("2026-04-31", "April 2026 has 30 days"),
            ("2026-00-10", "there is no month 0"), ("0000-01-01", "there is no year 0"),
            ("2026-02-30T10:00:00Z", "February 2026 has 28 days"),
            ("2026-05-01T25:00:00Z", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("2026-05-01T09:30:00", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("2026-05-01T09:00:00Z 9am", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("2026-05-01T09:30:00Z123", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("2026-05-01T24:00:00Z", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("2026-05-01T9:30:00Z", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("2026-05-01T09:30:00+02:00:00", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("2026-05-01T09:30:00.Z", "not an ISO 8601 time such as 2026-05-01T09:00:00Z"),
            ("25:00", "there is no hour 25"), ("24:00", "there is no hour 24"), ("tomorrow 25:00", "there is no hour 25"),
            ("17:61", "there is no minute 61"), ("fri 9:61", "there is no minute 61"), ("5:75pm", "there is no minute 75"),
            ("13pm", "13pm is not a time"), ("tomorrow 13PM", "13pm is not a time"), ("0am", "0am is not a time"),
            ("17:00pm", "17:00pm is not a time"), ("2026-02-30 9am", "February 2026 has 28 days"),
            ("+100001d", "at most +100000d"), ("+10001w", "at most +10000w"), ("+3001m", "at most +3000m"), ("+251y", "at most +250y"),
        ]
        for (text, problem) in table {
            #expect(read(grammar, text) == .failure(DueDateError(text: text, problem: problem)), "\(text)")
        }
    }

    @Test func aTimeTheClocksSkipIsRefused() {
        let berlin = DueDateGrammar(now: F.now, calendar: F.berlin)
        let gap = "2:30 does not exist on 2026-03-29 in Europe/Berlin (clocks go forward)"
        #expect(read(berlin, "2026-03-29 02:30") == .failure(DueDateError(text: "2026-03-29 02:30", problem: gap)))
        #expect(
            read(berlin, "2026-03-29 2am")
                == .failure(DueDateError(text: "2026-03-29 2am", problem: "2:00 does not exist on 2026-03-29 in Europe/Berlin (clocks go forward)")))
        let onTheDay = DueDateGrammar(now: F.moment(2026, 3, 29, 12, 0), calendar: F.berlin)
        #expect(
            read(onTheDay, "2:15")
                == .failure(DueDateError(text: "2:15", problem: "2:15 does not exist on 2026-03-29 in Europe/Berlin (clocks go forward)")))
        #expect(read(onTheDay, "sun 2:30") == .success(F.at(2026, 4, 5, 2, 30, in: F.berlin)))
    }

    @Test func textInNoFormIsRefusedWithTheListOfForms() {
        let texts = [
            "soon", "+d", "2026-2-1", "+-3d", "+3x", "--3d", "26-01-01", "２０２６-０１-０１", "tomorrow morning", "17",
            "9 am", "fri fri", "tomorrow 9:5", "17:00 tomorrow", "+3d+2d", "mon,wed", "t", "today\u{0}", "tues", "+１d",
            "none 9am", String(repeating: "today ", count: 2000),
        ]
        for text in texts {
            #expect(read(grammar, text) == .failure(DueDateError(text: text, problem: nil)), "\(text.prefix(30))")
        }
    }

    @Test func messagesSayWhatIsAccepted() {
        #expect(
            DueDateGrammar.accepted
                == "YYYY-MM-DD, today, tomorrow, yesterday, a weekday (mon…sun, monday…sunday), sod, eod, sow, eow, soww, eoww, som, eom, "
                + "soq, eoq, soy, eoy (sopw: the previous week's start, eonm: the next month's end, …), a month (dec, december), dec 24, "
                + "24 dec 2027, 15th, next fri, next week, later, +3d, +2w, +1m, +1y, -3d (3 days ago), in 3 days, 2 weeks ago, 17:00, 9am, "
                + "5:30pm, noon, a day then a time (fri 9am, tomorrow at 5pm), now, in 2 hours, none or an ISO 8601 time (2026-05-01T09:00:00Z)")
        #expect(DueDateGrammar.acceptedShort == "YYYY-MM-DD, today, tomorrow, +3d or 17:00")
        let unknown = DueDateError(text: "soon", problem: nil)
        #expect(unknown.description == "cannot read the due date 'soon'; use " + DueDateGrammar.accepted)
        #expect(unknown.formLine == "Due: use YYYY-MM-DD, today, tomorrow, +3d or 17:00.")
        let impossible = DueDateError(text: "2026-02-30", problem: "February 2026 has 28 days")
        #expect(impossible.description == "cannot read the due date '2026-02-30': February 2026 has 28 days; use " + DueDateGrammar.accepted)
        #expect(impossible.formLine == "Due: February 2026 has 28 days.")
        #expect(DueDateGrammar.formLine(for: "2026-02-30", now: F.now, calendar: F.utc) == "Due: February 2026 has 28 days.")
        #expect(DueDateGrammar.formLine(for: "25:00", now: F.now, calendar: F.utc) == "Due: there is no hour 25.")
        #expect(DueDateGrammar.formLine(for: "tomorrow 9am", now: F.now, calendar: F.utc) == "")
        #expect(DueDateGrammar.formLine(for: "", now: F.now, calendar: F.utc) == "")
    }

    @Test func messagesShowHostileTextSafely() {
        let escape = DueDateError(text: "a\u{1B}[2J\u{202E}b", problem: nil)
        #expect(escape.description.hasPrefix("cannot read the due date 'a\u{FFFD}[2J\u{FFFD}b'; use "))
        let long = DueDateError(text: String(repeating: "x", count: 10_000), problem: nil)
        #expect(long.description.hasPrefix("cannot read the due date '" + String(repeating: "x", count: 40) + "…'; use "))
    }

    @Test func hostileTextNeverCrashes() {
        let alphabet = [
            "2026", "-", "02", "29", "31", "t", "z", ":", "00", "99", "+", "d", "w", "m", "y", "am", "pm", "12", "25", " ", "today",
            "fri", "eow", "none", ".", "5", "\u{0}", "\u{1B}", "\u{202E}", "é", "👩‍👩‍👧", "\u{FFFD}", "９", "\n",
        ]
        var noise = PlanningNoise(state: 7)
        let berlin = DueDateGrammar(now: F.now, calendar: F.berlin)
        var accepted = 0
        for _ in 0..<3000 {
            let text = noise.text(from: alphabet, pieces: 6)
            if case .success = read(grammar, text) { accepted += 1 }
            _ = read(berlin, text)
            if case .failure(let error) = read(grammar, text) { #expect(!error.description.isEmpty) }
        }
        #expect(accepted > 0)
    }
}
