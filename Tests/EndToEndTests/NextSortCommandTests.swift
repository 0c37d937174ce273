import CloudServer
import Foundation
import Testing

/// `next` as a sort of `todo list`: given with `--sort`, or saved in config.toml's `[view] sort`.
@Suite("The next sort on the command line", .serialized)
struct NextSortCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: ["TZ": "UTC"])
    }

    func titles(_ result: TodoCommandLine.Result) -> [String] {
        let known = ["Urgent", "Tagged next", "Low", "Plain", "Aardvark"]
        return result.output.split(separator: "\n").compactMap { line in known.first { line.hasSuffix($0) || line.contains(" \($0)") } }
    }

    @Test func listSortsByUrgencyWhenAskedOrSaved() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        #expect(try await todo(stage, ["add", "Plain"]).status == 0)
        #expect(try await todo(stage, ["add", "Urgent", "--due", "-7d", "--priority", "3"]).status == 0)
        #expect(try await todo(stage, ["add", "Tagged next", "--tag", "next"]).status == 0)
        #expect(try await todo(stage, ["add", "Low", "--priority", "1"]).status == 0)
        #expect(try await todo(stage, ["add", "Aardvark"]).status == 0)

        let ranked = try await todo(stage, ["list", "--offline", "--sort", "next"])
        #expect(ranked.status == 0, "\(ranked.errors)")
        // Urgency 18, 15.8, 1.8, then the two near 0, the older first (its age term is larger), as todo next ranks them.
        #expect(titles(ranked) == ["Urgent", "Tagged next", "Low", "Plain", "Aardvark"], "\(ranked.output)")
        let byTitle = try await todo(stage, ["list", "--offline", "--sort", "title"])
        #expect(titles(byTitle) == ["Aardvark", "Low", "Plain", "Tagged next", "Urgent"], "\(byTitle.output)")

        let config = stage.directory.appendingPathComponent("devices/config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[view]\nsort = \"next\"\n".write(to: config, atomically: true, encoding: .utf8)
        #expect(titles(try await todo(stage, ["list", "--offline"])) == ["Urgent", "Tagged next", "Low", "Plain", "Aardvark"])
        // --sort wins over the saved order.
        #expect(titles(try await todo(stage, ["list", "--offline", "--sort", "title"])).first == "Aardvark")

        let refused = try await todo(stage, ["list", "--offline", "--sort", "urgency"])
        #expect(refused.status != 0 && refused.errors.contains("--sort must be one of due, priority, created, title, next, not 'urgency'"), "\(refused.errors)")
        await stage.server.shutdown()
    }
}
