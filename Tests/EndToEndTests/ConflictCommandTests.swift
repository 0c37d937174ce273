import CloudServer
import Foundation
import Testing

/// The command line's conflict verbs on the real `todo` binary: two devices of one account, one cloud.
@Suite("Conflicts on the command line", .serialized)
struct ConflictCommandTests {
    /// Runs `todo ARGUMENTS` as `device`; answers its exit status, standard output and standard error.
    func todo(_ stage: E2EStage, _ device: String, _ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        let run = try await TodoCommandLine(stage: stage).run("alice", arguments, device: device)
        return (run.status, run.output, run.errors)
    }

    @Test func theLosingDeviceIsToldOnceAndRestoresItsValue() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let id = try await todo(stage, "laptop", ["add", "Milk"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 8)
        _ = try await todo(stage, "phone", ["sync"])
        #expect(try await todo(stage, "laptop", ["edit", id, "--priority", "1"]).status == 0)
        // The phone's later edit meets the laptop's: it wins, and the phone hears of the value it beat.
        let phoneEdit = try await todo(stage, "phone", ["edit", id, "--priority", "3"])
        #expect(phoneEdit.status == 0)
        #expect(phoneEdit.err.contains("Conflict: 'Milk': priority 1 lost to 3, set later"), "\(phoneEdit.err)")

        let sync = try await todo(stage, "laptop", ["sync"])
        #expect(sync.out.contains("conflict: 'Milk': your priority 1 lost to 3, set later on another device (todo restore \(id) priority)"), "\(sync.out)")
        #expect(!(try await todo(stage, "laptop", ["sync"]).out.contains("conflict")), "announced once")
        #expect(try await todo(stage, "laptop", ["status"]).out.contains("\(id)  priority  'Milk': your priority 1 lost to 3"))
        #expect(try await todo(stage, "laptop", ["conflicts", "--offline"]).out.contains("\(id)  priority"))

        let ambiguous = try await todo(stage, "laptop", ["restore", id, "title"])
        #expect(ambiguous.status != 0 && ambiguous.err.contains("no lost value for title"), "\(ambiguous.err)")
        let restore = try await todo(stage, "laptop", ["restore", id, "priority"])
        #expect(restore.status == 0 && restore.out.contains("Restored priority 1 of 'Milk'"), "\(restore.out) \(restore.err)")
        #expect(try await todo(stage, "phone", ["list"]).out.contains("P1  Milk"))
        #expect(try await todo(stage, "phone", ["conflicts"]).out.contains("No lost values"))
        await stage.server.shutdown()
    }
}
