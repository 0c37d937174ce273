import CloudServer
import Foundation
import Testing

/// `todo summary` through the real binary: per project (list path), parents counting their children.
@Suite("todo summary", .serialized)
struct SummaryCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: ["TZ": "UTC", "COLUMNS": "80", "NO_COLOR": ""])
    }

    func add(_ stage: E2EStage, _ title: String, list: String? = nil, done: Bool = false) async throws {
        let added = try await todo(stage, ["add", title] + (list.map { ["--list", $0] } ?? []))
        #expect(added.status == 0, "\(added.errors)")
        if done { #expect(try await todo(stage, ["done", added.output.trimmingCharacters(in: .whitespacesAndNewlines)]).status == 0) }
    }

    @Test func projectsNestByDottedListNames() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        for list in ["Home", "Home.Garden", "Work.Reviews"] { #expect(try await todo(stage, ["newlist", list]).status == 0) }
        try await add(stage, "Fix the door", list: "Home")
        try await add(stage, "Paint the fence", list: "Home", done: true)
        try await add(stage, "Plant tulips", list: "Home.Garden", done: true)
        try await add(stage, "Mow", list: "Home.Garden", done: true)
        try await add(stage, "Review PR", list: "Work.Reviews")
        try await add(stage, "Loose end")

        let summary = try await todo(stage, ["summary", "--offline"])
        #expect(summary.status == 0, "\(summary.errors)")
        // Standard output is a pipe here: plain text, # for done and . for open. Work has no list of its own, yet
        // it gets a line counting Work.Reviews; Home.Garden, all done, is left out as Taskwarrior leaves it out, and
        // still counts in Home.
        #expect(summary.output == """
            Project    Open  Done Done%  0%              100%
            Home          1     3   75%  ###############.....
            Work          1     0    0%  ....................
              Reviews     1     0    0%  ....................
            (none)        1     0    0%  ....................

            3 projects, 3 open, 3 done

            """, "\(summary.output)")
        let all = try await todo(stage, ["summary", "--offline", "--all"])
        #expect(all.output.contains("  Garden      0     2  100%  ####################\n") && all.output.contains("4 projects, 3 open, 3 done"), "\(all.output)")
        // Filter terms narrow what is counted.
        let narrowed = try await todo(stage, ["summary", "--offline", "is:open"])
        #expect(narrowed.output.contains("Home          1     0    0%"), "\(narrowed.output)")
        await stage.server.shutdown()
    }
}
