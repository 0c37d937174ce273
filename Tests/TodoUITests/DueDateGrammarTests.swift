import Foundation
import Terminal
import Testing
import TodoUI

/// The one date grammar of the app and the command line.
@Suite("Due date grammar")
struct DueDateGrammarTests {
    let grammar = DueDateGrammar(now: Fixture.now, calendar: Fixture.utc)

    @Test func acceptsWhatBothParsersAcceptedBefore() throws {
        #expect(try grammar.parse("") == nil)
        #expect(try grammar.parse("none") == nil)
        #expect(try grammar.parse(" None ") == nil)
        #expect(try grammar.parse("today") == Fixture.day(2026, 3, 10))
        #expect(try grammar.parse("Tomorrow") == Fixture.day(2026, 3, 11))
        #expect(try grammar.parse("+3d") == Fixture.day(2026, 3, 13))
        #expect(try grammar.parse("+0d") == Fixture.day(2026, 3, 10))
        #expect(try grammar.parse("+2w") == Fixture.day(2026, 3, 24))
        #expect(try grammar.parse("2026-12-31") == Fixture.day(2026, 12, 31))
        #expect(try grammar.parse("2028-02-29") == Fixture.day(2028, 2, 29))
        #expect(try grammar.parse("2026-05-01T09:30:00Z") == Fixture.utc.date(from: DateComponents(year: 2026, month: 5, day: 1, hour: 9, minute: 30)))
        #expect(try grammar.parse("2026-05-01T09:30:00.250Z") != nil)
    }

    @Test func refusesImpossibleDatesSayingWhy() {
        #expect(throws: DueDateError(text: "2026-02-30", problem: "February 2026 has 28 days")) { try grammar.parse("2026-02-30") }
        #expect(throws: DueDateError(text: "2026-13-01", problem: "there is no month 13")) { try grammar.parse("2026-13-01") }
        #expect(throws: DueDateError(text: "2027-02-29", problem: "February 2027 has 28 days")) { try grammar.parse("2027-02-29") }
        #expect(throws: DueDateError(text: "2026-04-31", problem: "April 2026 has 30 days")) { try grammar.parse("2026-04-31") }
        #expect(throws: DueDateError(text: "2026-00-10", problem: "there is no month 0")) { try grammar.parse("2026-00-10") }
        #expect(throws: DueDateError(text: "2026-02-30T10:00:00Z", problem: "February 2026 has 28 days")) {
            try grammar.parse("2026-02-30T10:00:00Z")
        }
        for text in ["soon", "+d", "2026-2-1", "+-3d", "+3x", "26-01-01", "２０２６-０１-０１", "+100001d"] {
            #expect(throws: DueDateError.self, "\(text)") { try grammar.parse(text) }
        }
    }

    @Test func messagesSayWhatIsAccepted() {
        let unknown = DueDateError(text: "soon", problem: nil)
        #expect(unknown.description == "cannot read the due date 'soon'; use " + DueDateGrammar.accepted)
        #expect(DueDateGrammar.accepted.hasPrefix("YYYY-MM-DD, today, tomorrow, +3d, +2w, none or an ISO 8601 time"))
        #expect(unknown.formLine == "Due: use YYYY-MM-DD, today, tomorrow or +3d.")
        #expect(DueDateError(text: "2026-02-30", problem: "February 2026 has 28 days").formLine == "Due: February 2026 has 28 days.")
    }

    @MainActor
    @Test func theEditFormSaysWhyADateIsImpossible() {
        let (session, terminal) = makeSession()
        press(session, .char("a"))
        type(session, "Plan")
        press(session, .tab, .tab)
        type(session, "2026-02-30")
        #expect(press(session, .enter) == [])
        #expect(terminal.lastScreen?.lines[10] == " Due: February 2026 has 28 days.")
    }
}
