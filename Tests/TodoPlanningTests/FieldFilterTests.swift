import Foundation
import Testing
import TodoPlanning

/// A todo with issue 27's fields, as a filter sees it.
private struct Planned: Filterable {
    var title = ""
    var notes = ""
    var tags: [String] = []
    var listName: String?
    var due: DueDate?
    var priority = 0
    var isCompleted = false
    var isRepeating = false
    var wait: Date?
    var scheduled: Date?
    var until: Date?
    var start: Date?
    var isBlocked = false
    var isBlocking = false
}

private let utc: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    return calendar
}()

/// Thursday 2026-03-12 10:00 UTC.
private let now = Date(timeIntervalSince1970: 1_773_309_600)

private func parse(_ text: String) throws -> TodoFilter {
    try TodoFilter.parse(text, now: now, calendar: utc) { text in
        switch text {
        case "today": DueDate.day(now, in: utc)
        case "tomorrow": DueDate.day(now.addingTimeInterval(86_400), in: utc)
        default: nil
        }
    }
}

@Suite("Filter terms of wait, scheduled, until, start, depends and project")
struct FieldFilterTests {
    @Test func stateTerms() throws {
        let waiting = Planned(wait: now.addingTimeInterval(3_600))
        let waited = Planned(wait: now.addingTimeInterval(-3_600))
        #expect(try parse("is:waiting").matches(waiting) && !(try parse("is:waiting").matches(waited)))
        #expect(try parse("is:scheduled").matches(Planned(scheduled: now)) && !(try parse("is:scheduled").matches(Planned())))
        #expect(try parse("is:active").matches(Planned(start: now)) && !(try parse("is:active").matches(Planned())))
        #expect(try parse("is:blocked").matches(Planned(isBlocked: true)) && !(try parse("is:blocking").matches(Planned(isBlocked: true))))
        #expect(try parse("is:blocking").matches(Planned(isBlocking: true)))
    }

    @Test func momentTermsReadDatesAsDueDoes() throws {
        let tomorrowNoon = Planned(scheduled: now.addingTimeInterval(26 * 3_600))
        #expect(try parse("scheduled:tomorrow").matches(tomorrowNoon))
        #expect(try parse("scheduled.after:today").matches(tomorrowNoon))
        #expect(!(try parse("scheduled.before:tomorrow").matches(tomorrowNoon)))
        #expect(try parse("scheduled.by:tomorrow").matches(tomorrowNoon))
        #expect(try parse("until:none").matches(Planned()) && !(try parse("until:any").matches(Planned())))
        #expect(try parse("wait.before:tomorrow").matches(Planned(wait: now)))
        #expect(try parse("wait.before:tomorrow until:none scheduled:any").summary == "wait.before:tomorrow until:none scheduled:any")
        #expect(throws: FilterError.unknownFilter("wait.soon:")) { try parse("wait.soon:today") }
        #expect(throws: FilterError.notADate(key: "until.after:", term: "until.after:someday")) { try parse("until.after:someday") }
    }

    @Test func projectMatchesThePathAndBelow() throws {
        let filter = try parse("project:Home")
        #expect(filter.matches(Planned(listName: "Home")) && filter.matches(Planned(listName: "home.Garden")))
        #expect(!filter.matches(Planned(listName: "Homework")) && !filter.matches(Planned()))
        #expect(try parse("project:none").matches(Planned()) && !(try parse("project:none").matches(Planned(listName: "Home"))))
        #expect(try parse("project:\"Home Office.Desk\"").matches(Planned(listName: "home office.desk.drawer")))
    }
}
