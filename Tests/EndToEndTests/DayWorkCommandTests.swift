import CloudServer
import Foundation
import Testing

/// A day's work as a Taskwarrior user does it, on the real `todo` binary: date words, `next`, `info`.
@Suite("A day's work on the command line", .serialized)
struct DayWorkCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String], device: String = "laptop") async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: device, environment: ["TZ": "UTC"])
    }

    func id(_ result: TodoCommandLine.Result) -> String { result.output.trimmingCharacters(in: .whitespacesAndNewlines) }

    func rows(_ result: TodoCommandLine.Result) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]], "\(result.output) \(result.errors)")
    }

    @Test func dateWordsOnTheCommandLine() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let party = try await todo(stage, ["add", "Party", "--due", "24 dec 2031 at 5pm"])
        #expect(party.status == 0, "\(party.errors)")
        #expect(try await todo(stage, ["add", "Someday", "--due", "later"]).status == 0)
        #expect(try await todo(stage, ["add", "Soon", "--due", "in 3 days"]).status == 0)
        let listed = try rows(try await todo(stage, ["list", "--offline", "--json"]))
        let due = Dictionary(uniqueKeysWithValues: listed.map { ($0["title"] as? String ?? "", $0["dueDate"] as? String ?? "") })
        #expect(due["Party"] == "2031-12-24T17:00:00Z", "\(due)")
        #expect(due["Someday"] == "9999-12-30", "\(due)")
        // The end of the work week, taken whole by a filter: three days ahead may fall either side of it, 2031 never.
        let thisYear = try await todo(stage, ["list", "--offline", "due.before:eoy"])
        #expect(thisYear.output.contains("Soon") || thisYear.output.isEmpty, "\(thisYear.output)")
        #expect(!thisYear.output.contains("Party"), "\(thisYear.output)")
        let refused = try await todo(stage, ["add", "Odd", "--due", "dec 32"])
        #expect(refused.status != 0, "\(refused.output)")
        // One line says what was not understood (ArgumentParser's usage lines follow it).
        let lines = refused.errors.lowercased().split(separator: "\n").filter { $0.contains("due date") }
        #expect(lines.count == 1 && lines[0].contains("cannot read the due date 'dec 32': there is no december 32; use"), "\(refused.errors)")
        let unknown = try await todo(stage, ["add", "Odd", "--due", "a fortnight hence"])
        #expect(unknown.status != 0 && unknown.errors.lowercased().contains("cannot read the due date 'a fortnight hence'; use"), "\(unknown.errors)")
        await stage.server.shutdown()
    }
}
