import CloudModel
@testable import CloudServer
import Foundation
import TestSupport
import Testing

/// Lists as calendar collections: listing, MKCALENDAR, PROPPATCH, DELETE, and read-only shares.
@Suite struct CalDAVCollectionTests {
    static let listProps = """
        <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:ic="http://apple.com/ns/ical/">\
        <d:prop><d:resourcetype/><d:displayname/><ic:calendar-color/><c:supported-calendar-component-set/><cs:getctag/><d:sync-token/>\
        <d:current-user-privilege-set/></d:prop></d:propfind>
        """

    @Test func mkcalendarMakesAListProppatchRenamesItAndDeleteDeletesItWithItsTodos() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("alice")
            let make = """
                <c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:ic="http://apple.com/ns/ical/"><d:set><d:prop>\
                <d:displayname>Groceries</d:displayname><ic:calendar-color>#FF0000</ic:calendar-color>\
                <c:supported-calendar-component-set><c:comp name="VTODO"/></c:supported-calendar-component-set></d:prop></d:set></c:mkcalendar>
                """
            #expect(try await cloud.dav("MKCALENDAR", "/dav/calendars/alice/groceries/", make, login: login).status == 201)
            #expect(try await cloud.dav("MKCALENDAR", "/dav/calendars/alice/groceries/", make, login: login).status == 405)
            let home = try await cloud.dav("PROPFIND", "/dav/calendars/alice/", Self.listProps, login: login, headers: ["Depth": "1"])
            #expect(home.status == 207)
            #expect(home.hrefs.contains("/dav/calendars/alice/todos/"))
            #expect(home.hrefs.contains("/dav/calendars/alice/groceries/"))
            #expect(home.text.contains("<d:displayname>Groceries</d:displayname>"))
            #expect(home.text.contains("<ic:calendar-color>#FF0000</ic:calendar-color>"))
            #expect(home.text.contains("<c:comp name=\"VTODO\"/>"))
            #expect(home.text.contains("<d:privilege><d:write/></d:privilege>"))
            #expect(try await cloud.putTodo(login, collection: "groceries", "milk", vtodo("milk", ["SUMMARY:Milk"])).status == 201)
            let lookup: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["milk", "groceries"], zoneID: todos), token: login.device.token)
            #expect(lookup.records[0].record?.parent?.recordName == "groceries")
            #expect(lookup.records[1].record?.recordType == "TodoList")
            let rename = #"<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>Shopping</d:displayname></d:prop></d:set></d:propertyupdate>"#
            let renamed = try await cloud.dav("PROPPATCH", "/dav/calendars/alice/groceries/", rename, login: login)
            #expect(renamed.status == 207)
            #expect(renamed.text.contains("200 OK"))
            let after: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["groceries"], zoneID: todos), token: login.device.token)
            #expect(after.records[0].record?.fields?["title"] == .string("Shopping"))
            #expect(try await cloud.dav("DELETE", "/dav/calendars/alice/todos/", login: login).status == 403)
            #expect(try await cloud.dav("DELETE", "/dav/calendars/alice/groceries/", login: login).status == 204)
            let gone: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["milk", "groceries"], zoneID: todos), token: login.device.token)
            #expect(gone.records.allSatisfy { $0.error != nil })
        }
    }

    @Test func aReadOnlyShareSaysSoAndRefusesWrites() async throws {
        try await withCloud { cloud in
            let owner = try await cloud.davLogin("olivia")
            let reader = try await cloud.davLogin("rita")
            let writer = try await cloud.davLogin("walt")
            #expect(try await cloud.dav("MKCALENDAR", "/dav/calendars/olivia/family/", nil, login: owner).status == 201)
            #expect(try await cloud.putTodo(owner, collection: "family", "bread", vtodo("bread", ["SUMMARY:Bread"])).status == 201)
            let share = ModifySharesRequest(operations: [
                .init(.save, zoneID: todos, rootRecordName: "family", participants: [.init(account: "rita", permission: .readOnly), .init(account: "walt", permission: .readWrite)])
            ])
            let shared: SharesResponse = try await cloud.post(.private, "shares/modify", share, token: owner.device.token)
            let shareName = try #require(shared.shares.first?.share?.shareRecordName)
            for participant in [reader, writer] {
                let accept = ShareReferenceRequest(shares: [ShareReference(shareRecordName: shareName, zoneID: ZoneID(zoneName: "Todos", ownerRecordName: owner.device.user))])
                let _: SharesResponse = try await cloud.post(.shared, "shares/accept", accept, token: participant.device.token)
            }
            let collection = "shared~\(owner.device.user)~family"
            let home = try await cloud.dav("PROPFIND", "/dav/calendars/rita/", Self.listProps, login: reader, headers: ["Depth": "1"])
            #expect(home.hrefs.contains("/dav/calendars/rita/\(collection)/"))
            let readOnly = try await cloud.dav("PROPFIND", "/dav/calendars/rita/\(collection)/", Self.listProps, login: reader, headers: ["Depth": "0"])
            #expect(readOnly.text.contains("<d:privilege><d:read/></d:privilege>"))
            #expect(!readOnly.text.contains("<d:write/>"))
            #expect(try await cloud.getTodo(reader, collection: collection, "bread").status == 200)
            // The owner's other todos never show in a participant's sync, not even as names.
            let before = try await cloud.syncCollection(reader, collection: collection, token: "")
            let token = try #require(before.matches("<d:sync-token>", "</d:sync-token>").first)
            #expect(try await cloud.putTodo(owner, "private-thing", vtodo("private-thing", ["SUMMARY:Mine alone"])).status == 201)
            #expect(try await cloud.putTodo(owner, collection: "family", "eggs", vtodo("eggs", ["SUMMARY:Eggs"])).status == 201)
            let after = try await cloud.syncCollection(reader, collection: collection, token: token)
            #expect(after.hrefs == ["/dav/calendars/rita/\(collection)/eggs.ics"])
            #expect(try await cloud.putTodo(reader, collection: collection, "jam", vtodo("jam", ["SUMMARY:Jam"])).status == 403)
            #expect(try await cloud.dav("DELETE", "/dav/calendars/rita/\(collection)/bread.ics", login: reader).status == 403)
            #expect(try await cloud.putTodo(writer, collection: collection, "jam", vtodo("jam", ["SUMMARY:Jam"])).status == 201)
            #expect(try await cloud.getTodo(owner, collection: "family", "jam").status == 200)
        }
    }
}

