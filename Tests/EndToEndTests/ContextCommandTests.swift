import CloudServer
import Foundation
import Testing

/// `todo context`: a saved filter of config.toml applied to `list` and `next` until `todo context none`; and filter
/// words that find annotations.
@Suite("Contexts on the command line", .serialized)
struct ContextCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: ["TZ": "UTC"])
    }

    func lines(_ result: TodoCommandLine.Result) -> [String] { result.output.split(separator: "\n").map(String.init) }

    @Test func aContextNarrowsListAndNextUntilNone() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        #expect(try await todo(stage, ["add", "Review PR", "--tag", "work"]).status == 0)
        #expect(try await todo(stage, ["add", "Standup", "--tag", "work", "--priority", "3"]).status == 0)
        #expect(try await todo(stage, ["add", "Water plants", "--tag", "garden"]).status == 0)
        let config = stage.directory.appendingPathComponent("devices/config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[filters]\nwork = \"+work\"\ngarden = \"+garden\"\n".write(to: config, atomically: true, encoding: .utf8)

        let none = try await todo(stage, ["context"])
        #expect(none.status == 0 && none.output == "no context\n", "\(none.output) \(none.errors)")
        let set = try await todo(stage, ["context", "work"])
        #expect(set.status == 0 && set.output.contains("Context 'work' set (+work)"), "\(set.output) \(set.errors)")
        #expect(try await todo(stage, ["context"]).output == "work: +work\n")
        #expect(try await todo(stage, ["context", "list"]).output == "  garden: +garden\n* work: +work\n")
        #expect(try String(contentsOf: config, encoding: .utf8).contains("context = 'work'"))

        let listed = try await todo(stage, ["list", "--offline"])
        #expect(lines(listed).count == 2 && !listed.output.contains("Water plants"), "\(listed.output)")
        #expect(listed.errors.contains("Context 'work' in effect (+work); todo context none shows everything"), "\(listed.errors)")
        // Terms given narrow the context further.
        #expect(lines(try await todo(stage, ["list", "--offline", "review"])).count == 1)
        let next = try await todo(stage, ["next", "--offline"])
        #expect(lines(next).count == 2 && lines(next).first?.contains("Standup") == true, "\(next.output)")
        let json = try await todo(stage, ["next", "--offline", "--json"])
        #expect(!json.output.contains("Water plants") && !json.errors.contains("context"), "\(json.errors)")

        let unknown = try await todo(stage, ["context", "home"])
        #expect(unknown.status != 0 && unknown.errors.lowercased().contains("there is no saved filter 'home' (saved: garden, work)"), "\(unknown.errors)")
        #expect(try await todo(stage, ["context"]).output == "work: +work\n")

        let cleared = try await todo(stage, ["context", "none"])
        #expect(cleared.status == 0 && cleared.output.contains("No context"), "\(cleared.output)")
        #expect(lines(try await todo(stage, ["list", "--offline"])).count == 3)
        #expect(try await todo(stage, ["context"]).output == "no context\n")

        // A context naming a filter the file no longer has is told with the file and its line.
        try "[view]\ncontext = \"home\"\n[filters]\nwork = \"+work\"\n".write(to: config, atomically: true, encoding: .utf8)
        let stale = try await todo(stage, ["list", "--offline"])
        #expect(stale.status != 0 && stale.errors.contains("line 2") && stale.errors.contains("'context' in [view] names 'home'"), "\(stale.errors)")
        await stage.server.shutdown()
    }

    @Test func filterWordsFindAnnotations() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let id = try await todo(stage, ["add", "Water plants"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await todo(stage, ["add", "Buy soil", "--notes", "for the balcony"]).status == 0)
        #expect(try await todo(stage, ["annotate", id, "Fern looks dry"]).status == 0)
        let found = try await todo(stage, ["list", "--offline", "fern"])
        #expect(lines(found).count == 1 && found.output.contains("Water plants"), "\(found.output) \(found.errors)")
        #expect(lines(try await todo(stage, ["list", "--offline", "balcony"])).count == 1)
        #expect(try await todo(stage, ["list", "--offline", "cactus"]).output.isEmpty)
        await stage.server.shutdown()
    }
}
