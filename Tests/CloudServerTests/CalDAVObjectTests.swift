import CloudModel
@testable import CloudServer
import Foundation
import TestSupport
import Testing

/// Todos as VTODO resources: GET, PUT, DELETE, ETags and preconditions, what is kept, and how fields map.
@Suite struct CalDAVObjectTests {
    @Test func aClientsVTodoComesBackWithWhatTheProductDoesNotModelAndItsUID() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("alice")
            let alarm = ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER;RELATED=END:-PT15M", "X-WR-ALARMUID:1", "END:VALARM"]
            let ics = vtodo("Client-UID-1@phone", [
                "SUMMARY;X-FOO=bar:Buy milk", "DUE;VALUE=DATE:20261203", "X-APPLE-SORT-ORDER:42", "ATTACH:https://example.org/list.pdf",
                "RELATED-TO;RELTYPE=PARENT:parent-uid", "CATEGORIES:shop,home", "PRIORITY:1", "SEQUENCE:3",
            ], extraComponents: alarm)
            let put = try await cloud.putTodo(login, "milk", ics, headers: ["If-None-Match": "*"])
            #expect(put.status == 201)
            let etag = try #require(put.etag)
            let got = try await cloud.getTodo(login, "milk")
            #expect(got.status == 200)
            #expect(got.etag == etag)
            let lines = icsLines(got.text)
            for kept in ["UID:Client-UID-1@phone", "SUMMARY;X-FOO=bar:Buy milk", "DUE;VALUE=DATE:20261203", "X-APPLE-SORT-ORDER:42",
                "ATTACH:https://example.org/list.pdf", "RELATED-TO;RELTYPE=PARENT:parent-uid", "CATEGORIES:shop,home", "PRIORITY:1", "SEQUENCE:3"]
                + alarm
            {
                #expect(lines.contains(kept), "\(kept)")
            }
            // The record holds the todo's fields, as import would have made them.
            let zone = try #require(try await cloud.server.store.read { try await $0.zone(DatabaseKey(container: "iCloud.dev.cloudtodo/development", scope: .private, owner: login.device.user), name: "Todos") })
            let row = try #require(try await cloud.server.store.read { try await $0.record(zonePK: zone.pk, name: "milk") })
            let fields = try row.decodedFields()
            #expect(fields["title"] == .string("Buy milk"))
            #expect(fields["priority"] == .int64(3))
            #expect(fields["tags"] == .list(.string, [.string("shop"), .string("home")]))
            #expect(fields["allDay"] == .int64(1))
        }
    }

    @Test func anEditOnADeviceIsWhatGetGivesAndKeptPropertiesStay() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("bob")
            let ics = vtodo("u-2", ["SUMMARY:Old title", "X-KEEP:me", "DUE:20261203T150000Z"], extraComponents: ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M", "END:VALARM"])
            let put = try await cloud.putTodo(login, "u-2", ics)
            #expect(put.status == 201)
            // A device renames it through the CloudKit surface.
            let lookup: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["u-2"], zoneID: todos), token: login.device.token)
            var record = try #require(lookup.records.first?.record)
            record.fields?["title"] = .string("New title")
            let saved = try await cloud.modify(login.device, [RecordOperation(.update, record)])
            #expect(saved.first?.record != nil)
            let got = try await cloud.getTodo(login, "u-2")
            #expect(got.etag != put.etag)
            let lines = icsLines(got.text)
            #expect(lines.contains("SUMMARY:New title"))
            #expect(!lines.contains("SUMMARY:Old title"))
            #expect(lines.contains("X-KEEP:me"))
            #expect(lines.contains("DUE:20261203T150000Z"))
            #expect(lines.contains("BEGIN:VALARM"))
            // A write from the stale ETag is refused; the current one is taken.
            let stale = try await cloud.putTodo(login, "u-2", vtodo("u-2", ["SUMMARY:From the phone"]), headers: ["If-Match": try #require(put.etag)])
            #expect(stale.status == 412)
            let fresh = try await cloud.putTodo(login, "u-2", vtodo("u-2", ["SUMMARY:From the phone"]), headers: ["If-Match": try #require(got.etag)])
            #expect(fresh.status == 204)
            #expect(icsLines(try await cloud.getTodo(login, "u-2").text).contains("SUMMARY:From the phone"))
            #expect(try await cloud.putTodo(login, "u-2", vtodo("u-2", ["SUMMARY:x"]), headers: ["If-None-Match": "*"]).status == 412)
        }
    }

    @Test func fieldsMapBothWaysAsImportAndExportMapThem() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("carol")
            let ics = vtodo("u-3", [
                "SUMMARY:Water plants", "DESCRIPTION:Line one\\nline two", "DUE:20261205T090000Z", "DTSTART:20261204T090000Z",
                "RRULE:FREQ=WEEKLY;BYDAY=SA", "PRIORITY:5", "CATEGORIES:garden", "RELATED-TO;RELTYPE=DEPENDS-ON:u-other",
                "STATUS:NEEDS-ACTION",
            ])
            #expect(try await cloud.putTodo(login, "u-3", ics).status == 201)
            let lookup: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["u-3"], zoneID: todos), token: login.device.token)
            let fields = try #require(lookup.records.first?.record?.fields)
            #expect(fields["notes"] == .string("Line one\nline two"))
            #expect(fields["repeat"] == .string("FREQ=WEEKLY;BYDAY=SA"))
            #expect(fields["priority"] == .int64(2))
            #expect(fields["allDay"] == .int64(0))
            #expect(fields["depends"] == .list(.string, [.string("u-other")]))
            #expect(fields["scheduled"] != nil)
            #expect(fields["list"] == nil)
            // Completed through CalDAV: the occurrence is done and the next one is made, as on a device.
            let got = try await cloud.getTodo(login, "u-3")
            let done = ics.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED\r\nCOMPLETED:20261205T100000Z\r\nPERCENT-COMPLETE:100")
            #expect(try await cloud.putTodo(login, "u-3", done, headers: ["If-Match": try #require(got.etag)]).status == 204)
            let next = try await cloud.getTodo(login, "u-3-2")
            #expect(next.status == 200)
            let nextLines = icsLines(next.text)
            #expect(nextLines.contains("SUMMARY:Water plants"))
            #expect(nextLines.contains("DUE:20261212T090000Z"))
            #expect(nextLines.contains("STATUS:NEEDS-ACTION"))
            #expect(nextLines.contains("X-CLOUDTODO-SERIES:u-3"))
            let first = icsLines(try await cloud.getTodo(login, "u-3").text)
            #expect(first.contains("STATUS:COMPLETED"))
            #expect(first.contains("COMPLETED:20261205T100000Z"))
        }
    }

    @Test func deleteMovesATodoToTheTrashAndTheResourceIsGone() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("dave")
            let put = try await cloud.putTodo(login, "gone", vtodo("gone", ["SUMMARY:Soon gone"]))
            #expect(try await cloud.dav("DELETE", "/dav/calendars/dave/todos/gone.ics", login: login, headers: ["If-Match": "\"stale\""]).status == 412)
            #expect(try await cloud.dav("DELETE", "/dav/calendars/dave/todos/gone.ics", login: login, headers: ["If-Match": try #require(put.etag)]).status == 204)
            #expect(try await cloud.getTodo(login, "gone").status == 404)
            #expect(try await cloud.dav("DELETE", "/dav/calendars/dave/todos/gone.ics", login: login).status == 404)
            let lookup: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["gone"], zoneID: todos), token: login.device.token)
            #expect(lookup.records.first?.record?.fields?["isTrashed"] == .int64(1))
        }
    }
}
