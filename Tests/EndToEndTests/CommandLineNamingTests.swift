import CloudServer
import Foundation
import Testing

extension TrustedTextEndToEnd {
    /// Names that reach only the todo they name, verbs that say what they did, and a command line that refuses what
    /// it does not understand — on the real `todo` binary against a real cloud.
    @Suite("Command-line names, confirmations and refusals", .serialized)
    struct CommandLineNamingTests {
        /// The JSON rows `todo list --json` prints.
        struct Row: Decodable {
            var id: String
            var title: String
            var isCompleted: Bool
            var isTrashed: Bool
            var dueDate: String?
        }

        /// The last word of each line `todo list` printed: the title, for one-word titles without tags.
        static func titles(_ result: TodoCommandLine.Result) -> [String] {
            result.output.split(separator: "\n").map { line -> String in
                guard let last = line.split(separator: " ").last else { return "" }
                return String(last)
            }
        }

        static func rows(_ result: TodoCommandLine.Result) throws -> [Row] {
            try JSONDecoder().decode([Row].self, from: result.stdout)
        }

        @Test func aTodoIsNamedByItsIDOrAStartOfItNeverByItsEnd() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            // Two todos whose short IDs start alike, and one whose ID ends in 7 (a Taskwarrior number's habit).
            let file = stage.directory.appendingPathComponent("three.json")
            try Data(
                """
                [{"uuid":"019a0000-0000-7000-8000-0000aaaa1111","description":"Alpha","status":"pending","entry":"20260101T000000Z"},
                 {"uuid":"019a0000-0000-7000-8000-0000aaaa2222","description":"Beta","status":"pending","entry":"20260101T000000Z"},
                 {"uuid":"019a0000-0000-7000-8000-0000c0ffee27","description":"Gamma","status":"pending","entry":"20260101T000000Z"}]
                """.utf8
            ).write(to: file)
            let imported = try await cli.run("alice", ["import", file.path, "--quiet"])
            #expect(imported.status == 0, "\(imported.allText)")

            // Too short to be an ID: a command-line mistake, nothing changed.
            for short in ["7", "27", "c0f"] {
                let refused = try await cli.run("alice", ["done", short])
                #expect(refused.status == 2, "\(short): \(refused.allText)")
                #expect(refused.errors.hasPrefix("Error: '\(short)' is not a todo's ID"), "\(refused.errors)")
            }
            // An end of an ID names nothing, however long.
            for end in ["ee27", "c0ffee27".suffix(6).description, "aa2222"] {
                let missing = try await cli.run("alice", ["done", end])
                #expect(missing.status == 1, "\(end): \(missing.allText)")
                #expect(missing.errors.hasPrefix("Error: No todo has the ID '\(end)'"), "\(missing.errors)")
            }
            // A start several IDs share: refused, the candidates listed with their titles.
            let ambiguous = try await cli.run("alice", ["done", "aaaa"])
            #expect(ambiguous.status == 1, "\(ambiguous.allText)")
            #expect(ambiguous.errors == "Error: 'aaaa' names 2 todos; give more of the ID of one:\n  aaaa1111  Alpha\n  aaaa2222  Beta\n", "\(ambiguous.errors)")
            var open = try Self.rows(try await cli.run("alice", ["list", "--json"]))
            #expect(open.map(\.title).sorted() == ["Alpha", "Beta", "Gamma"], "nothing was completed by a near miss")

            // The ID, a start of it (any case), or the whole name: each verb says what it did, with the title.
            let done = try await cli.run("alice", ["done", "C0FFE"])
            #expect(done.status == 0 && done.output == "Completed 'Gamma'\n", "\(done.allText)")
            let again = try await cli.run("alice", ["done", "c0ffee27"])
            #expect(again.status == 0 && again.output == "'Gamma' is done already\n", "\(again.allText)")
            let reopened = try await cli.run("alice", ["done", "019a0000-0000-7000-8000-0000c0ffee27", "--undo"])
            #expect(reopened.output == "Reopened 'Gamma'\n", "\(reopened.allText)")
            let edited = try await cli.run("alice", ["edit", "aaaa1", "--title", "Alpha one"])
            #expect(edited.output == "Edited 'Alpha one'\n", "\(edited.allText)")
            let annotated = try await cli.run("alice", ["annotate", "aaaa1111", "called", "back"])
            #expect(annotated.output == "Annotated 'Alpha one'\n", "\(annotated.allText)")
            #expect(try await cli.run("alice", ["newlist", "Errands"]).status == 0)
            let moved = try await cli.run("alice", ["move", "aaaa2", "Errands"])
            #expect(moved.output == "Moved 'Beta' into 'Errands'\n", "\(moved.allText)")
            let quiet = try await cli.run("alice", ["edit", "aaaa2", "--priority", "2", "--quiet"])
            #expect(quiet.status == 0 && quiet.output.isEmpty, "\(quiet.allText)")
            let trashed = try await cli.run("alice", ["trash", "aaaa2"])
            #expect(trashed.output == "Trashed 'Beta'\n", "\(trashed.allText)")

