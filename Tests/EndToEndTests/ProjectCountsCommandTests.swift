import CloudServer
import Foundation
import ProcessTestSupport
import Testing

/// `todo projects`, `todo tags` and `todo summary` through the real binary: one counting rule, so their open counts
/// agree with each other and with what the real Taskwarrior 2.6 prints for the same todos.
@Suite("Project and tag counts on the command line", .serialized)
struct ProjectCountsCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: ["TZ": "UTC", "COLUMNS": "80", "NO_COLOR": ""])
    }

    /// The output's lines with their runs of spaces made one, empty lines left out.
    func words(_ result: TodoCommandLine.Result) -> [String] {
        result.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    }

    /// A small day's worth: a waiting todo in a nested list, a parent list holding only a done todo, tags on both.
    func addTodos(_ stage: E2EStage) async throws {
        for arguments in [
            ["add", "Rake leaves", "--project", "Home.Garden", "--tag", "garden"],
            ["add", "Repot the fern", "--project", "Home.Garden", "--wait", "in 3 days", "--tag", "indoor"],
            ["add", "Call mum", "--tag", "phone", "--tag", "indoor"],
        ] {
            let added = try await todo(stage, arguments)
            #expect(added.status == 0, "\(added.errors)")
        }
        for arguments in [["add", "Paint the fence", "--project", "Home", "--tag", "garden"], ["add", "Old report", "--project", "Work.Reports"]] {
            let added = try await todo(stage, arguments)
            #expect(try await todo(stage, ["done", added.output.trimmingCharacters(in: .whitespacesAndNewlines)]).status == 0)
        }
    }

    @Test func projectsTagsAndSummaryCountWaitingTodosAndRollChildrenUp() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        try await addTodos(stage)

        // Home has no open todo of its own; it counts Home.Garden's two, the waiting one included. Work, all done,
        // is left out, as Taskwarrior leaves it out.
        let projects = try await todo(stage, ["projects"])
        #expect(projects.status == 0, "\(projects.errors)")
        #expect(words(projects) == ["Project Open", "Home 2", "Garden 2", "(none) 1", "2 projects, 3 open"], "\(projects.output)")
        #expect(projects.output.split(separator: "\n")[2].hasPrefix("  Garden"), "\(projects.output)")

        let summary = try await todo(stage, ["summary", "--offline"])
        #expect(words(summary).prefix(4) == ["Project Open Done Done% 0% 100%", "Home 2 1 33% ######..............", "Garden 2 0 0% ....................", "(none) 1 0 0% ...................."], "\(summary.output)")
        #expect(summary.output.hasSuffix("2 projects, 3 open, 1 done\n"), "\(summary.output)")
        // --all shows the projects with nothing open too.
        let all = try await todo(stage, ["summary", "--offline", "--all"])
        #expect(words(all).contains("Work 0 1 100% ####################") && words(all).contains("Reports 0 1 100% ####################"), "\(all.output)")

        // The waiting todo's tag counts; the done todo's do not.
        let tags = try await todo(stage, ["tags", "--offline"])
        #expect(words(tags) == ["Tag Open", "garden 1", "indoor 2", "phone 1"], "\(tags.output)")

        // Filter terms narrow all three alike.
        #expect(words(try await todo(stage, ["projects", "--offline", "+garden"])) == ["Project Open", "Home 1", "Garden 1", "2 projects, 1 open"])
        #expect(words(try await todo(stage, ["tags", "--offline", "project:Home"])) == ["Tag Open", "garden 1", "indoor 1"])
        let unknown = try await todo(stage, ["projects", "--offlin"])
        #expect(unknown.status != 0 && unknown.errors.contains("did you mean '--offline'"), "\(unknown.errors)")
        await stage.server.shutdown()
    }

    @Test func aContextNarrowsProjectsAndTagsAsItDoesTheSummary() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        try await addTodos(stage)
        let config = stage.directory.appendingPathComponent("devices/config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[view]\ncontext = \"home\"\n[filters]\nhome = \"project:Home\"\n".write(to: config, atomically: true, encoding: .utf8)
        let projects = try await todo(stage, ["projects", "--offline"])
        #expect(words(projects) == ["Project Open", "Home 2", "Garden 2", "2 projects, 2 open"], "\(projects.output)")
        #expect(projects.errors.contains("Context 'home' in effect"), "\(projects.errors)")
        #expect(words(try await todo(stage, ["tags", "--offline"])) == ["Tag Open", "garden 1", "indoor 1"])
        await stage.server.shutdown()
    }

    /// The same todos exported to the real Taskwarrior: `task projects` and `task tags` print the same counts.
    @Test func theCountsAreTaskwarriorsCounts() async throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/task" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            print("ProjectCountsCommandTests: skipped: `task` is not on PATH (apt-get install taskwarrior runs it).")
            return
        }
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        try await addTodos(stage)
        let file = stage.directory.appendingPathComponent("out.json")
        #expect(try await todo(stage, ["export", "--offline", "--format", "taskwarrior", "--output", file.path]).status == 0)
        let taskDir = stage.directory.appendingPathComponent("taskwarrior")
        let data = taskDir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let rc = taskDir.appendingPathComponent("taskrc")
        try "data.location=\(data.path)\nconfirmation=off\nverbose=nothing\n".write(to: rc, atomically: true, encoding: .utf8)
        func task(_ arguments: [String]) async throws -> [String] {
            let result = try await ChildProcess.run(path, arguments, environment: ["TASKRC": rc.path, "TZ": "UTC"], timeout: .seconds(60))
            #expect(result.status == 0, "\(result.errors)")
            return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        }
        _ = try await task(["import", file.path])

        // Each counted row as "name count" (the nesting's indent dropped): the order differs (Taskwarrior puts
        // (none) first), the rows do not.
        func rows(_ lines: [String], header: String) -> Set<String> {
            Set(lines.filter { !$0.hasPrefix(header) && !$0.hasPrefix("-") && !$0.contains(" projects") && !$0.contains(" project,") })
        }
        let ours = rows(words(try await todo(stage, ["projects", "--offline"])), header: "Project")
        #expect(ours == rows(try await task(["projects"]), header: "Project"), "\(ours)")
        let ourTags = Set(words(try await todo(stage, ["tags", "--offline"])).dropFirst().map { $0.lowercased() })
        #expect(ourTags == rows(try await task(["tags"]), header: "Tag"), "\(ourTags)")
        await stage.server.shutdown()
    }
}
