import CloudModel
@testable import CloudServer
import Foundation
import TestSupport
import Testing

/// Hostile and broken CalDAV input gets a clear 4xx and changes nothing.
@Suite struct CalDAVBadInputTests {
    static let billionLaughs = """
        <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\
        <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>\
        <d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&lol4;</d:displayname></d:prop></d:propfind>
        """
    static let externalEntity = """
        <?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop><d:x>&xxe;</d:x></d:prop></d:propfind>
        """

    @Test(arguments: [
        ("malformed", "<d:propfind xmlns:d=\"DAV:\"><d:prop>"), ("billion laughs", billionLaughs), ("external entity", externalEntity),
        ("not WebDAV", "<html/>"), ("deep", String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)),
    ])
    func badXMLIsRefusedWithA400(what: String, body: String) async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("alice")
            let answer = try await cloud.dav("PROPFIND", "/dav/calendars/alice/", body, login: login, headers: ["Depth": "1"])
            #expect(answer.status == 400, "\(what)")
            #expect(!answer.text.contains("root:"), "\(what)")
            let report = try await cloud.dav("REPORT", "/dav/calendars/alice/todos/", body, login: login)
            #expect(report.status == (what == "not WebDAV" ? 403 : 400), "\(what)")
            let mkcalendar = try await cloud.dav("MKCALENDAR", "/dav/calendars/alice/new/", body, login: login)
            #expect(mkcalendar.status == 400, "\(what)")
            #expect(try await cloud.dav("PROPFIND", "/dav/calendars/alice/new/", nil, login: login, headers: ["Depth": "0"]).status == 404)
        }
    }

    @Test func invalidCalendarsAndEventsAreRefusedAndNothingIsWritten() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("bob")
            let event = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:e1", "DTSTART:20261201T100000Z", "SUMMARY:Meeting", "END:VEVENT", "END:VCALENDAR"].joined(separator: "\r\n")
            let cases: [(String, String, Int)] = [
                ("a VEVENT", event, 403),
                ("not iCalendar", "hello", 400),
                ("unclosed", "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:x\r\nSUMMARY:x\r\n", 400),
                ("no UID", vtodo("", ["SUMMARY:No uid"]).replacingOccurrences(of: "UID:\r\n", with: ""), 400),
                ("a bad DUE", vtodo("d", ["SUMMARY:Bad due", "DUE:tomorrow"]), 400),
                ("two VTODOs", vtodo("t", ["SUMMARY:One"]).replacingOccurrences(of: "END:VCALENDAR", with: "BEGIN:VTODO\r\nUID:t2\r\nEND:VTODO\r\nEND:VCALENDAR"), 403),
                ("too large", vtodo("big", ["SUMMARY:Big", "DESCRIPTION:" + String(repeating: "x", count: 300_000)]), 413),
            ]
            for (what, body, status) in cases {
                let answer = try await cloud.putTodo(login, "bad", body)
                #expect(answer.status == status, "\(what): \(answer.text)")
                #expect(answer.text.contains("responsedescription"), "\(what)")
            }
            let wrongType = try await cloud.dav("PUT", "/dav/calendars/bob/todos/bad.ics", vtodo("bad", ["SUMMARY:x"]), login: login, contentType: "application/json")
            #expect(wrongType.status == 415)
            let sync = try await cloud.syncCollection(login, token: "")
            #expect(sync.hrefs.isEmpty)
            // A body over the cloud's request limit is refused before it is read.
            let huge = String(repeating: "x", count: CloudLimits.maxRequestBytes + 1)
            let over = try await cloud.dav("PUT", "/dav/calendars/bob/todos/huge.ics", huge, login: login, contentType: "text/calendar")
            #expect(over.status == 400)
        }
    }
}
