import CloudServer
import Foundation
import Testing

/// `todo next` ranks from the columns urgency and filters read, keeping only the todos that may still be among the
/// first `--limit`: it must rank and score exactly as `todo list --sort next`, which reads whole todos.
@Suite("todo next against the whole todos", .serialized)
struct NextListingCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: ["TZ": "UTC"])
    }

    func id(_ result: TodoCommandLine.Result) -> String { result.output.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Title and urgency of each todo printed as JSON, in order.
    func ranking(_ result: TodoCommandLine.Result) throws -> [String] {
        let rows = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]], "\(result.output) \(result.errors)")
        return rows.map { "\($0["title"] as? String ?? "?") \($0["urgency"] as? Double ?? .nan)" }
    }

    /// The title of a `ranking` line, and its score.
    static func title(_ line: String) -> Substring { line[..<(line.lastIndex(of: " ") ?? line.endIndex)] }
    static func score(_ line: String) -> Double { Double(line.split(separator: " ").last ?? "") ?? .nan }

    @Test func nextRanksAndScoresAsTheWholeTodosDo() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let plan = id(try await todo(stage, ["add", "Plan the beds", "--project", "Home.Garden", "--tag", "garden"]))
        #expect(try await todo(stage, ["add", "Dig the beds", "--project", "Home.Garden", "--depends", plan, "--due", "-2d"]).status == 0)
        let report = id(try await todo(stage, ["add", "Write the report", "--project", "Work", "--priority", "2", "--due", "+3d"]))
        #expect(try await todo(stage, ["start", report]).status == 0)
        let mail = id(try await todo(stage, ["add", "Answer mail", "--project", "Work", "--tag", "next", "--tag", "call"]))
        #expect(try await todo(stage, ["annotate", mail, "Bob first"]).status == 0)
        #expect(try await todo(stage, ["add", "Renew passport", "--scheduled", "-1d", "--priority", "1"]).status == 0)
        #expect(try await todo(stage, ["add", "Later", "--wait", "+5d", "--priority", "3"]).status == 0)
        let done = id(try await todo(stage, ["add", "Done already", "--priority", "3"]))
        #expect(try await todo(stage, ["done", done]).status == 0)
        // Ties: the same fields, told apart by due date, then title, then ID.
        for title in ["Tie b", "Tie a", "Tie c", "Tie a"] {
            #expect(try await todo(stage, ["add", title, "--priority", "1", "--due", "2031-01-01"]).status == 0)
        }
        #expect(try await todo(stage, ["add", "Tie d", "--priority", "1", "--due", "2030-12-31"]).status == 0)

        let all = try await todo(stage, ["next", "--offline", "--limit", "0", "--json"])
        #expect(all.status == 0, "\(all.errors)")
        let ranked = try ranking(all)
        #expect(ranked.count == 10, "\(ranked)")
        #expect(!ranked.contains { $0.hasPrefix("Later") || $0.hasPrefix("Done") }, "\(ranked)")
        // `list` shows active todos first; the rest in the same order, every score the same.
        let listed = try ranking(try await todo(stage, ["list", "--offline", "--sort", "next", "--json"]))
        // The two commands run a moment apart, and a score moving with the clock (a due date nearing, age) may cross
        // a rounding edge of its two printed decimals in between: the same titles, each score within that rounding.
        let (byTitle, listedByTitle) = (ranked.sorted(), listed.sorted())
        #expect(byTitle.map(Self.title) == listedByTitle.map(Self.title), "\(ranked) \(listed)")
        #expect(zip(byTitle, listedByTitle).allSatisfy { abs(Self.score($0) - Self.score($1)) <= 0.011 }, "\(ranked) \(listed)")
        #expect(
            ranked.filter { !$0.hasPrefix("Write") }.map(Self.title) == listed.filter { !$0.hasPrefix("Write") }.map(Self.title),
            "\(ranked) \(listed)")
        // Without the age term the ties are exact (same score and due date): each limit prints the first lines of the
        // whole ranking, cutting through the ties too.
        let config = stage.directory.appendingPathComponent("devices/config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[urgency]\nage = 0\n".write(to: config, atomically: true, encoding: .utf8)
        let lines = try await todo(stage, ["next", "--offline", "--limit", "0"]).output.split(separator: "\n")
        #expect(lines.count == 10)
        #expect(lines.suffix(5).map { $0.split(separator: " ").suffix(2).joined(separator: " ") } == ["Tie d", "Tie a", "Tie a", "Tie b", "Tie c"], "\(lines)")
        for limit in [1, 3, 6, 7, 8, 9] {
            let limited = try await todo(stage, ["next", "--offline", "--limit", "\(limit)"])
            #expect(limited.output.split(separator: "\n") == Array(lines.prefix(limit)), "limit \(limit): \(limited.output)")
        }
        // A filter still sees the notes, annotations, lists and tags.
        #expect(try ranking(try await todo(stage, ["next", "--offline", "--json", "bob"])).map { $0.split(separator: " ").first } == ["Answer"])
        #expect(try ranking(try await todo(stage, ["next", "--offline", "--json", "project:Home"])).count == 2)
        #expect(try ranking(try await todo(stage, ["next", "--offline", "--json", "is:waiting"])).first?.hasPrefix("Later") == true)
        await stage.server.shutdown()
    }
}