            // A trashed todo is not acted on.
            for verb in [["done", "aaaa2222"], ["edit", "aaaa2222", "--title", "Back"], ["trash", "aaaa2222"]] {
                let refused = try await cli.run("alice", verb)
                #expect(refused.status == 1, "\(verb): \(refused.allText)")
                #expect(refused.errors.hasPrefix("Error: 'Beta' (aaaa2222) is in the trash"), "\(refused.errors)")
            }
            open = try Self.rows(try await cli.run("alice", ["list", "--json", "--all"]))
            let beta = try #require(open.first { $0.title == "Beta" })
            #expect(beta.isTrashed && !beta.isCompleted)

            // Another account's public post is never named, even by its whole ID.
            let post = try await cli.run("bob", ["add", "Bob's post", "--public"])
            let postID = post.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let board = try Self.rows(try await cli.run("alice", ["list", "--public", "--json"]))
            let postName = try #require(board.first { $0.title == "Bob's post" }?.id)
            for name in [postID, postName] {
                let refused = try await cli.run("alice", ["done", name])
                #expect(refused.status == 1 && refused.errors.hasPrefix("Error: No todo has the ID"), "\(refused.allText)")
            }
        }

        @Test func todoUndoTakesBackThisDevicesChangesNewestFirst() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let added = try await cli.run("alice", ["add", "Milk", "--priority", "1"])
            let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await cli.run("alice", ["done", id]).status == 0)
            #expect(try await cli.run("alice", ["edit", id, "--title", "Oat milk", "--priority", "3"]).status == 0)
            #expect(try await cli.run("alice", ["trash", id]).status == 0)
            #expect(try await cli.run("alice", ["list", "--all"]).output.contains("(trashed)"))

            // Another device has changes of its own to undo: none here.
            let elsewhere = try await cli.run("alice", ["undo"], device: "tablet")
            #expect(elsewhere.status == 1 && elsewhere.errors.hasPrefix("Error: Nothing to undo"), "\(elsewhere.allText)")

            let untrashed = try await cli.run("alice", ["undo"])
            #expect(untrashed.status == 0 && untrashed.output == "Undid: trashed 'Oat milk'\n", "\(untrashed.allText)")
            var rows = try Self.rows(try await cli.run("alice", ["list", "--json", "--all"]))
            #expect(rows.count == 1 && rows.first?.isTrashed == false && rows.first?.isCompleted == true, "\(rows)")
            let unedited = try await cli.run("alice", ["undo"])
            #expect(unedited.output == "Undid: edited 'Milk'\n", "\(unedited.allText)")
            let reopened = try await cli.run("alice", ["undo"])
            #expect(reopened.output == "Undid: completed 'Milk'\n", "\(reopened.allText)")
            rows = try Self.rows(try await cli.run("alice", ["list", "--json"], device: "phone"))
            #expect(rows.map(\.title) == ["Milk"] && rows.first?.isCompleted == false, "sent to the cloud: \(rows)")
            let unadded = try await cli.run("alice", ["undo"])
            #expect(unadded.output == "Undid: added 'Milk'\n", "\(unadded.allText)")
            let empty = try await cli.run("alice", ["list"])
            #expect(empty.output.isEmpty && empty.errors == "No todos match\n", "\(empty.allText)")
            let nothing = try await cli.run("alice", ["undo"])
            #expect(nothing.status == 1 && nothing.errors.hasPrefix("Error: Nothing to undo"), "\(nothing.allText)")
        }

        @Test func completingARepeatingTodoSaysWhenTheNextOneIsDue() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd"
            let tomorrow = try #require(Calendar.current.date(byAdding: .day, value: 1, to: Date()))
            let added = try await cli.run("alice", ["add", "Standup", "--due", formatter.string(from: tomorrow) + " 09:30", "--repeat", "daily"])
            #expect(added.status == 0, "\(added.allText)")
            let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
            // The ID alone on standard output (for scripts), the words on standard error; --quiet drops the words.
            #expect(id.count == 8 && added.errors.hasPrefix("Added 'Standup'; due "), "\(added.allText)")
            let quiet = try await cli.run("alice", ["add", "Quietly", "--quiet"])
            #expect(quiet.status == 0 && quiet.output.trimmingCharacters(in: .whitespacesAndNewlines).count == 8 && quiet.errors.isEmpty, "\(quiet.allText)")
            let done = try await cli.run("alice", ["done", id])
            #expect(done.status == 0, "\(done.allText)")
            formatter.dateFormat = "EEE"
            let next = try #require(Calendar.current.date(byAdding: .day, value: 2, to: Date()))
            #expect(done.output.hasPrefix("Completed 'Standup'; next occurrence \(formatter.string(from: next)) 09:30 ("), "\(done.output)")
            let skipped = try await cli.run("alice", ["skip", String(done.output.split(separator: "(").last?.prefix(8) ?? "")])
            #expect(skipped.status == 0, "\(skipped.allText)")
            #expect(skipped.output.hasPrefix("Skipped 'Standup'; next occurrence "), "\(skipped.output)")
        }

        @Test func theCommandLineRefusesWhatItDoesNotUnderstand() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let added: [(String, String, String)] = [("Later", "2099-01-02", "0"), ("Soon", "2099-01-01", "0"), ("Urgent", "2099-01-01", "3"), ("Finished", "2099-01-01", "0")]
            for (title, due, priority) in added {
                let result = try await cli.run("alice", ["add", title, "--due", due, "--priority", priority])
                #expect(result.status == 0, "\(result.allText)")
            }
            let finished = try Self.rows(try await cli.run("alice", ["list", "--json"])).first { $0.title == "Finished" }?.id
            #expect(try await cli.run("alice", ["done", String(try #require(finished).suffix(8))]).status == 0)

            // Unknown options and verbs: named, exit 2, the list not printed.
            let mistakes: [([String], String)] = [
                (["list", "--foo"], "Error: Unknown option '--foo'"), (["list", "--jsno"], "Error: Unknown option '--jsno'; did you mean '--json'?"),
                (["list", "Soon", "--alll"], "Error: Unknown option '--alll'; did you mean '--all'?"),
                (["done", "abcd", "--foo"], "Error: Unknown option '--foo'"), (["export", "--foo"], "Error: Unknown option '--foo'"), (["lists", "--jsno"], "Error: Unknown option '--jsno'"),
            ]
            for (arguments, words) in mistakes {
                let refused = try await cli.run("alice", arguments)
                #expect(refused.status == 2, "\(arguments): \(refused.allText)")
                #expect(refused.errors.hasPrefix(words), "\(arguments): \(refused.errors)")
                #expect(refused.output.isEmpty, "\(arguments): \(refused.output)")
            }
            let verb = try await cli.run("alice", ["lsit"])
            #expect(verb.status == 2 && verb.errors == "Error: unknown command 'lsit'; did you mean 'list'?\n", "\(verb.allText)")
            let nothing = try await cli.run("alice", ["frobnicate"])
            #expect(nothing.status == 2 && nothing.errors.hasPrefix("Error: unknown command 'frobnicate'"), "\(nothing.allText)")

            // todo list: open todos by due date then priority; done ones with --all or is:done; -tag stays a filter term.
            let listed = try await cli.run("alice", ["list"])
            #expect(Self.titles(listed) == ["Urgent", "Soon", "Later"], "\(listed.output)")
            let all = try await cli.run("alice", ["list", "--all"])
            #expect(all.output.split(separator: "\n").last?.hasSuffix("Finished") == true, "\(all.output)")
            let doneOnly = try await cli.run("alice", ["list", "is:done"])
            #expect(doneOnly.output.contains("Finished") && !doneOnly.output.contains("Soon"), "\(doneOnly.output)")
            let excluded = try await cli.run("alice", ["list", "-garden"])
            #expect(excluded.status == 0 && excluded.output.split(separator: "\n").count == 3, "\(excluded.allText)")
            let none = try await cli.run("alice", ["list", "+nosuchtag"])
            #expect(none.status == 0 && none.output.isEmpty && none.errors == "No todos match\n", "\(none.allText)")

            // The saved sort applies (config.toml [view] sort, as the app's o leaves it).
            let config = stage.directory.appendingPathComponent("devices/config/config.toml")
            try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("[view]\nsort = \"title\"\n\n[keys]\nundo = \"z\"\n".utf8).write(to: config)
            let byTitle = try await cli.run("alice", ["list"])
            #expect(Self.titles(byTitle) == ["Later", "Soon", "Urgent"], "\(byTitle.allText)")

            // todo keys: the keys in effect, config.toml's [keys] applied.
            let keys = try await cli.run(["keys", "--data-dir", stage.directory.appendingPathComponent("devices").path])
            #expect(keys.status == 0, "\(keys.allText)")
            #expect(keys.output.contains("| `z` | undo last action | `undo` |"), "\(keys.output)")
            let standard = try await cli.run(["keys", "--data-dir", stage.directory.appendingPathComponent("elsewhere").path])
            #expect(standard.output.contains("| `u` | undo last action | `undo` |"), "\(standard.output)")
        }

        @Test func aCommandSaysWhichCloudItUsesWhenItIsNotTheOneUsedLast() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let data = stage.directory.appendingPathComponent("cloud-notice").path
            let url = stage.server.baseURL.absoluteString
            let password = ["TODO_PASSWORD": "e2e-password-alice"]
            #expect(try await cli.run(["login", url, "--account", "alice", "--data-dir", data], environment: password).status == 0)
            let same = try await cli.run(["sync", "--data-dir", data], environment: password)
            #expect(same.status == 0 && same.errors.isEmpty, "the cloud logged in to, said by login: \(same.allText)")

            // The saved login now names another cloud (the file edited, copied from elsewhere): said before anything.
            let config = URL(fileURLWithPath: data).appendingPathComponent("config/config.toml")
            let other = "http://127.0.0.1:9"
            let text = try String(contentsOf: config, encoding: .utf8).replacingOccurrences(of: url, with: other)
            try Data(text.utf8).write(to: config)
            let moved = try await cli.run(["sync", "--data-dir", data], environment: ["TODO_PASSWORD": ""])
            let first = moved.errors.split(separator: "\n").first.map(String.init)
            #expect(
                first == "Using \(other) as 'alice' (the saved login), not \(url) as 'alice' (the saved login) as last time; to go back: todo login \(url) --account alice",
                "\(moved.allText)")
            #expect(moved.status != 0, "not signed in there: \(moved.allText)")
            let told = try await cli.run(["sync", "--data-dir", data], environment: ["TODO_PASSWORD": ""])
            #expect(!told.errors.contains("Using "), "said once: \(told.allText)")
            // Remembered once: a command using the same cloud leaves the file as it is (not written again).
            let lastCloud = URL(fileURLWithPath: data).appendingPathComponent("config/last-cloud").path
            let kept = try FileManager.default.attributesOfItem(atPath: lastCloud)[.systemFileNumber] as? Int
            _ = try await cli.run(["sync", "--data-dir", data], environment: ["TODO_PASSWORD": ""])
            let after = try FileManager.default.attributesOfItem(atPath: lastCloud)[.systemFileNumber] as? Int
            #expect(kept != nil && after == kept)

            // --server names the cloud itself: nothing to say.
            let named = try await cli.run(["sync", "--server", url, "--account", "alice", "--data-dir", data], environment: password)
            #expect(named.status == 0 && !named.errors.contains("Using "), "\(named.allText)")

            // Logout says where commands go next and how to come back.
            try Data(text.replacingOccurrences(of: other, with: url).utf8).write(to: config)
            let logout = try await cli.run(["logout", "--data-dir", data])
            #expect(logout.status == 0, "\(logout.allText)")
            #expect(
                logout.output.contains("Commands now use the embedded cloud on this machine (each says so once); to go back: todo login \(url) --account alice"),
                "\(logout.output)")
        }
    }
}
