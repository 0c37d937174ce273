import CloudServer
import Foundation
import ProcessTestSupport
import Testing

/// Export to the real Taskwarrior, edit and complete there, export back and import: the repeats and the series'
/// next occurrences survive. Runs `task` when it is on PATH (Debian's taskwarrior 2.6), else prints a skip line.
@Suite("Taskwarrior round trip on the command line", .serialized)
struct TaskwarriorRoundTripTests {
    static let zone = "America/New_York"

    func todo(_ stage: E2EStage, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: ["TZ": Self.zone])
    }

    /// `task ARGUMENTS` on its own data in `directory`, in the test's zone.
    func task(_ path: String, _ directory: URL, _ arguments: [String]) async throws -> ChildProcess.Result {
        let rc = directory.appendingPathComponent("taskrc")
        if !FileManager.default.fileExists(atPath: rc.path) {
            let data = directory.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            try "data.location=\(data.path)\nconfirmation=off\nverbose=nothing\n".write(to: rc, atomically: true, encoding: .utf8)
        }
        return try await ChildProcess.run(path, arguments, environment: ["TASKRC": rc.path, "TZ": Self.zone], timeout: .seconds(60))
    }

    /// The objects of a JSON array.
    func objects(_ data: Data) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    @Test func repeatsAndTheNextOccurrenceSurviveEditsAndCompletionsInTaskwarrior() async throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/task" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            print("TaskwarriorRoundTripTests: skipped: `task` is not on PATH (apt-get install taskwarrior runs it).")
            return
        }
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        // A rule Taskwarrior cannot say (every other week on Tue and Thu), an all-day weekly one across the US DST
        // change of 2030-03-10, and a timed daily one.
        let bins = try await todo(stage, ["add", "Bins", "--due", "2030-01-08", "--repeat", "every 2 weeks on tue,thu"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await todo(stage, ["add", "Water", "--due", "2030-03-07", "--repeat", "weekly"])
        _ = try await todo(stage, ["add", "Call", "--due", "2030-03-07 09:00", "--repeat", "daily"])
        let file = stage.directory.appendingPathComponent("out.json")
        let export = try await todo(stage, ["export", "--offline", "--format", "taskwarrior", "--output", file.path])
        #expect(export.status == 0 && export.errors.contains("travels in cloudtodo_repeat"), "\(export.errors)")
        #expect(!export.errors.contains("left out"), "\(export.errors)")

        let taskDir = stage.directory.appendingPathComponent("taskwarrior")
        try FileManager.default.createDirectory(at: taskDir, withIntermediateDirectories: true)
        let imported = try await task(path, taskDir, ["import", file.path])
        #expect(imported.status == 0, "\(imported.errors)")
        let inTask = try objects(try await task(path, taskDir, ["export"]).stdout)
        func uuid(_ title: String, status: String = "pending") throws -> String {
            try #require(inTask.first { $0["description"] as? String == title && $0["status"] as? String == status }?["uuid"] as? String)
        }
        // Taskwarrior holds a template for each series it can repeat, and its first instance.
        #expect(inTask.filter { $0["status"] as? String == "recurring" }.count == 2, "\(inTask)")
        #expect(try await task(path, taskDir, [try uuid("Bins"), "done"]).status == 0)
        #expect(try await task(path, taskDir, [try uuid("Water"), "done"]).status == 0)
        #expect(try await task(path, taskDir, [try uuid("Call"), "modify", "priority:H"]).status == 0)
        // Taskwarrior makes the Water series' next instance itself when allowed two ahead.
        _ = try await task(path, taskDir, ["rc.recurrence.limit=2", "list"])
        let back = stage.directory.appendingPathComponent("back.json")
        let exported = try await task(path, taskDir, ["export"])
        try exported.stdout.write(to: back)

        let reimport = try await todo(stage, ["import", back.path, "--quiet"])
        #expect(reimport.status == 0, "\(reimport.errors)")
        // Bins and the first Water done, Call changed; Taskwarrior's next Water is new here (the second Call is not
        // kept: one open occurrence per series).
        #expect(reimport.output.contains("added 1, updated 3, unchanged 0"), "\(reimport.output) \(reimport.errors)")
        let listed = try await todo(stage, ["list", "--offline", "--json", "is:open"])
        let rows = try objects(listed.stdout)
        let nextBins = try #require(rows.first { $0["title"] as? String == "Bins" }, "\(rows)")
        #expect(nextBins["repeat"] as? String == "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH" && nextBins["dueDate"] as? String == "2030-01-10", "\(nextBins)")
        #expect(nextBins["occurrence"] as? Int == 2 && (nextBins["series"] as? String)?.hasSuffix(bins) == true, "\(nextBins)")
        let water = try #require(rows.first { $0["title"] as? String == "Water" }, "\(rows)")
        #expect(water["repeat"] as? String == "FREQ=WEEKLY" && water["dueDate"] as? String == "2030-03-14" && water["allDay"] as? Bool == true, "\(water)")
        #expect(water["occurrence"] as? Int == 2, "\(water)")
        let call = try #require(rows.first { $0["title"] as? String == "Call" }, "\(rows)")
        #expect(call["repeat"] as? String == "FREQ=DAILY" && call["priority"] as? Int == 3 && call["dueDate"] as? String == "2030-03-07T09:00:00-05:00", "\(call)")
        // The same file again changes nothing.
        let again = try await todo(stage, ["import", back.path, "--quiet"])
        #expect(again.output.contains("added 0, updated 0, unchanged 4"), "\(again.output) \(again.errors)")
        // The series go on here: completing Water's second occurrence makes the third, a week on.
        let waterID = try #require(water["id"] as? String)
        #expect(try await todo(stage, ["done", waterID]).status == 0)
        let after = try objects(try await todo(stage, ["list", "--offline", "--json", "is:open", "Water"]).stdout)
        #expect(after.first?["dueDate"] as? String == "2030-03-21" && after.first?["occurrence"] as? Int == 3, "\(after)")
        await stage.server.shutdown()
    }
}
