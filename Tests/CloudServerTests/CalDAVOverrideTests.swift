import CloudModel
@testable import CloudServer
import Foundation
import TestSupport
import Testing

/// RECURRENCE-ID overrides, as Thunderbird sends them when an occurrence of a repeating todo is ticked off.
@Suite struct CalDAVOverrideTests {
    /// A calendar of a repeating todo and overrides of it (each given as its property lines, after the UID).
    func series(_ uid: String, _ overrides: [[String]], master: Bool = true) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"]
        if master {
            lines += ["BEGIN:VTODO", "UID:\(uid)", "DTSTAMP:20261101T100000Z", "SUMMARY:Bins out", "DUE:20261201T090000Z", "RRULE:FREQ=WEEKLY", "END:VTODO"]
        }
        for override in overrides { lines += ["BEGIN:VTODO", "UID:\(uid)", "DTSTAMP:20261101T100000Z"] + override + ["END:VTODO"] }
        return (lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    @Test func anOverrideOfTheCurrentOccurrenceIsAppliedAndCompletingItMakesTheNext() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("tess")
            let made = try await cloud.putTodo(login, "bins", series("bins", []))
            #expect(made.status == 201)
            let done = series("bins", [["RECURRENCE-ID:20261201T090000Z", "SUMMARY:Bins out (both)", "STATUS:COMPLETED", "COMPLETED:20261201T080000Z"]])
            #expect(try await cloud.putTodo(login, "bins", done, headers: ["If-Match": try #require(made.etag)]).status == 204)
            let lines = icsLines(try await cloud.getTodo(login, "bins").text)
            #expect(lines.contains("STATUS:COMPLETED"))
            #expect(lines.contains("SUMMARY:Bins out (both)"))
            #expect(lines.contains("RRULE:FREQ=WEEKLY"))
            #expect(!lines.contains { $0.hasPrefix("RECURRENCE-ID") })
            let next = icsLines(try await cloud.getTodo(login, "bins-2").text)
            #expect(next.contains("DUE:20261208T090000Z"))
            #expect(next.contains("STATUS:NEEDS-ACTION"))
        }
    }

    @Test func anOverrideOfAnotherOccurrenceOrWithoutItsSeriesIsRefusedAndChangesNothing() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("uma")
            #expect(try await cloud.putTodo(login, "bins", series("bins", [])).status == 201)
            let before = try await cloud.getTodo(login, "bins")
            let later = series("bins", [["RECURRENCE-ID:20261215T090000Z", "STATUS:COMPLETED"]])
            let refused = try await cloud.putTodo(login, "bins", later)
            #expect(refused.status == 403)
            #expect(refused.text.contains("valid-calendar-object-resource"))
            #expect(refused.text.contains("current one"))
            let alone = try await cloud.putTodo(login, "bins", series("bins", [["RECURRENCE-ID:20261201T090000Z", "STATUS:COMPLETED"]], master: false))
            #expect(alone.status == 403)
            let other = series("bins", [["UID:someone-else", "RECURRENCE-ID:20261201T090000Z"]]).replacingOccurrences(of: "UID:bins\r\nDTSTAMP:20261101T100000Z\r\nUID:someone-else", with: "UID:someone-else\r\nDTSTAMP:20261101T100000Z")
            #expect(try await cloud.putTodo(login, "bins", other).status == 403)
            let after = try await cloud.getTodo(login, "bins")
            #expect(after.etag == before.etag)
            #expect(try await cloud.getTodo(login, "bins-2").status == 404)
        }
    }
}
