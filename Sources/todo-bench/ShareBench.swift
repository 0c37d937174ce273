import CloudModel
import Foundation
import TodoApp
import TodoStore
import TodoSync

/// `todo-bench share`: a share accepted → the list visible on the participant's device (target ≤ 100 ms on
/// loopback), and an invitation → announced on the participant's device by push.
enum ShareBench {
    static func run(rounds: Int = 30) async throws {
        print("== sharing benchmark (release build) ==")
        let server = try ServerProcess()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-sharebench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for account in ["alice", "bob"] { BenchAccounts.create(server.baseURL, account: account) }
        let alice = try await DeviceSession.open(UIBench.deviceOptions(server: server.baseURL, directory: directory, account: "alice"))
        let bob = try await DeviceSession.open(UIBench.deviceOptions(server: server.baseURL, directory: directory, account: "bob"))
        await alice.engine.start(listenForPushes: false)
        await bob.engine.start(listenForPushes: true)
        var accepted: [Double] = []
        var announced: [Double] = []
        for round in 0..<rounds {
            let list = try await alice.engine.addList(title: "List \(round)")
            for index in 0..<20 { try await alice.engine.add(title: "Item \(index) of list \(round)", toList: list.key) }
            await alice.engine.sync(.localEdit)

            let invited = ContinuousClock.now
            try await alice.engine.share(list: list.key, with: "bob", permission: .readWrite)
            guard let invitation = try await waitFor({ await bob.engine.snapshot().invitations.first }) else {
                throw BenchError("bob's device never heard of the invitation")
            }
            announced.append(seconds(since: invited) * 1000)

            let start = ContinuousClock.now
            try await bob.engine.accept(invitation.reference)
            let visible = try await waitFor {
                await bob.engine.snapshot().todos(in: .shared).count { $0.key.recordName == list.key.recordName || $0.listName == list.key.recordName } == 21
                    ? true : nil
            }
            guard visible == true else { throw BenchError("the accepted list never showed on bob's device") }
            accepted.append(seconds(since: start) * 1000)
        }
        accepted.sort()
        announced.sort()
        print(String(format: "share accepted -> list (with 20 todos) visible on the participant's device, %d rounds: p50 %.1f ms, p95 %.1f ms, max %.1f ms  (target <= 100 ms)",
                     rounds, percentile(accepted, 0.5), percentile(accepted, 0.95), accepted.last ?? 0))
        print(String(format: "invitation -> announced on the participant's device by push: p50 %.1f ms, p95 %.1f ms",
                     percentile(announced, 0.5), percentile(announced, 0.95)))
        await alice.engine.stop()
        await bob.engine.stop()
        await alice.close()
        await bob.close()
    }

    /// Polls every millisecond for up to 10 s until `probe` answers something.
    static func waitFor<T: Sendable>(_ probe: () async throws -> T?) async throws -> T? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let value = try await probe() { return value }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }
}
