import CloudModel
@testable import CloudServer
import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// Real CalDAV clients against the real cloud: the python `caldav` library, and vdirsyncer syncing a collection both
/// ways while todoman edits the local side. Each is skipped, with a line saying why, where it is not installed
/// (`pip install caldav vdirsyncer todoman`).
@Suite struct CalDAVRealClientTests {
    /// Whether `python3 -c CODE` succeeds; prints why the test is skipped when it does not.
    static func available(_ what: String, check: [String]) async -> Bool {
        let result = try? await ChildProcess.run("/usr/bin/env", check, timeout: .seconds(60))
        if result?.status == 0 { return true }
        print("CalDAVRealClientTests: skipped \(what): not installed (pip install \(what))")
        return false
    }

    static let pythonClient = #"""
        import sys, datetime, caldav
        url, user, password = sys.argv[1:4]
        principal = caldav.DAVClient(url=url, username=user, password=password).principal()
        assert [str(c.url).rstrip("/").split("/")[-1] for c in principal.calendars()] == ["todos"], principal.calendars()
        cal = principal.make_calendar(name="Errands", cal_id="errands", supported_calendar_component_set=["VTODO"])
        todo = cal.save_todo(summary="Buy bread", due=datetime.date(2026, 12, 24), categories=["shop"], uid="py-1")
        cal.save_todo(summary="Post letter", uid="py-2")
        assert sorted(str(t.icalendar_component["summary"]) for t in cal.todos()) == ["Buy bread", "Post letter"]
        assert [str(t.icalendar_component["summary"]) for t in cal.search(todo=True, summary="bread")] == ["Buy bread"]
        todo.complete()
        assert [str(t.icalendar_component["summary"]) for t in cal.todos()] == ["Post letter"]
        assert len(cal.todos(include_completed=True)) == 2
        todo.delete()
        assert len(cal.todos(include_completed=True)) == 1
        print("ok")
        """#

    @Test func thePythonCaldavLibraryDiscoversCreatesQueriesCompletesAndDeletes() async throws {
        guard await Self.available("caldav", check: ["python3", "-c", "import caldav"]) else { return }
        try await withCloud { cloud in
            let login = try await cloud.davLogin("alice")
            let script = ScratchDirectory.path("caldav-client").appendingPathComponent("client.py")
            try FileManager.default.createDirectory(at: script.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.pythonClient.write(to: script, atomically: true, encoding: .utf8)
            let result = try await ChildProcess.run("/usr/bin/env", ["python3", script.path, cloud.server.baseURL.absoluteString + "/", "alice", login.password])
            #expect(result.status == 0, "\(result.output)\(result.errors)")
            #expect(result.output.contains("ok"))
            // What the library did is what the account holds: the list, and the open todo in it.
            let lookup: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["errands", "py-2", "py-1"], zoneID: todos), token: login.device.token)
            #expect(lookup.records[0].record?.recordType == "TodoList")
            #expect(lookup.records[1].record?.parent?.recordName == "errands")
            #expect(lookup.records[2].record?.fields?["isTrashed"] == .int64(1))
        }
    }

    @Test func vdirsyncerSyncsACollectionBothWaysWhileTodomanEditsTheLocalSide() async throws {
        guard await Self.available("vdirsyncer", check: ["vdirsyncer", "--version"]),
            await Self.available("todoman", check: ["python3", "-c", "import todoman"])
        else { return }
        try await withCloud { cloud in
            let login = try await cloud.davLogin("bob")
            let directory = ScratchDirectory.path("vdirsyncer")
            let local = directory.appendingPathComponent("lists/todos")
            try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
            let config = directory.appendingPathComponent("config")
            try """
                [general]
                status_path = "\(directory.path)/status/"
                [pair todos]
                a = "local"
                b = "remote"
                collections = null
                conflict_resolution = "b wins"
                [storage local]
                type = "filesystem"
                path = "\(local.path)/"
                fileext = ".ics"
                [storage remote]
                type = "caldav"
                url = "\(cloud.server.baseURL.absoluteString)/dav/calendars/bob/todos/"
                username = "bob"
                password = "\(login.password)"
                """.write(to: config, atomically: true, encoding: .utf8)
            let todomanConfig = try TodomanConfig.write(
                to: directory.appendingPathComponent("tmconfig.py"), calendars: "\(directory.path)/lists/*", defaultList: "todos")
            func vdirsyncer(_ arguments: [String]) async throws {
                let result = try await ChildProcess.run("/bin/sh", ["-c", "yes | vdirsyncer -c '\(config.path)' " + arguments.joined(separator: " ")])
                #expect(result.status == 0, "\(arguments): \(result.output)\(result.errors)")
            }
            func todoman(_ arguments: [String]) async throws -> String {
                let result = try await ChildProcess.run(
                    "/usr/bin/env", ["python3", "-c", "import sys; from todoman.cli import cli; sys.argv[0] = 'todo'; cli()"] + arguments,
                    environment: ["TODOMAN_CONFIG": todomanConfig.path])
                #expect(result.status == 0, "\(arguments): \(result.output)\(result.errors)")
                return result.output
            }
            #expect(try await cloud.putTodo(login, "from-cloud", vtodo("from-cloud", ["SUMMARY:Made in the cloud"])).status == 201)
            try await vdirsyncer(["discover", "todos"])
            try await vdirsyncer(["sync"])
            #expect(FileManager.default.fileExists(atPath: local.appendingPathComponent("from-cloud.ics").path))
            #expect(try await todoman(["list"]).contains("Made in the cloud"))
            _ = try await todoman(["new", "-l", "todos", "Made in todoman"])
            // todoman numbers todos in its own cache's order: take the cloud's todo's number from its JSON listing.
            let listing = try JSONSerialization.jsonObject(with: Data(try await todoman(["--porcelain", "list"]).utf8)) as? [[String: Any]]
            let number = try #require(listing?.first { $0["summary"] as? String == "Made in the cloud" }?["id"] as? Int)
            _ = try await todoman(["done", String(number)])
            try await vdirsyncer(["sync"])
            let synced = try await cloud.syncCollection(login, token: "", data: true)
            #expect(synced.text.contains("SUMMARY:Made in todoman"))
            let cloudTodo = icsLines(try await cloud.getTodo(login, "from-cloud").text)
            #expect(cloudTodo.contains("STATUS:COMPLETED"))
            // An edit in the cloud comes back down.
            let current = try await cloud.getTodo(login, "from-cloud")
            let renamed = vtodo("from-cloud", ["SUMMARY:Renamed in the cloud"])
            #expect(try await cloud.putTodo(login, "from-cloud", renamed, headers: ["If-Match": try #require(current.etag)]).status == 204)
            try await vdirsyncer(["sync"])
            #expect(try await todoman(["list", "--status", "ANY"]).contains("Renamed in the cloud"))
        }
    }
}
