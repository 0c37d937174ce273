import CloudModel
@testable import CloudServer
import Foundation
import TestSupport
import Testing

/// Each list's collection has its own CTag and sync token: a change elsewhere leaves them, and the sync, as they were.
@Suite struct CalDAVSyncTokenTests {
    static let tagProps = """
        <d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><cs:getctag/><d:sync-token/></d:prop></d:propfind>
        """

    /// A collection's CTag and sync token, as PROPFIND gives them.
    func tags(_ cloud: TestCloud, _ login: DAVLogin, _ collection: String) async throws -> [String] {
        let answer = try await cloud.dav("PROPFIND", "/dav/calendars/\(login.account)/\(collection)/", Self.tagProps, login: login, headers: ["Depth": "0"])
        #expect(answer.status == 207)
        return answer.matches("<cs:getctag>", "</cs:getctag>") + answer.matches("<d:sync-token>", "</d:sync-token>")
    }

    func token(_ answer: DAVAnswer) throws -> String { try #require(answer.matches("<d:sync-token>", "</d:sync-token>").first) }

    /// A todo record as a device reads it.
    func record(_ cloud: TestCloud, _ login: DAVLogin, _ name: String) async throws -> Record {
        let lookup: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: [name], zoneID: todos), token: login.device.token)
        return try #require(lookup.records.first?.record)
    }

    @Test func aChangeInOneListLeavesAnotherListsTagsAndSyncAsTheyWere() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("alice")
            for list in ["work", "home"] { #expect(try await cloud.dav("MKCALENDAR", "/dav/calendars/alice/\(list)/", nil, login: login).status == 201) }
            #expect(try await cloud.putTodo(login, collection: "work", "w1", vtodo("w1", ["SUMMARY:Report"])).status == 201)
            for name in ["h1", "h2"] { #expect(try await cloud.putTodo(login, collection: "home", name, vtodo(name, ["SUMMARY:\(name)"])).status == 201) }
            #expect(try await cloud.putTodo(login, "loose", vtodo("loose", ["SUMMARY:Loose"])).status == 201)
            let home = try await tags(cloud, login, "home")
            let inbox = try await tags(cloud, login, "todos")
            let work = try await tags(cloud, login, "work")
            let homeToken = try token(try await cloud.syncCollection(login, collection: "home", token: ""))
            #expect(home == [homeToken, homeToken])
            let workToken = try token(try await cloud.syncCollection(login, collection: "work", token: ""))

            // Edits in work, through CalDAV and on a device, and a new todo there.
            #expect(try await cloud.putTodo(login, collection: "work", "w1", vtodo("w1", ["SUMMARY:Report, longer"])).status == 204)
            var w1 = try await record(cloud, login, "w1")
            w1.fields?["title"] = .string("Report, from the laptop")
            #expect(try await cloud.modify(login.device, [RecordOperation(.update, w1)]).first?.record != nil)
            #expect(try await cloud.putTodo(login, collection: "work", "w2", vtodo("w2", ["SUMMARY:Slides"])).status == 201)
            #expect(try await tags(cloud, login, "home") == home)
            #expect(try await tags(cloud, login, "todos") == inbox)
            #expect(try await tags(cloud, login, "work") != work)
            let quiet = try await cloud.syncCollection(login, collection: "home", token: homeToken)
            #expect(quiet.status == 207)
            #expect(quiet.hrefs.isEmpty)
            #expect(try token(quiet) == homeToken)
            // (A todo changed after the token that was in the list then may have left it: every todo changed
            // since is named, those not there as gone.)
            let busy = try await cloud.syncCollection(login, collection: "work", token: workToken)
            #expect(busy.matches("<d:href>", "</d:href><d:propstat>") == ["/dav/calendars/alice/work/w1.ics", "/dav/calendars/alice/work/w2.ics"])

            // A todo moved from home to work on a device: gone from home's next sync, new in work's.
            let workAfter = try token(busy)
            var h1 = try await record(cloud, login, "h1")
            h1.parent = ParentReference(recordName: "work")
            h1.fields?["list"] = .reference(Reference(recordName: "work", action: ReferenceAction.none))
            #expect(try await cloud.modify(login.device, [RecordOperation(.update, h1)]).first?.record != nil)
            #expect(try await tags(cloud, login, "home") != home)
            let moved = try await cloud.syncCollection(login, collection: "home", token: homeToken)
            #expect(moved.hrefs.contains("/dav/calendars/alice/home/h1.ics"))
            #expect(!moved.hrefs.contains("/dav/calendars/alice/home/h2.ics"))
            #expect(moved.text.contains("404 Not Found"))
            let arrived = try await cloud.syncCollection(login, collection: "work", token: workAfter)
            #expect(arrived.hrefs == ["/dav/calendars/alice/work/h1.ics"])
            #expect(arrived.text.contains("<d:getetag>"))

            // A delete on a device: the next sync of home says h2 is gone, and nothing is left to say after that.
            let homeAfter = try token(moved)
            #expect(try await cloud.modify(login.device, [RecordOperation(.forceDelete, Record(recordName: "h2", zoneID: todos))]).first?.error == nil)
            let deleted = try await cloud.syncCollection(login, collection: "home", token: homeAfter)
            #expect(deleted.hrefs.contains("/dav/calendars/alice/home/h2.ics"))
            #expect(deleted.matches("<d:href>", "</d:href><d:propstat>").isEmpty)
            let settled = try await cloud.syncCollection(login, collection: "home", token: try token(deleted))
            #expect(settled.hrefs.isEmpty)
            #expect(try await tags(cloud, login, "todos") == inbox)

            // Todos only added to a list since its token: the sync names just those, whatever changed elsewhere.
            let before = try token(settled)
            #expect(try await cloud.putTodo(login, collection: "work", "w3", vtodo("w3", ["SUMMARY:Budget"])).status == 201)
            #expect(try await cloud.putTodo(login, collection: "home", "h3", vtodo("h3", ["SUMMARY:Plants"])).status == 201)
            #expect(try await cloud.putTodo(login, collection: "work", "w4", vtodo("w4", ["SUMMARY:Travel"])).status == 201)
            let added = try await cloud.syncCollection(login, collection: "home", token: before)
            #expect(added.hrefs == ["/dav/calendars/alice/home/h3.ics"])
            #expect(!added.text.contains("404 Not Found"))
        }
    }

    @Test func tokensOfTheFormerZoneWideFormStillSync() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("bob")
            #expect(try await cloud.putTodo(login, "a", vtodo("a", ["SUMMARY:A"])).status == 201)
            let first = try await cloud.syncCollection(login, token: "")
            let parts = try token(first).split(separator: "/").last!.split(separator: "-")
            #expect(parts.count == 3)
            #expect(try await cloud.putTodo(login, "b", vtodo("b", ["SUMMARY:B"])).status == 201)
            let old = try await cloud.syncCollection(login, token: "http://cloudtodo.dev/ns/sync/\(parts[0])-\(parts[1])")
            #expect(old.status == 207)
            #expect(old.hrefs == ["/dav/calendars/bob/todos/b.ics"])
        }
    }
}
