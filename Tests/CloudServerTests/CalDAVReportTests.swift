import CloudModel
@testable import CloudServer
import Foundation
import TestSupport
import Testing

/// REPORTs: calendar-multiget, calendar-query and sync-collection; PROPFIND of a collection's members.
@Suite struct CalDAVReportTests {
    @Test func syncCollectionFollowsTheChangeFeedAndAnUnchangedCollectionAnswersNothing() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("alice")
            for name in ["a", "b", "c"] { #expect(try await cloud.putTodo(login, name, vtodo(name, ["SUMMARY:Todo \(name)"])).status == 201) }
            let first = try await cloud.syncCollection(login, token: "", data: true)
            #expect(first.status == 207)
            #expect(Set(first.hrefs) == ["/dav/calendars/alice/todos/a.ics", "/dav/calendars/alice/todos/b.ics", "/dav/calendars/alice/todos/c.ics"])
            #expect(first.text.contains("SUMMARY:Todo b"))
            let token = try #require(first.matches("<d:sync-token>", "</d:sync-token>").first)
            let unchanged = try await cloud.syncCollection(login, token: token)
            #expect(unchanged.hrefs.isEmpty)
            #expect(unchanged.matches("<d:sync-token>", "</d:sync-token>").first == token)
            // A change and a deletion are what the next sync reports.
            let b = try await cloud.getTodo(login, "b")
            #expect(try await cloud.putTodo(login, "b", vtodo("b", ["SUMMARY:Todo b, changed"]), headers: ["If-Match": try #require(b.etag)]).status == 204)
            #expect(try await cloud.dav("DELETE", "/dav/calendars/alice/todos/c.ics", login: login).status == 204)
            let next = try await cloud.syncCollection(login, token: token)
            #expect(next.hrefs == ["/dav/calendars/alice/todos/b.ics", "/dav/calendars/alice/todos/c.ics"])
            #expect(next.text.contains("404 Not Found"))
            #expect(next.matches("<d:sync-token>", "</d:sync-token>").first != token)
            let bad = try await cloud.syncCollection(login, token: "http://cloudtodo.dev/ns/sync/999-1")
            #expect(bad.status == 403)
            #expect(bad.text.contains("valid-sync-token"))
        }
    }

    @Test func multigetAnswersTheHrefsAskedAndSaysWhichAreMissing() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("bob")
            #expect(try await cloud.putTodo(login, "x", vtodo("x", ["SUMMARY:Ex"])).status == 201)
            let body = """
                <c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>\
                <d:href>/dav/calendars/bob/todos/x.ics</d:href><d:href>/dav/calendars/bob/todos/missing.ics</d:href></c:calendar-multiget>
                """
            let answer = try await cloud.dav("REPORT", "/dav/calendars/bob/todos/", body, login: login, headers: ["Depth": "1"])
            #expect(answer.status == 207)
            #expect(answer.hrefs == ["/dav/calendars/bob/todos/x.ics", "/dav/calendars/bob/todos/missing.ics"])
            #expect(answer.text.contains("SUMMARY:Ex"))
            #expect(answer.text.contains("<d:status>HTTP/1.1 404 Not Found</d:status>"))
            let members = try await cloud.dav("PROPFIND", "/dav/calendars/bob/todos/", #"<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>"#, login: login, headers: ["Depth": "1"])
            #expect(members.hrefs == ["/dav/calendars/bob/todos/", "/dav/calendars/bob/todos/x.ics"])
        }
    }

    @Test func calendarQueryFiltersByCompletionDueRangeAndText() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("carol")
            #expect(try await cloud.putTodo(login, "open", vtodo("open", ["SUMMARY:Call the plumber", "DUE:20261210T100000Z", "CATEGORIES:home"])).status == 201)
            #expect(try await cloud.putTodo(login, "done", vtodo("done", ["SUMMARY:Pay rent", "STATUS:COMPLETED", "COMPLETED:20261101T100000Z"])).status == 201)
            #expect(try await cloud.putTodo(login, "later", vtodo("later", ["SUMMARY:Plan holiday", "DUE;VALUE=DATE:20270301", "CATEGORIES:fun"])).status == 201)
            func query(_ inner: String) async throws -> Set<String> {
                let body = """
                    <c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter>\
                    <c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO">\(inner)</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>
                    """
                let answer = try await cloud.dav("REPORT", "/dav/calendars/carol/todos/", body, login: login, headers: ["Depth": "1"])
                #expect(answer.status == 207)
                return Set(answer.hrefs.map { String($0.split(separator: "/").last!.dropLast(4)) })
            }
            #expect(try await query("") == ["open", "done", "later"])
            #expect(try await query(#"<c:prop-filter name="COMPLETED"><c:is-not-defined/></c:prop-filter>"#) == ["open", "later"])
            #expect(try await query(#"<c:time-range start="20261201T000000Z" end="20261231T000000Z"/>"#) == ["open", "done"])
            #expect(try await query(#"<c:prop-filter name="SUMMARY"><c:text-match collation="i;ascii-casemap">PLUMBER</c:text-match></c:prop-filter>"#) == ["open"])
            #expect(try await query(#"<c:prop-filter name="CATEGORIES"><c:text-match>fun</c:text-match></c:prop-filter>"#) == ["later"])
            #expect(try await query(#"<c:prop-filter name="SUMMARY"><c:text-match negate-condition="yes">plumber</c:text-match></c:prop-filter>"#) == ["done", "later"])
            let events = """
                <c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter>\
                <c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>
                """
            #expect(try await cloud.dav("REPORT", "/dav/calendars/carol/todos/", events, login: login).hrefs.isEmpty)
        }
    }
}
