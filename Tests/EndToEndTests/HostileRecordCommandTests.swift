import CloudClient
import CloudModel
import CloudServer
import Foundation
import Testing

/// The real `todo` binary on records whose numbers are at their extremes, written raw into the cloud by another
/// client: every verb either works or refuses in words; none traps.
@Suite("Hostile record numbers on the command line", .serialized)
struct HostileRecordCommandTests {
    static let planted: [(String, [String: FieldValue])] = [
        ("occurrence-max", ["occurrence": .int64(.max), "repeat": .string("FREQ=DAILY")]),
        ("occurrence-min", ["occurrence": .int64(.min), "repeat": .string("FREQ=WEEKLY;INTERVAL=9223372036854775807")]),
        ("priority-max", ["priority": .int64(.max)]),
        ("due-max", ["dueDate": .timestamp(.max), "allDay": .int64(0), "repeat": .string("FREQ=YEARLY")]),
        ("due-min", ["dueDate": .timestamp(.min), "allDay": .int64(1)]),
        ("stamps-max", ["editStamps": .string("*=9223372036854775807,9223372036854775807,x")]),
    ]

    @Test func everyVerbWorksOrRefusesOnExtremeNumbers() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        #expect(try await cli.run("alice", ["sync"]).status == 0)
        let client = CloudClient(baseURL: stage.server.baseURL)
        _ = try await client.signIn(account: "alice", password: "e2e-password-alice", deviceName: "raw")
        let zone = ZoneID(zoneName: TodoSchema.zoneName)
        for (name, fields) in Self.planted {
            var all = fields
            all["title"] = .string("Planted \(name)")
            let record = Record(recordName: "planted-\(name)", recordType: TodoSchema.todoType, fields: all, zoneID: zone)
            let saved = try await client.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
            #expect(saved.first?.record != nil, "\(name): \(saved)")
        }
        var runs: [([String], TodoCommandLine.Result)] = []
        for arguments in [["sync"], ["list", "--all"], ["list", "--json"], ["list", "due.before:tomorrow"], ["export", "--format", "ics"],
            ["export", "--format", "taskwarrior"], ["conflicts"]]
        {
            runs.append((arguments, try await cli.run("alice", arguments)))
        }
        for (name, _) in Self.planted {
            let id = "planted-\(name)"
            for verb in [["done", id], ["done", id, "--undo"], ["skip", id], ["edit", id, "--priority", "2"], ["annotate", id, "noted"], ["trash", id]] {
                runs.append((verb, try await cli.run("alice", verb)))
            }
        }
        for (arguments, result) in runs {
            #expect(result.status == 0 || result.status == 1, "todo \(arguments.joined(separator: " ")) exited \(result.status): \(result.allText)")
            if result.status == 1 { #expect(result.errors.hasPrefix("Error: "), "todo \(arguments.joined(separator: " ")): \(result.errors)") }
            #expect(!result.allText.contains("Fatal error"), "todo \(arguments.joined(separator: " ")): \(result.allText)")
        }
        let done = try #require(runs.first { $0.0 == ["done", "planted-occurrence-max"] }?.1)
        #expect(done.status == 0, "the last occurrence a series can have is completed: \(done.allText)")
        await stage.server.shutdown()
    }
}
