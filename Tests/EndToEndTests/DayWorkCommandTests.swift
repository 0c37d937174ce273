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

    @Test func nextRanksByUrgencyWithCoefficientsFromTheConfigFile() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        #expect(try await todo(stage, ["add", "Plain"]).status == 0)
        #expect(try await todo(stage, ["add", "Urgent", "--due", "-7d", "--priority", "3"]).status == 0)
        #expect(try await todo(stage, ["add", "Tagged next", "--tag", "next"]).status == 0)
        #expect(try await todo(stage, ["add", "Low", "--priority", "1"]).status == 0)
        let done = id(try await todo(stage, ["add", "Finished", "--priority", "3"]))
        #expect(try await todo(stage, ["done", done]).status == 0)

        let next = try await todo(stage, ["next", "--offline"])
        let lines = next.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(next.output) \(next.errors)")
        #expect(lines.first?.hasPrefix(" 18.00  [ ] ") == true && lines.first?.contains("Urgent") == true, "\(next.output)")
        #expect(lines.map { $0.split(separator: " ").count > 0 }.allSatisfy { $0 })
        #expect(["Urgent", "Tagged next", "Low", "Plain"].enumerated().allSatisfy { lines[$0.offset].contains($0.element) }, "\(next.output)")
        #expect(lines[1].hasPrefix(" 15.80") && lines[2].hasPrefix("  1.80") && lines[3].hasPrefix("  0.00"), "\(next.output)")
        #expect(try await todo(stage, ["next", "--offline", "--limit", "2"]).output.split(separator: "\n").count == 2)

        let json = try rows(try await todo(stage, ["next", "--offline", "--json"]))
        #expect(json.map { $0["title"] as? String } == ["Urgent", "Tagged next", "Low", "Plain"])
        #expect(json.map { $0["urgency"] as? Double } == [18.0, 15.8, 1.8, 0.0])
        let listed = try rows(try await todo(stage, ["list", "--offline", "--json", "Low"]))
        #expect(listed.first?["urgency"] as? Double == 1.8, "\(listed)")

        // config.toml's [urgency] replaces a coefficient; an unknown one is refused with the file and line.
        let config = stage.directory.appendingPathComponent("devices/config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[urgency]\nnext-tag = 0\npriority-low = 2\n".write(to: config, atomically: true, encoding: .utf8)
        let tuned = try await todo(stage, ["next", "--offline"])
        let order = tuned.output.split(separator: "\n").map(String.init)
        #expect(order.count == 4 && order[1].hasPrefix("  2.00") && order[1].contains("Low") && order[2].contains("Tagged next"), "\(tuned.output) \(tuned.errors)")
        try "[urgency]\nnext-tag = 0\nsoon = 3\n".write(to: config, atomically: true, encoding: .utf8)
        let refused = try await todo(stage, ["next", "--offline"])
        #expect(refused.status != 0 && refused.errors.contains("line 3") && refused.errors.contains("unknown coefficient 'soon'"), "\(refused.errors)")
        await stage.server.shutdown()
    }
}
