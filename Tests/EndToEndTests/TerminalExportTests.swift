import CloudClient
import CloudModel
import CloudServer
import Foundation
import HostileTextSupport
import Testing

extension TrustedTextEndToEnd {
    /// `todo export` and the shell's completions, run on a pseudo-terminal (`script`): what another account wrote
    /// reaches the terminal inert, while a pipe still gets the exact bytes.
    @Suite("Hostile text on a terminal: export and completion", .serialized)
    struct TerminalExportTests {
        static let title = "Ship \u{9B}31m\u{202E}gnp.exe\u{2066}x\u{2069}\u{85}end"
        static let tag = "work\u{202E}krow"

        @Test func exportToATerminalIsInertAndToAPipeExact() async throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
                print("TerminalExportTests skipped: no /usr/bin/script to give the command a pseudo-terminal")
                return
            }
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            _ = try await HostileWorld.plant(cli)
            let added = try await cli.run("alice", ["add", Self.title, "--tag", "plain"])
            #expect(added.status == 0, "\(added.allText)")
            let tagged = try await cli.run("alice", ["add", "Tagged", "--tag", "home"])
            #expect(tagged.status == 0, "\(tagged.allText)")
            try await Self.plantTag(stage, cli)

            // A pipe: the bytes as the todos hold them.
            let piped = try await cli.run("alice", ["export", "--offline", "--format", "ics"])
            #expect(piped.status == 0, "\(piped.errors)")
            #expect(piped.output.contains("\u{9B}31m\u{202E}gnp.exe"), "a pipe gets the exact text:\n\(piped.output)")

            // A terminal: every line inert, the rest of the calendar intact.
            let shown = try await Self.onTerminal(stage, ["export", "--offline", "--format", "ics"], account: "alice")
            let active = shown.unicodeScalars.filter { $0 != "\n" && $0 != "\r" && HostileText.isActive($0) }
            #expect(active.isEmpty, "raw U+\(active.first.map { String($0.value, radix: 16) } ?? "") reached the terminal:\n\(shown)")
            #expect(shown.contains("BEGIN:VCALENDAR") && shown.contains("SUMMARY:Ship \u{FFFD}31m\u{FFFD}gnp.exe"), "\(shown)")

            // Completion of --tag: the tag with a bidi override is not offered; the plain ones are.
            let words = ["todo", "add", "--tag", ""] + Self.deviceFlags(stage, "alice")
            let completion = try await Self.onTerminal(
                stage, ["---completion", "add", "--", "--tag", "3", "0"] + words, account: nil)
            #expect(completion.contains("home") && completion.contains("plain"), "\(completion)")
            let activeCompletion = completion.unicodeScalars.filter { $0 != "\n" && $0 != "\r" && HostileText.isActive($0) }
            #expect(activeCompletion.isEmpty && !completion.contains("krow"), "\(completion)")
            await stage.server.shutdown()
        }

        /// A tag with a bidi override on one of alice's todos, written raw through the cloud's HTTP API (the command
        /// line refuses such a tag; another client of hers need not), then fetched by her device.
        static func plantTag(_ stage: E2EStage, _ cli: TodoCommandLine) async throws {
            let client = CloudClient(baseURL: stage.server.baseURL)
            _ = try await client.signIn(account: "alice", password: "e2e-password-alice", deviceName: "raw")
            let zone = ZoneID(zoneName: TodoSchema.zoneName)
            let record = Record(
                recordName: "raw-bidi-tag", recordType: TodoSchema.todoType,
                fields: ["title": .string("Bidi tag"), "tags": .list(.string, [.string(tag)])], zoneID: zone)
            let results = try await client.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
            #expect(results.first?.record != nil, "\(results)")
            #expect(try await cli.run("alice", ["sync"]).status == 0)
        }

        /// The flags that name alice's device, as `TodoCommandLine.run` gives them.
        static func deviceFlags(_ stage: E2EStage, _ account: String) -> [String] {
            [
                "--account", account, "--device", "main", "--server", stage.server.baseURL.absoluteString, "--data-dir",
                stage.directory.appendingPathComponent("devices").path,
            ]
        }

        /// What `todo ARGUMENTS` writes to a pseudo-terminal (`script -q -e -c`), carriage returns removed.
        static func onTerminal(_ stage: E2EStage, _ arguments: [String], account: String?) async throws -> String {
            var all = [stage.binary] + arguments
            if let account { all += deviceFlags(stage, account) + ["--password", "e2e-password-\(account)"] }
            let command = all.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let result = try await SpawnedProcess.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], environment: ["TERM": "xterm"])
            #expect(result.status == 0, "\(result.allText)")
            return result.output.replacingOccurrences(of: "\r", with: "")
        }
    }
}
