import CloudServer
import Foundation
import HostileTextSupport
import TestSupport
import Testing

extension TrustedTextEndToEnd {
    /// Another account plants control sequences, bidi overrides, zero-width characters and ZWJ emoji in a public post
    /// and in a list it shares; every verb of the real `todo` binary prints them inert, through the real cloud.
    @Suite("Hostile text from another account: the command line", .serialized)
    struct HostileTextCommandLineTests {
        @Test func everyVerbPrintsOtherAccountsTextInert() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let planted = try await HostileWorld.plant(cli)

            var human: [([String], TodoCommandLine.Result)] = []
            for arguments in [
                ["list", "--public"], ["list", "--shared"], ["list", "--public", "--all"], ["lists"], ["shares"], ["status"], ["sync"],
            ] {
                let result = try await cli.run("alice", arguments)
                #expect(result.status == 0, "todo \(arguments.joined(separator: " ")): \(result.errors)")
                human.append((arguments, result))
            }
            // Refusals whose messages name the other account's list, and a verb that succeeds naming it.
            let share = try await cli.run("alice", ["share", planted.listID, "--with", "mallory"])
            #expect(share.status == 1, "\(share.allText)")
            let trash = try await cli.run("alice", ["trash", planted.postID])
            #expect(trash.status == 1, "\(trash.allText)")
            let edit = try await cli.run("alice", ["edit", planted.postID, "--title", "mine now"])
            #expect(edit.status == 1, "\(edit.allText)")
            human += [(["share"], share), (["trash"], trash), (["edit"], edit)]

            for (arguments, result) in human {
                expectInert(result, arguments)
            }
            for (verb, result) in planted.runs { expectInert(result, [verb]) }
            #expect(planted.runs[3].1.output.hasPrefix("Shared 'List␛[2J"), "\(planted.runs[3].1.output)")
            #expect(planted.runs[4].1.output.hasPrefix("Accepted 'List␛[2J"), "\(planted.runs[4].1.output)")
            let publicList = human[0].1.output
            #expect(publicList.contains("Pay␛]0;PWNED␇ ␛]52;c;cm0gLXJmIH4=␇\u{FFFD}31m red\u{FFFD}gnp.exe"), "\(publicList)")
            #expect(publicList.contains("👨‍👩‍👧"))
            #expect(human[1].1.output.contains("Todo␛]52;c;cGF5bG9hZA==␇"), "\(human[1].1.output)")
            #expect(human[3].1.output.contains("List␛[2J\u{FFFD}H\u{FFFD}tsil"), "\(human[3].1.output)")
            #expect(human[4].1.output.contains("List␛[2J"), "\(human[4].1.output)")
            #expect(share.errors.contains("List␛[2J"), "the refusal names the list: \(share.errors)")

            // --json escapes every control and bidi character, and parses back to exactly what mallory wrote.
            for (arguments, expected) in [(["list", "--public", "--json"], HostileWorld.postTitle), (["list", "--shared", "--json"], HostileWorld.todoTitle)] {
                let result = try await cli.run("alice", arguments + ["--offline"])
                #expect(result.status == 0)
                expectInert(result, arguments)
                let rows = try JSONDecoder().decode([JSONRow].self, from: result.stdout)
                #expect(rows.map(\.title).contains(expected), "\(rows.map(\.title))")
                if expected == HostileWorld.postTitle {
                    #expect(result.output.contains("\\u001b]0;PWNED\\u0007"), "\(result.output)")
                    #expect(result.output.contains("\\u009b") && result.output.contains("\\u202e"), "\(result.output)")
                }
            }
            let shared = try JSONDecoder().decode([JSONRow].self, from: try await cli.run("alice", ["list", "--shared", "--json", "--offline"]).stdout)
            #expect(shared.contains { $0.list == HostileWorld.listTitle })

            // Alice changes the shared todo (read-write); leaving and unsharing name the list too, inert.
            let sharedTodo = try JSONDecoder().decode([JSONRow].self, from: try await cli.run("alice", ["list", "--shared", "--json", "--offline"]).stdout)
            if let id = sharedTodo.first?.id {
                let done = try await cli.run("alice", ["done", String(id.suffix(8))])
                #expect(done.status == 0, "\(done.allText)")
                expectInert(done, ["done"])
            }
            let leave = try await cli.run("alice", ["leave", planted.listID])
            #expect(leave.status == 0, "\(leave.allText)")
            expectInert(leave, ["leave"])
            #expect(leave.output.hasPrefix("Left 'List␛[2J"), "\(leave.output)")
            let unshare = try await cli.run("mallory", ["unshare", planted.listID])
            #expect(unshare.status == 0, "\(unshare.allText)")
            expectInert(unshare, ["unshare"])
            #expect(unshare.output.hasPrefix("Stopped sharing 'List␛[2J"), "\(unshare.output)")
            await stage.server.shutdown()
        }

