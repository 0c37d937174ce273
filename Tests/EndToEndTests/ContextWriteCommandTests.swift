import CloudServer
import Foundation
import Testing

/// A context's write side through the real binary: while one is in effect, `todo add` gives the new todo its tags and
/// puts it in its project (Taskwarrior 2.6's write context); flags add to the tags or choose the list instead.
@Suite("What a context writes into new todos", .serialized)
struct ContextWriteCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: ["TZ": "UTC"])
    }

    /// The todos as `list --json` prints them, by title.
    func listed(_ stage: E2EStage) async throws -> [String: [String: Any]] {
        let listed = try await todo(stage, ["list", "--offline", "--json", "--all"])
        let rows = try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]], "\(listed.allText)")
        return Dictionary(rows.compactMap { row in (row["title"] as? String).map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
    }

    @Test func addTakesTheContextsTagsAndProject() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let config = stage.directory.appendingPathComponent("devices/config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[filters]\nwork = \"+work project:Work due.before:eom\"\n".write(to: config, atomically: true, encoding: .utf8)
        #expect(try await todo(stage, ["context", "work"]).status == 0)

        let added = try await todo(stage, ["add", "Draft the report"])
        #expect(added.status == 0, "\(added.allText)")
        #expect(added.errors.lowercased().contains("context 'work': tagged +work, in project work (todo context none stops this)"), "\(added.errors)")
        #expect(try await todo(stage, ["add", "Call the client", "--tag", "phone"]).status == 0)
        #expect(try await todo(stage, ["add", "Fix the fence", "--project", "Home"]).status == 0)
        #expect(try await todo(stage, ["add", "Post the news", "--public"]).status == 0)
        #expect(try await todo(stage, ["context", "none"]).status == 0)
        let free = try await todo(stage, ["add", "Free todo"])
        #expect(free.status == 0 && !free.errors.contains("context"), "\(free.errors)")

        let todos = try await listed(stage)
        #expect(todos["Draft the report"]?["tags"] as? [String] == ["work"], "\(todos)")
        #expect(todos["Draft the report"]?["project"] as? String == "Work", "\(todos)")
        #expect(Set(todos["Call the client"]?["tags"] as? [String] ?? []) == ["phone", "work"], "--tag adds to the context's tags")
        #expect(todos["Call the client"]?["project"] as? String == "Work")
        #expect(todos["Fix the fence"]?["project"] as? String == "Home", "--project chooses the list instead")
        #expect(todos["Fix the fence"]?["tags"] as? [String] == ["work"])
        #expect((todos["Free todo"]?["tags"] as? [String] ?? []).isEmpty && todos["Free todo"]?["project"] as? String == nil)
        // The due.before term only reads: no due date was written.
        #expect(todos["Draft the report"]?["dueDate"] as? String == nil)
        await stage.server.shutdown()
    }
}
