import CloudClient
import CloudServer
import Foundation
import Testing

/// Tags, due times, repeats, filters, annotations and interchange on the real `todo` binary, one cloud.
@Suite("Planning on the command line", .serialized)
struct PlanningCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String], device: String = "laptop") async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: device)
    }

    func id(_ result: TodoCommandLine.Result) -> String { result.output.trimmingCharacters(in: .whitespacesAndNewlines) }

    @Test func addFilterRepeatSkipAndAnnotate() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let bins = id(try await todo(stage, ["add", "Bins", "--tag", "home", "--due", "2030-01-07 07:30", "--repeat", "weekly"]))
        let bulbs = id(try await todo(stage, ["add", "Plant bulbs", "--tag", "garden", "--tag", "+home", "--due", "2030-01-09", "--priority", "2"]))
        _ = try await todo(stage, ["add", "Read", "--priority", "3"])

        let refused = try await todo(stage, ["add", "Odd", "--tag", "two words"])
        #expect(refused.status != 0 && refused.errors.lowercased().contains("cannot use 'two words' as a tag: a tag is one word, without spaces"), "\(refused.errors)")
        let badDue = try await todo(stage, ["add", "Odd", "--due", "2030-02-30 25:00"])
        #expect(badDue.status != 0 && badDue.errors.lowercased().contains("cannot read the due date"), "\(badDue.errors)")
        let badRepeat = try await todo(stage, ["add", "Odd", "--repeat", "FREQ=HOURLY"])
        #expect(badRepeat.status != 0 && badRepeat.errors.lowercased().contains("cannot read the repeat rule"), "\(badRepeat.errors)")

        // One filter syntax: tags, dates, priorities.
        let garden = try await todo(stage, ["list", "--offline", "+home", "due.before:2030-01-08"])
        #expect(garden.output.contains("Bins") && !garden.output.contains("Plant bulbs"), "\(garden.output)")
        let notGarden = try await todo(stage, ["list", "--offline", "+home", "-garden"])
        #expect(notGarden.output.contains("Bins") && !notGarden.output.contains("Plant"), "\(notGarden.output)")
        #expect(try await todo(stage, ["list", "--offline", "pri:2+", "is:open"]).output.split(separator: "\n").count == 2)
        let unknown = try await todo(stage, ["list", "--offline", "lsit:home"])
        #expect(unknown.status != 0 && unknown.errors.lowercased().contains("unknown filter 'lsit:'"), "\(unknown.errors)")

        // Completing an occurrence makes the next one, a week later at the same time; skip makes the one after.
        #expect(try await todo(stage, ["done", bins]).status == 0)
        let open = try await todo(stage, ["list", "--offline", "is:repeating", "is:open"])
        #expect(open.output.contains("due 2030-01-14 07:30") && open.output.contains("Bins"), "\(open.output)")
        let next = try #require(open.output.split(separator: " ").first { $0.hasSuffix("-2") }.map(String.init))
        let skipped = try await todo(stage, ["skip", next])
        #expect(skipped.status == 0 && skipped.output.contains("next occurrence 2030-01-21 07:30"), "\(skipped.output) \(skipped.errors)")
        let notRepeating = try await todo(stage, ["skip", bulbs])
        #expect(notRepeating.status != 0 && notRepeating.errors.lowercased().contains("does not repeat"), "\(notRepeating.errors)")

        #expect(try await todo(stage, ["annotate", bulbs, "bought", "tulips"]).status == 0)
        #expect(try await todo(stage, ["edit", "--filter", "+garden", "--untag", "home", "--tag", "autumn"]).status == 0)
        let json = try await todo(stage, ["list", "--offline", "--json", "+autumn"], device: "laptop")
        let rows = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["tags"] as? [String] == ["garden", "autumn"])
        #expect(rows.first?["dueDate"] as? String == "2030-01-09")
        #expect((rows.first?["annotations"] as? [[String: Any]])?.first?["description"] as? String == "bought tulips")

        // Another device sees it all.
        let phone = try await todo(stage, ["list", "+autumn"], device: "phone")
        #expect(phone.output.contains("Plant bulbs") && phone.output.contains("+garden +autumn"), "\(phone.output)")
        await stage.server.shutdown()
    }

    @Test func exportAndImportRoundTripInEveryFormat() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        _ = try await todo(stage, ["add", "Bins; \"quoted\", with \\ and commas", "--tag", "home", "--due", "2030-01-07 07:30", "--repeat", "every 2 weeks on mon,thu"])
        // A second occurrence, whose series must survive the trip.
        let laundry = id(try await todo(stage, ["add", "Laundry", "--due", "2030-01-06", "--repeat", "weekly"]))
        #expect(try await todo(stage, ["done", laundry]).status == 0)
        let notes = "line one\nline two"
        _ = try await todo(stage, ["add", "Plant bulbs 🌷", "--tag", "garden", "--due", "2030-01-09", "--priority", "3", "--notes", notes])
        let scratch = stage.directory.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for format in ["ics", "taskwarrior", "json"] {
            let file = scratch.appendingPathComponent("todos.\(format)").path
            let export = try await todo(stage, ["export", "--offline", "--format", format, "--output", file])
            #expect(export.status == 0, "\(format): \(export.errors)")
            // A new device of a new account: the format is found from the content.
            let account = "reader-\(format)"
            _ = try await CloudClient(baseURL: stage.server.baseURL).createAccount(account: account, password: "e2e-password-\(account)")
            let imported = try await TodoCommandLine(stage: stage).run(account, ["import", file, "--quiet"])
            #expect(imported.status == 0 && imported.output.contains("Imported 4 todos: added 4, updated 0, unchanged 0"), "\(format): \(imported.output) \(imported.errors)")
            let again = try await TodoCommandLine(stage: stage).run(account, ["import", file, "--quiet"])
            #expect(again.status == 0 && again.output.contains("added 0, updated 0, unchanged 4"), "\(format): \(again.output) \(again.errors)")
            let listed = try await TodoCommandLine(stage: stage).run(account, ["list", "--offline", "--json", "--all"])
            let rows = try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]])
            #expect(rows.count == 4, "\(format): importing twice adds nothing twice")
            let second = try #require(rows.first { ($0["title"] as? String) == "Laundry" && ($0["isCompleted"] as? Bool) == false }, "\(format)")
            #expect(second["occurrence"] as? Int == 2 && (second["series"] as? String)?.hasSuffix(laundry) == true, "\(format): \(second)")
            let bulbs = try #require(rows.first { ($0["title"] as? String) == "Plant bulbs 🌷" })
            #expect(bulbs["tags"] as? [String] == ["garden"] && bulbs["priority"] as? Int == 3 && bulbs["dueDate"] as? String == "2030-01-09", "\(format): \(bulbs)")
            #expect(bulbs["notes"] as? String == notes, "\(format)")
            let bins = try #require(rows.first { ($0["title"] as? String)?.hasPrefix("Bins") == true })
            #expect(bins["title"] as? String == "Bins; \"quoted\", with \\ and commas")
            #expect(bins["allDay"] as? Bool == false, "\(format)")
            if format != "taskwarrior" { #expect(bins["repeat"] as? String == "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", "\(format)") }
        }
        // The vdir layout todoman reads, and back.
        let vdir = scratch.appendingPathComponent("vdir").path
        #expect(try await todo(stage, ["export", "--offline", "--format", "ics", "--vdir", vdir]).status == 0)
        _ = try await CloudClient(baseURL: stage.server.baseURL).createAccount(account: "reader-vdir", password: "e2e-password-reader-vdir")
        let fromVdir = try await TodoCommandLine(stage: stage).run("reader-vdir", ["import", vdir, "--quiet"])
        #expect(fromVdir.output.contains("Imported 4 todos: added 4, updated 0, unchanged 0"), "\(fromVdir.output) \(fromVdir.errors)")
        let garbage = scratch.appendingPathComponent("garbage.txt")
        try Data("hello\u{1B}[31m".utf8).write(to: garbage)
        let refused = try await todo(stage, ["import", garbage.path])
        #expect(refused.status != 0 && refused.errors.lowercased().contains("neither icalendar"), "\(refused.errors)")
        // Endless and one-shot sources are refused with the reason, not read (nor said to be a permission problem).
        let zero = try await todo(stage, ["import", "/dev/zero"])
        #expect(zero.status == 1 && zero.errors.contains("/dev/zero: it is a device, not a file of todos"), "\(zero.errors)")
        let fifo = scratch.appendingPathComponent("todos.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let pipe = try await todo(stage, ["import", fifo])
        #expect(pipe.status == 1 && pipe.errors.contains("it is a pipe"), "\(pipe.errors)")
        // A todo the cloud could never take is refused up front, named, and nothing of the file is imported.
        let oversized = scratch.appendingPathComponent("oversized.json")
        let bigNotes = String(repeating: "n", count: 1_100_000)
        try Data("[{\"title\":\"small\"},{\"title\":\"Novel\",\"notes\":\"\(bigNotes)\"}]".utf8).write(to: oversized)
        let tooBig = try await todo(stage, ["import", oversized.path])
        #expect(tooBig.status == 1 && tooBig.errors.contains("Todo 2 of") && tooBig.errors.contains("\"Novel\""), "\(tooBig.errors)")
        #expect(tooBig.errors.contains("at most 1 MB") && tooBig.errors.contains("nothing was imported"), "\(tooBig.errors)")
        await stage.server.shutdown()
    }
}
