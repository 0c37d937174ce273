import CloudServer
import Foundation
import Testing

/// `todo calendar [MONTH]` through the real binary, as of a fixed day (TODO_TODAY), never the wall clock.
@Suite("todo calendar", .serialized)
struct CalendarCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String], today: String = "2026-12-15") async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run(
            "alice", arguments, device: "laptop", environment: ["TZ": "UTC", "TODO_TODAY": today, "NO_COLOR": "1"])
    }

    @Test func theMonthAsAGridWithDueCounts() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        for due in ["2026-12-24", "2026-12-24 18:00", "2026-12-03", "2027-01-05"] {
            #expect(try await todo(stage, ["add", "Due \(due)", "--due", due]).status == 0)
        }
        let finished = try await todo(stage, ["add", "Done already", "--due", "2026-12-24"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await todo(stage, ["done", finished]).status == 0)

        let december = try await todo(stage, ["calendar", "--offline"])
        #expect(december.status == 0, "\(december.errors)")
        // The 3rd is past with a todo still open (!1), the 24th has two (*2; the done one is not counted), today is [15].
        #expect(december.output == """
                                        December 2026
             Mon       Tue       Wed       Thu       Fri       Sat       Sun
                        1         2         3 !1      4         5         6
              7         8         9        10        11        12        13
             14       [15]       16        17        18        19        20
             21        22        23        24 *2     25        26        27
             28        29        30        31

            [15] today   *n n todos due   !n overdue
            3 open todos due in December 2026

            """, "\(december.output)")
        for words in [["dec"], ["2026-12"], ["december", "2026"], ["this", "month"], ["eom"]] {
            #expect(try await todo(stage, ["calendar", "--offline"] + words).output == december.output, "\(words)")
        }
        let january = try await todo(stage, ["calendar", "--offline", "next", "month"])
        #expect(january.output.contains("January 2027") && january.output.contains(" 5 *1") && !january.output.contains("[15]") && january.output.contains("[dd] today"), "\(january.output)")
        #expect(try await todo(stage, ["calendar", "--offline", "jan", "2027"]).output == january.output)

        // Sunday first when config.toml says so.
        let config = stage.directory.appendingPathComponent("devices/config/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[view]\nweek-start = \"sunday\"\n".write(to: config, atomically: true, encoding: .utf8)
        let sunday = try await todo(stage, ["calendar", "--offline"])
        let lines = sunday.output.split(separator: "\n").map(String.init)
        #expect(lines[1].hasPrefix(" Sun       Mon") && lines[2].hasSuffix("1         2         3 !1      4         5"), "\(sunday.output)")

        let refused = try await todo(stage, ["calendar", "smarch"])
        #expect(refused.status != 0 && refused.errors.lowercased().contains("cannot read the month 'smarch'"), "\(refused.errors)")
        await stage.server.shutdown()
    }
}
