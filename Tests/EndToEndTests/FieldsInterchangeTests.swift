import CloudServer
import Foundation
import ProcessTestSupport
import Testing

/// Wait, scheduled, until, start, depends and the project survive Taskwarrior JSON (through the real `task` 2.6 when
/// it is on PATH) and iCalendar, both ways.
@Suite("Issue 27 fields in interchange", .serialized)
struct FieldsInterchangeTests {
    func todo(_ stage: E2EStage, _ arguments: [String], account: String = "alice") async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run(account, arguments, device: "laptop", environment: ["TZ": "UTC"])
    }

    func objects(_ data: Data) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    /// Adds a blocker and a todo with every new field; returns their IDs.
    func seed(_ stage: E2EStage) async throws -> (blocker: String, todo: String) {
        let blocker = try await todo(stage, ["add", "Buy seeds"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let sow = try await todo(stage, [
            "add", "Sow carrots", "--project", "Home.Garden", "--wait", "2031-03-20 08:00", "--scheduled", "2031-03-25 09:00",
            "--until", "2031-05-01 12:00", "--depends", blocker,
        ]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await todo(stage, ["start", sow]).status == 0)
        return (blocker, sow)
    }

    /// The fields of the imported todo as `list --json` gives them.
    func checkImported(_ stage: E2EStage, account: String) async throws {
        let rows = try objects(try await todo(stage, ["list", "--all", "--json", "--offline"], account: account).stdout)
        let sow = try #require(rows.first { $0["title"] as? String == "Sow carrots" }, "\(rows)")
        let seeds = try #require(rows.first { $0["title"] as? String == "Buy seeds" })
        #expect(sow["wait"] as? String == "2031-03-20T08:00:00Z" && sow["scheduled"] as? String == "2031-03-25T09:00:00Z", "\(sow)")
        #expect(sow["until"] as? String == "2031-05-01T12:00:00Z" && sow["start"] is String, "\(sow)")
        #expect(sow["depends"] as? [String] == [seeds["id"] as? String ?? "?"], "\(sow)")
        #expect(sow["project"] as? String == "Home.Garden", "\(sow)")
    }

    @Test func taskwarriorJSONBothWaysThroughTheRealTask() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let (blocker, _) = try await seed(stage)
        let file = stage.directory.appendingPathComponent("out.json")
        #expect(try await todo(stage, ["export", "--offline", "--format", "taskwarrior", "--output", file.path]).status == 0)
        var tasks = try objects(try Data(contentsOf: file))
        let exported = try #require(tasks.first { $0["description"] as? String == "Sow carrots" })
        let seedsUUID = try #require(tasks.first { $0["description"] as? String == "Buy seeds" }?["uuid"] as? String)
        #expect(exported["wait"] as? String == "20310320T080000Z" && exported["scheduled"] as? String == "20310325T090000Z", "\(exported)")
        #expect(exported["until"] as? String == "20310501T120000Z" && exported["start"] is String, "\(exported)")
        #expect(exported["depends"] as? [String] == [seedsUUID] && exported["project"] as? String == "Home.Garden", "\(exported)")
        #expect(seedsUUID.hasSuffix(blocker))

        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/task" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        var back = file
        if let path {
            let directory = stage.directory.appendingPathComponent("task")
            let data = directory.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let rc = directory.appendingPathComponent("taskrc")
            try "data.location=\(data.path)\nconfirmation=off\nverbose=nothing\n".write(to: rc, atomically: true, encoding: .utf8)
            let environment = ["TASKRC": rc.path, "TZ": "UTC"]
            let imported = try await ChildProcess.run(path, ["import", file.path], environment: environment, timeout: .seconds(60))
            #expect(imported.status == 0, "\(String(decoding: imported.stderr, as: UTF8.self))")
            let again = try await ChildProcess.run(path, ["export"], environment: environment, timeout: .seconds(60))
            tasks = try objects(again.stdout)
            let inTask = try #require(tasks.first { $0["description"] as? String == "Sow carrots" })
            #expect(inTask["status"] as? String == "waiting" || inTask["status"] as? String == "pending", "\(inTask)")
            #expect(inTask["scheduled"] as? String == "20310325T090000Z" && inTask["until"] as? String == "20310501T120000Z", "\(inTask)")
            let depends = (inTask["depends"] as? [String]) ?? (inTask["depends"] as? String).map { [$0] } ?? []
            #expect(depends == [seedsUUID], "\(inTask)")
            back = stage.directory.appendingPathComponent("back.json")
            try again.stdout.write(to: back)
        } else {
            print("FieldsInterchangeTests: the real task is not on PATH; the file is imported as exported.")
        }
        let reimport = try await todo(stage, ["import", back.path, "--quiet"], account: "bob")
        #expect(reimport.status == 0, "\(reimport.errors)")
        try await checkImported(stage, account: "bob")
        await stage.server.shutdown()
    }

    @Test func iCalendarBothWays() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let (blocker, _) = try await seed(stage)
        let file = stage.directory.appendingPathComponent("out.ics")
        #expect(try await todo(stage, ["export", "--offline", "--format", "ics", "--output", file.path]).status == 0)
        let text = try String(contentsOf: file, encoding: .utf8)
        for line in ["DTSTART:20310325T090000Z", "X-CLOUDTODO-WAIT:20310320T080000Z", "X-CLOUDTODO-UNTIL:20310501T120000Z", "X-CLOUDTODO-START:"] {
            #expect(text.contains(line), "\(line) in \(text)")
        }
        #expect(text.contains("RELATED-TO;RELTYPE=DEPENDS-ON:") && text.contains(blocker), "\(text)")
        let imported = try await todo(stage, ["import", file.path, "--quiet"], account: "bob")
        #expect(imported.status == 0, "\(imported.errors)")
        try await checkImported(stage, account: "bob")
        await stage.server.shutdown()
    }
}