        @Test func randomTitlesPrintInertAndRoundTripThroughJSON() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            var rng = SeededGenerator(seed: 2026)
            var titles: [String] = []
            while titles.count < 150 {
                let title = HostileText.random(&rng, maxLength: 30)
                // The import skips blank titles, as the app refuses them.
                if !title.trimmingCharacters(in: .whitespaces).isEmpty { titles.append(title) }
            }
            let file = stage.directory.appendingPathComponent("hostile.json")
            try FileManager.default.createDirectory(at: stage.directory, withIntermediateDirectories: true)
            try JSONEncoder().encode(titles.map { ["title": $0] }).write(to: file)
            let imported = try await cli.run("alice", ["import", file.path])
            #expect(imported.status == 0, "\(imported.allText)")
            #expect(imported.output == "Imported 150 todos: added 150, updated 0, unchanged 0\n")

            let list = try await cli.run("alice", ["list"])
            #expect(list.status == 0)
            expectInert(list, ["list"])
            #expect(list.output.split(separator: "\n").count == 150, "one line per todo, whatever the titles hold")

            let json = try await cli.run("alice", ["list", "--json", "--offline"])
            expectInert(json, ["list", "--json"])
            let rows = try JSONDecoder().decode([JSONRow].self, from: json.stdout)
            #expect(Set(rows.map(\.title)) == Set(titles))
            #expect(rows.count == titles.count)
            await stage.server.shutdown()
        }

        private func expectInert(_ result: TodoCommandLine.Result, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
            for (stream, text) in [("stdout", result.output), ("stderr", result.errors)] {
                let active = text.unicodeScalars.filter { $0 != "\n" && HostileText.isActive($0) }
                #expect(
                    active.isEmpty, "todo \(arguments.joined(separator: " ")) wrote U+\(active.first.map { String($0.value, radix: 16) } ?? "") raw to \(stream):\n\(text)",
                    sourceLocation: sourceLocation)
            }
            // Internal codes never reach a person.
            for code in ["badRequest:", "unknownItem:", "permissionFailure:", "notAuthenticated:", "networkUnavailable:"] {
                #expect(!result.allText.contains(code), "\(code) leaked: \(result.allText)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// The rows of `todo list --json` this test reads.
struct JSONRow: Decodable {
    var id: String
    var title: String
    var list: String?
}

/// Mallory's public post and the list she shares with alice, both full of hostile text.
enum HostileWorld {
    static let postTitle = HostileText.showcase
    static let listTitle = "List\u{1B}[2J\u{9B}H\u{202E}tsil 👨‍👩‍👧\u{200B}"
    static let todoTitle = "Todo\u{1B}]52;c;cGF5bG9hZA==\u{07}\u{2067}x\u{FEFF} \u{85}next"

    /// IDs of what mallory planted.
    struct Planted {
        var postID: String
        var listID: String
        /// What every verb of the planting printed (mallory's share, alice's accept name the list).
        var runs: [(String, TodoCommandLine.Result)]
    }

    /// Mallory posts on the public board and shares a list with alice, who accepts.
    static func plant(_ cli: TodoCommandLine) async throws -> Planted {
        let alice = try await cli.run("alice", ["sync"])
        guard alice.status == 0 else { throw E2EError("alice could not sync: \(alice.allText)") }
        let post = try await cli.run("mallory", ["add", postTitle, "--public"])
        let list = try await cli.run("mallory", ["newlist", listTitle])
        let listID = list.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let todo = try await cli.run("mallory", ["add", todoTitle, "--list", listID])
        let share = try await cli.run("mallory", ["share", listID, "--with", "alice"])
        let accept = try await cli.run("alice", ["accept"])
        for (name, result) in [("post", post), ("newlist", list), ("add", todo), ("share", share), ("accept", accept)] where result.status != 0 {
            throw E2EError("\(name) failed (\(result.status)): \(result.allText)")
        }
        return Planted(
            postID: post.output.trimmingCharacters(in: .whitespacesAndNewlines), listID: listID,
            runs: [("add --public", post), ("newlist", list), ("add --list", todo), ("share", share), ("accept", accept)])
    }
}
