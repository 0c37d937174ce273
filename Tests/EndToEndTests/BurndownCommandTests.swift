import CloudServer
import Foundation
import Testing

/// `todo burndown` through the real binary. "Today" is the day the cloud stamped the todos (given as TODO_TODAY),
/// so a run across midnight cannot change the answer.
@Suite("todo burndown", .serialized)
struct BurndownCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String], today: String? = nil) async throws -> TodoCommandLine.Result {
        var environment = ["TZ": "UTC", "COLUMNS": "80"]
        environment["TODO_TODAY"] = today
        return try await TodoCommandLine(stage: stage).run("alice", arguments, device: "laptop", environment: environment)
    }

    @Test func pendingAndDonePerDay() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        #expect(try await todo(stage, ["add", "One"]).status == 0)
        #expect(try await todo(stage, ["add", "Two"]).status == 0)
        let three = try await todo(stage, ["add", "Three"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await todo(stage, ["done", three]).status == 0)
        let trashed = try await todo(stage, ["add", "Gone"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await todo(stage, ["trash", trashed]).status == 0)
        let listed = try await todo(stage, ["list", "--offline", "--json", "is:done"])
        let rows = try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]])
        let stamp = try #require(rows.first?["modifiedAt"] as? Int)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let day = utc.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(stamp) / 1000))
        let today = String(format: "%04d-%02d-%02d", day.year!, day.month!, day.day!)

        let chart = try await todo(stage, ["burndown", "--offline", "--weeks", "1"], today: today)
        #expect(chart.status == 0, "\(chart.errors)")
        let lines = chart.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Title, 16 rows of bars, the axis, days, months and the legend; a pipe gets no escape sequences.
        #expect(lines.count == 22 && lines[21].isEmpty, "\(chart.output)")
        #expect(lines[0].hasPrefix("Burndown, daily: ") && lines[0].hasSuffix(" to \(today)"), "\(lines[0])")
        #expect(lines[20].hasSuffix("X done  = started  + pending    today: 2 pending, 1 done"), "\(chart.output)")
        #expect(lines[1].hasPrefix("   3 |") && lines[1].hasSuffix("+"), "\(chart.output)")
        #expect(lines[16].hasSuffix("X"), "\(chart.output)")
        #expect(!chart.output.contains("\u{1B}"))

        // Two weeks by default: 14 day labels.
        let twoWeeks = try await todo(stage, ["burndown", "--offline"], today: today)
        #expect(twoWeeks.output.split(separator: "\n")[18].split(separator: " ").count == 14, "\(twoWeeks.output)")
        // As of a day before any todo was made: nothing pending, nothing done.
        let before = try await todo(stage, ["burndown", "--offline"], today: "2020-01-15")
        #expect(before.output.contains("today: 0 pending, 0 done") && before.output.contains("2020-01-02 to 2020-01-15"), "\(before.output)")

        let refused = try await todo(stage, ["burndown", "--weeks", "0"])
        #expect(refused.status != 0 && refused.errors.contains("--weeks must be from 1 to 10"), "\(refused.errors)")
        let badDay = try await todo(stage, ["burndown"], today: "2026-02-30")
        #expect(badDay.status != 0 && badDay.errors.contains("TODO_TODAY must be a day as YYYY-MM-DD"), "\(badDay.errors)")
        await stage.server.shutdown()
    }
}
