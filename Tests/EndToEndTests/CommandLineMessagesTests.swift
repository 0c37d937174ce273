import CloudServer
import Foundation
import TLSTestSupport
import Testing

extension TrustedTextEndToEnd {
    /// The real `todo` binary's words and exit codes: 0 done, 1 failed, 2 wrong command line, 3 cloud out of reach.
    @Suite("Command-line messages and exit codes", .serialized)
    struct CommandLineMessagesTests {
        @Test func exitCodesAndMessagesAreDocumentedOnes() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)

            // Usage mistakes: 2, with a message that says what is accepted.
            let impossible = try await cli.run("alice", ["add", "Taxes", "--due", "2026-02-30"])
            #expect(impossible.status == 2)
            #expect(impossible.errors.hasPrefix("Error: Cannot read the due date '2026-02-30': February 2026 has 28 days; use YYYY-MM-DD, today, tomorrow"), "\(impossible.errors)")
            let month = try await cli.run("alice", ["edit", "abc", "--due", "2026-13-01"])
            #expect(month.status == 2)
            #expect(month.errors.contains("there is no month 13"), "\(month.errors)")
            let unknownVerb = try await cli.run("alice", ["frobnicate"])
            #expect(unknownVerb.status == 2, "\(unknownVerb.allText)")
            let badPriority = try await cli.run("alice", ["add", "x", "--priority", "9"])
            #expect(badPriority.status == 2)
            #expect(badPriority.errors.hasPrefix("Error: --priority must be 0 to 3"), "\(badPriority.errors)")
            let help = try await cli.run("alice", ["add", "--help"])
            #expect(help.status == 0)
            #expect(help.output.contains("USAGE"))

            // An account name with an escape sequence is refused by the cloud, in words, inert.
            let hostileAccount = try await cli.run("mal\u{1B}]0;PWNED\u{07}\u{202E}", ["sync"])
            #expect(hostileAccount.status == 1, "\(hostileAccount.allText)")
            #expect(hostileAccount.errors.hasPrefix("Error: "), "\(hostileAccount.errors)")
            #expect(!hostileAccount.allText.unicodeScalars.contains { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}") })
            #expect(!hostileAccount.allText.contains("badRequest"), "\(hostileAccount.allText)")

            // Success: 0, confirmations in sentence case.
            let added = try await cli.run("alice", ["add", "Milk", "--due", "2026-02-28"])
            #expect(added.status == 0, "\(added.allText)")
            let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(id.count >= 8)
            let file = stage.directory.appendingPathComponent("two.json")
            try Data(#"[{"title":"One"},{"title":"Two","due":"tomorrow"},{"title":"  "}]"#.utf8).write(to: file)
            let imported = try await cli.run("alice", ["import", file.path])
            #expect(imported.output == "Imported 2 todos: added 2, updated 0, unchanged 0\n", "\(imported.allText)")
            let badDates = stage.directory.appendingPathComponent("bad-dates.json")
            try Data(#"[{"title":"Feb","due":"2026-02-30"}]"#.utf8).write(to: badDates)
            let badDate = try await cli.run("alice", ["import", badDates.path])
            #expect(badDate.status == 1, "a date in a file is bad data, not a command-line mistake: \(badDate.allText)")
            #expect(
                badDate.errors.hasPrefix("Error: \(badDates.path): entry 1: cannot read the due date '2026-02-30': February 2026 has 28 days"),
                "\(badDate.errors)")
            let badImport = try await cli.run("alice", ["import", stage.directory.appendingPathComponent("none.json").path])
            #expect(badImport.status == 1)
            #expect(badImport.errors.hasPrefix("Error: Cannot read "), "\(badImport.errors)")

            // Failure: 1, no internal code.
            let missing = try await cli.run("alice", ["done", "zzzzzzzz"])
            #expect(missing.status == 1)
            #expect(missing.errors == "Error: No todo has the ID 'zzzzzzzz' (todo list --all shows every ID, done and trashed ones too)\n", "\(missing.errors)")

            // A new device knows nothing yet: an ID is looked up again after fetching, not refused.
            let done = try await cli.run("alice", ["done", id], device: "tablet")
            #expect(done.status == 0, "\(done.allText)")
            let edited = try await cli.run("alice", ["edit", id, "--title", "Oat milk"], device: "phone")
            #expect(edited.status == 0, "\(edited.allText)")
            let list = try await cli.run("alice", ["list", "--all"], device: "laptop")
            #expect(list.output.contains("[x]  \(id.suffix(8))"), "\(list.output)")
            #expect(list.output.contains("Oat milk"), "\(list.output)")

            // A list made on another device since this one last fetched: found after fetching.
            #expect(try await cli.run("alice", ["newlist", "Errands"]).status == 0)
            let intoList = try await cli.run("alice", ["add", "Stamps", "--list", "Errands"], device: "laptop")
            #expect(intoList.status == 0, "\(intoList.allText)")
            let noList = try await cli.run("alice", ["add", "Stamps", "--list", "Nowhere"], device: "laptop")
            #expect(noList.status == 1)
            #expect(noList.errors == "Error: No list named 'Nowhere' (see todo lists)\n", "\(noList.errors)")

            // The cloud out of reach: 3 for a sync; an edit is kept and said to be waiting.
            await stage.server.shutdown()
            let held = try HeldPort(stage.server.port)
            defer { held.release() }
            let offlineEdit = try await cli.run("alice", ["edit", id, "--priority", "2"])
            #expect(offlineEdit.status == 0, "\(offlineEdit.allText)")
            #expect(offlineEdit.errors.hasPrefix("Saved on this device, not sent yet (offline · 1 pending)"), "\(offlineEdit.errors)")
            let offlineSync = try await cli.run("alice", ["sync"])
            #expect(offlineSync.status == 3, "\(offlineSync.allText)")
            for result in [offlineEdit, offlineSync] {
                for code in ["networkUnavailable", "badRequest", "unknownItem"] { #expect(!result.allText.contains(code), "\(result.allText)") }
            }
        }
    }
}