/// `calendar-color` in every form clients send, and Apple's `calendar-order`.
@Suite struct CalDAVColorTests {
    static let props = """
        <d:propfind xmlns:d="DAV:" xmlns:ic="http://apple.com/ns/ical/"><d:prop><ic:calendar-color/><ic:calendar-order/></d:prop></d:propfind>
        """

    @Test func colourNamesAndHexWithOrWithoutAlphaAreStoredAndOrderComesBack() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("pat")
            let make = """
                <c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:ic="http://apple.com/ns/ical/"><d:set><d:prop>\
                <d:displayname>Garden</d:displayname><ic:calendar-color>ForestGreen</ic:calendar-color><ic:calendar-order>3</ic:calendar-order>\
                </d:prop></d:set></c:mkcalendar>
                """
            #expect(try await cloud.dav("MKCALENDAR", "/dav/calendars/pat/garden/", make, login: login).status == 201)
            func shown() async throws -> (color: String?, order: String?) {
                let answer = try await cloud.dav("PROPFIND", "/dav/calendars/pat/garden/", Self.props, login: login, headers: ["Depth": "0"])
                return (answer.matches("<ic:calendar-color>", "</ic:calendar-color>").first, answer.matches("<ic:calendar-order>", "</ic:calendar-order>").first)
            }
            #expect(try await shown().color == "#228B22")
            #expect(try await shown().order == "3")
            func patch(_ color: String, order: String = "7") async throws -> DAVAnswer {
                let body = """
                    <d:propertyupdate xmlns:d="DAV:" xmlns:ic="http://apple.com/ns/ical/"><d:set><d:prop>\
                    <ic:calendar-color>\(color)</ic:calendar-color><ic:calendar-order>\(order)</ic:calendar-order></d:prop></d:set></d:propertyupdate>
                    """
                return try await cloud.dav("PROPPATCH", "/dav/calendars/pat/garden/", body, login: login)
            }
            for (sent, stored) in [("#ff2968ff", "#FF2968FF"), ("#1badf8", "#1BADF8"), ("#abc", "#AABBCC"), ("rebeccapurple", "#663399")] {
                let answer = try await patch(sent)
                #expect(answer.text.contains("200 OK"))
                #expect(try await shown().color == stored)
                #expect(try await shown().order == "7")
            }
            // No colour, or no number: refused, and nothing changes.
            for (color, order) in [("not-a-colour", "1"), ("#12345", "1"), ("red", "first")] {
                let answer = try await patch(color, order: order)
                #expect(answer.text.contains("403 Forbidden"))
                // The refused property 403, the other one 424: it failed because its sibling did (RFC 4918 §9.2).
                let (refused, dependent) = order == "first" ? ("ic:calendar-order", "ic:calendar-color") : ("ic:calendar-color", "ic:calendar-order")
                #expect(
                    answer.text.contains(
                        "<d:response><d:href>/dav/calendars/pat/garden/</d:href><d:propstat><d:prop><\(refused)/></d:prop><d:status>HTTP/1.1 403 Forbidden</d:status></d:propstat>"
                            + "<d:propstat><d:prop><\(dependent)/></d:prop><d:status>HTTP/1.1 424 Failed Dependency</d:status></d:propstat></d:response>"),
                    "\(answer.text)")
                #expect(try await shown().color == "#663399")
                #expect(try await shown().order == "7")
            }
            // A list without an order has none to give.
            #expect(try await cloud.dav("MKCALENDAR", "/dav/calendars/pat/plain/", nil, login: login).status == 201)
            let plain = try await cloud.dav("PROPFIND", "/dav/calendars/pat/plain/", Self.props, login: login, headers: ["Depth": "0"])
            #expect(plain.text.contains("<ic:calendar-order/>"))
            #expect(plain.text.contains("404 Not Found"))
        }
    }
}
