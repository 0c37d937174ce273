import CloudServer
import Foundation
import Testing

/// `todo info` through the real binary names what a person reads: accounts by name, lists by path, blockers by ID and
/// title, devices by the name they signed in with; never a bare record name it could have put in words.
@Suite("todo info in words", .serialized)
struct InfoNamesCommandTests {
    func todo(_ stage: E2EStage, _ account: String, _ arguments: [String], device: String = "laptop") async throws -> TodoCommandLine.Result {
        let result = try await TodoCommandLine(stage: stage).run(account, arguments, device: device, environment: ["TZ": "UTC"])
        #expect(result.status == 0, "\(arguments): \(result.errors)")
        return result
    }

    func id(_ result: TodoCommandLine.Result) -> String { result.output.trimmingCharacters(in: .whitespacesAndNewlines) }

    @Test func infoNamesAccountsListsBlockersAndDevices() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        // Bob's list, shared with Alice, and a todo in it.
        let allotment = id(try await todo(stage, "bob", ["newlist", "Allotment.Beds"]))
        let beans = id(try await todo(stage, "bob", ["add", "Sow beans", "--list", allotment]))
        _ = try await todo(stage, "bob", ["share", allotment, "--with", "alice"])
        _ = try await todo(stage, "alice", ["accept"])

        // Alice's own todo: made on the laptop in Home.Garden, moved to Home.Beds on her phone, then made to wait on
        // another.
        let seeds = id(try await todo(stage, "alice", ["add", "Buy seeds"]))
        let sow = id(try await todo(stage, "alice", ["add", "Sow carrots", "--project", "Home.Garden"]))
        _ = try await todo(stage, "alice", ["list"], device: "phone")
        _ = try await todo(stage, "alice", ["edit", sow, "--project", "Home.Beds"], device: "phone")
        _ = try await todo(stage, "alice", ["edit", sow, "--depends", seeds])

        let info = try await todo(stage, "alice", ["info", sow])
        let text = info.output
        #expect(text.contains("by alice (you)") && !text.contains("does not know"), "\(text)")
        let history = text.components(separatedBy: "History").last ?? ""
        #expect(history.contains("device phone (via the cloud): list: 'Home.Beds'"), "\(history)")
        #expect(history.contains("this device: created") && history.contains("list: 'Home.Garden'"), "\(history)")
        #expect(history.contains("depends: \(seeds) 'Buy seeds'"), "\(history)")

        // Bob's todo, seen from Alice's laptop: its owner and creator by account name.
        let shared = try await todo(stage, "alice", ["info", beans])
        #expect(shared.output.contains("Database    shared (owner bob)"), "\(shared.output)")
        #expect(shared.output.contains(" by bob\n") && !shared.output.contains("does not know"), "\(shared.output)")

        // Offline the devices are not asked for: a device's ID stands for it, said as a device.
        let offline = try await todo(stage, "alice", ["info", sow, "--offline"])
        #expect(offline.output.contains("(via the cloud): list: 'Home.Beds'") && !offline.output.contains("device phone"), "\(offline.output)")
        await stage.server.shutdown()
    }
}
