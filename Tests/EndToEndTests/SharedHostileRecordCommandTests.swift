import CloudClient
import CloudModel
import CloudServer
import Foundation
import Testing

/// The real `todo` binary on records another account planted in the list it shares with you, each with one field at
/// its extreme or of the wrong type: every verb either works or refuses in words; none traps, and `list --json` reads
/// each number within its range.
@Suite("Hostile records of a shared list on the command line", .serialized)
struct SharedHostileRecordCommandTests {
    static let planted: [(String, [String: FieldValue])] = [
        // Wrong types first (each teaches the owner's schema its type; the owner's account bears it).
        ("occurrence-text", ["occurrence": .string("9223372036854775807")]),
        ("priority-text", ["priority": .string("high")]),
        ("due-text", ["dueDate": .string("tomorrow"), "allDay": .string("yes")]),
        ("done-list", ["isCompleted": .list(.int64, [.int64(1)])]),
        ("tags-text", ["tags": .string("solo")]),
        ("notes-list", ["notes": .list(.string, [.string("a")])]),
        ("annotations-number", ["annotations": .int64(.max)]),
        ("repeat-number", ["repeat": .int64(.max)]),
        ("lost-time", ["lostEdits": .timestamp(.min)]),
        ("interval-max", ["repeat": .string("FREQ=DAILY;INTERVAL=9223372036854775807")]),
        ("count-min", ["repeat": .string("FREQ=WEEKLY;COUNT=-9223372036854775808")]),
        ("monthday-max", ["repeat": .string("FREQ=MONTHLY;BYMONTHDAY=9223372036854775807")]),
    ]

    @Test func everyVerbWorksOrRefusesOnAnotherAccountsHostileRecords() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        #expect(try await cli.run("alice", ["sync"]).status == 0)
        let list = try await cli.run("mallory", ["newlist", "Planted list"])
        let listID = list.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let share = try await cli.run("mallory", ["share", listID, "--with", "alice"])
        #expect(list.status == 0 && share.status == 0, "\(list.allText)\(share.allText)")
        let raw = CloudClient(baseURL: stage.server.baseURL)
        _ = try await raw.signIn(account: "mallory", password: "e2e-password-mallory", deviceName: "raw")
        let root = try #require(try await raw.listOwnedShares().first?.rootRecordName)
        let zone = ZoneID(zoneName: TodoSchema.zoneName)
        var names: [String] = []
        for (name, fields) in Self.planted {
            var all: [String: FieldValue] = ["title": .string("Planted \(name)"), "repeat": .string("FREQ=DAILY")]
            all.merge(fields) { _, new in new }
            let record = Record(
                recordName: "planted-\(name)", recordType: TodoSchema.todoType, fields: all, zoneID: zone, parent: ParentReference(recordName: root))
            let saved = try await raw.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
            if saved.first?.record != nil { names.append("planted-\(name)") }
        }
        #expect(names.count >= Self.planted.count - 2, "the cloud took the planted records: \(names)")
        #expect(try await cli.run("alice", ["accept"]).status == 0)

        var runs: [([String], TodoCommandLine.Result)] = []
        for arguments in [["sync"], ["list", "--all", "--shared"], ["list", "--json", "--shared"], ["export", "--format", "ics"], ["export", "--format", "taskwarrior"]] {
            runs.append((arguments, try await cli.run("alice", arguments)))
        }
        for id in names {
            for verb in [["done", id], ["done", id, "--undo"], ["skip", id], ["edit", id, "--priority", "2", "--due", "2026-12-01"]] {
                runs.append((verb, try await cli.run("alice", verb)))
            }
        }
        for (arguments, result) in runs {
            let command = "todo " + arguments.joined(separator: " ")
            #expect(result.status == 0 || result.status == 1, "\(command) exited \(result.status): \(result.allText)")
            if result.status == 1 { #expect(result.errors.hasPrefix("Error: "), "\(command): \(result.errors)") }
            #expect(!result.allText.contains("Fatal error"), "\(command): \(result.allText)")
        }
        // Acting on a todo with a field of the wrong type says the field is taken as absent.
        if names.contains("planted-due-text") {
            let done = try #require(runs.first { $0.0 == ["done", "planted-due-text"] }?.1)
            #expect(done.errors.contains("dueDate") && done.errors.contains("taken as absent"), "\(done.allText)")
        }
        // Every number `list --json` shows is within its range.
        let json = try await cli.run("alice", ["list", "--all", "--json", "--shared"])
        let parsed = try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]]
        let todos = try #require(parsed, "\(json.allText)")
        let listed = todos.filter { ($0["title"] as? String)?.hasPrefix("Planted ") == true }
        #expect(listed.count >= names.count, "\(json.output)")
        for todo in listed {
            if let priority = todo["priority"] as? Int { #expect((0...3).contains(priority), "\(todo)") }
        }
        await stage.server.shutdown()
    }
}
