import CloudServer
import Foundation
import TestSupport
import Testing

/// Checked against real todoman files: todos written by todoman (a vdir of one .ics file per todo) are imported with
/// their due dates, start (our scheduled), priority, categories and done state; what `todo export --vdir` writes is
/// read by todoman, and a todo todoman completes there reads back done. Skipped, with a line saying so, where todoman
/// is not installed (`pip install todoman`).
@Suite("Interchange with todoman", .serialized)
struct TodomanInterchangeTests {
    /// Runs todoman's command line (through Python, since its executable is also called `todo`).
    static func todoman(_ stage: E2EStage, config: URL, _ arguments: [String]) async throws -> TodoCommandLine.Result {
        let script = "import sys; from todoman.cli import cli; sys.argv[0] = 'todoman'; cli()"
        return try await SpawnedProcess.run(
            "/usr/bin/env", ["python3", "-c", script, "--config", config.path] + arguments, environment: ["TZ": "UTC", "LANG": "C.UTF-8"])
    }

    /// A todoman configuration over the calendars in `directory`.
    static func configure(_ directory: URL, defaultList: String) throws -> URL {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(defaultList), withIntermediateDirectories: true)
        return try TodomanConfig.write(to: directory.appendingPathComponent("todoman.py"), calendars: "\(directory.path)/*", defaultList: defaultList)
    }

    @Test func todomanFilesComeInAndOurFilesReadInTodoman() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let probe = try await SpawnedProcess.run("/usr/bin/env", ["python3", "-c", "import todoman"])
        guard probe.status == 0 else {
            print("TodomanInterchangeTests skipped: todoman is not installed (pip install todoman)")
            await stage.server.shutdown()
            return
        }
        let cli = TodoCommandLine(stage: stage)
        let environment = ["TZ": "UTC"]

        // todoman writes three todos in its list "Errands" and completes one.
        let theirs = stage.directory.appendingPathComponent("todoman")
        let config = try Self.configure(theirs, defaultList: "Errands")
        for words in [
            ["new", "-l", "Errands", "-d", "2026-03-12", "--priority", "high", "-c", "garden", "Buy soil"],
            ["new", "-l", "Errands", "-s", "2026-03-10 09:00", "-d", "2026-03-13 10:00", "-c", "home", "-c", "phone", "Call plumber"],
            ["new", "-l", "Errands", "Old chore"],
        ] {
            let made = try await Self.todoman(stage, config: config, words)
            #expect(made.status == 0, "todoman \(words): \(made.allText)")
        }
        #expect(try await Self.todoman(stage, config: config, ["done", "3"]).status == 0)

        let imported = try await cli.run("alice", ["import", theirs.path], environment: environment)
        #expect(imported.status == 0, "\(imported.allText)")
        let listed = try await cli.run("alice", ["list", "--offline", "--json", "--all"], environment: environment)
        let rows = try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]], "\(listed.allText)")
        let byTitle = Dictionary(rows.compactMap { row in (row["title"] as? String).map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
        let soil = try #require(byTitle["Buy soil"], "\(listed.output)")
        #expect(soil["dueDate"] as? String == "2026-03-12" && soil["allDay"] as? Bool == true, "\(soil)")
        #expect(soil["priority"] as? Int == 3, "todoman's high (PRIORITY 4) is high here: \(soil)")
        #expect(soil["tags"] as? [String] == ["garden"], "\(soil)")
        #expect(soil["project"] as? String == "Errands", "the todoman list is the list: \(soil)")
        let plumber = try #require(byTitle["Call plumber"])
        #expect((plumber["dueDate"] as? String)?.hasPrefix("2026-03-13T10:00") == true, "\(plumber)")
        #expect((plumber["scheduled"] as? String)?.hasPrefix("2026-03-10") == true, "todoman's start is our scheduled: \(plumber)")
        #expect(Set(plumber["tags"] as? [String] ?? []) == ["home", "phone"], "\(plumber)")
        #expect(byTitle["Old chore"]?["isCompleted"] as? Bool == true, "\(byTitle["Old chore"] ?? [:])")

        // Our export, read by todoman: every todo, its list, dates, priority and categories.
        let ours = stage.directory.appendingPathComponent("exported")
        let exported = try await cli.run("alice", ["export", "--format", "ics", "--vdir", ours.path], environment: environment)
        #expect(exported.status == 0, "\(exported.allText)")
        let ourConfig = try Self.configure(ours, defaultList: "Errands")
        let read = try await Self.todoman(stage, config: ourConfig, ["--porcelain", "list", "--status", "ANY"])
        #expect(read.status == 0, "\(read.allText)")
        let theirRows = try #require(try JSONSerialization.jsonObject(with: read.stdout) as? [[String: Any]], "\(read.allText)")
        let theirTitles = Dictionary(theirRows.compactMap { row in (row["summary"] as? String).map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
        #expect(Set(theirTitles.keys) == ["Buy soil", "Call plumber", "Old chore"], "\(read.output)")
        let theirSoil = try #require(theirTitles["Buy soil"])
        #expect(theirSoil["list"] as? String == "Errands" && theirSoil["categories"] as? [String] == ["garden"], "\(theirSoil)")
        #expect((1...4).contains(theirSoil["priority"] as? Int ?? 0), "high stays high in todoman: \(theirSoil)")
        #expect(theirSoil["due"] as? Int == 1_773_273_600, "2026-03-12: \(theirSoil)")
        #expect(theirTitles["Old chore"]?["completed"] as? Bool == true)
        #expect(theirTitles["Call plumber"]?["start"] as? Int == 1_773_133_200, "scheduled is todoman's start (2026-03-10 09:00 UTC)")

        // todoman completes one of our files; importing that file reads it done.
        let plumberID = try #require(theirTitles["Call plumber"]?["id"] as? Int)
        #expect(try await Self.todoman(stage, config: ourConfig, ["done", String(plumberID)]).status == 0)
        let written = try FileManager.default.subpathsOfDirectory(atPath: ours.path).filter { $0.hasSuffix(".ics") }
        let plumberFile = try #require(written.first { path in
            (try? String(contentsOf: ours.appendingPathComponent(path), encoding: .utf8))?.contains("SUMMARY:Call plumber") == true
        })
        let text = try String(contentsOf: ours.appendingPathComponent(plumberFile), encoding: .utf8)
        #expect(text.contains("STATUS:COMPLETED"), "\(text)")
        let again = try await cli.run("bob", ["import", ours.appendingPathComponent(plumberFile).path], environment: environment)
        #expect(again.status == 0, "\(again.allText)")
        let bobs = try await cli.run("bob", ["list", "--offline", "--json", "--all"], environment: environment)
        let bobRows = try #require(try JSONSerialization.jsonObject(with: bobs.stdout) as? [[String: Any]])
        #expect(bobRows.count == 1 && bobRows.first?["isCompleted"] as? Bool == true, "\(bobs.output)")
        await stage.server.shutdown()
    }
}
