import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoSync

/// What one push costs the device that listens, counted at its transport: CloudKit's own flow, the changed database's
/// `changes/database`, then `changes/zone` for the zones it names, and the long-poll armed again; no account check.
@Suite("The request budget of a push")
struct PushBudgetTests {
    @Test func onePushCostsTheListeningDeviceAtMostThreeRequests() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let laptop = try await cloud.device("laptop", listen: true)
        let phone = try await cloud.device("phone")
        await laptop.engine.waitUntilIdle()
        // Listening: the laptop's long-poll is out.
        #expect(await eventually { laptop.transport.sentPaths.last?.contains("/courier/") == true })
        let before = laptop.transport.sentPaths.count

        _ = try await phone.engine.add(title: "Milk")
        await phone.engine.waitUntilIdle()
        // The push ends the waiting poll; the laptop fetches, then polls again.
        #expect(try await eventually { try await laptop.titles() == ["Milk"] })
        #expect(await eventually { laptop.transport.sentPaths.dropFirst(before).contains { $0.contains("/courier/") } })
        await laptop.engine.waitUntilIdle()
        let spent = Array(laptop.transport.sentPaths.dropFirst(before))
        #expect(spent.count <= 3, "\(spent)")
        #expect(spent.filter { $0.hasSuffix("private/changes/database") }.count == 1, "\(spent)")
        #expect(spent.filter { $0.hasSuffix("changes/zone") }.count == 1, "\(spent)")
        #expect(!spent.contains { $0.hasSuffix("users/caller") || $0.contains("/shared/") }, "\(spent)")
    }
}
