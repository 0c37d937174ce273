import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// Everything the engine runs in the background is owned by it: stopping ends all of it, and the engine runs again.
@Suite("The engine's background work")
struct EngineLifecycleTests {
    @Test func stopEndsEveryTimerAndListenerAndTheEngineRunsAgain() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", listen: true)
        // The public board's poll timer waits on the clock (the test clock parks waits of a minute or more).
        #expect(await eventually { device.clock.waiting > 0 })
        #expect(await eventually { device.transport.sentPaths.contains { $0.contains("/courier/") } })

        await device.engine.stop()
        // Nothing waits any more: the timer was cancelled and awaited, not left to wake up later.
        #expect(device.clock.waiting == 0)
        let after = device.transport.sentPaths.count

        // Stopped, the engine still syncs on demand.
        _ = try await device.engine.add(title: "After the stop")
        await device.engine.sync(.localEdit)
        #expect(try await device.store.pendingCount() == 0)
        #expect(!device.transport.sentPaths.dropFirst(after).contains { $0.contains("/courier/") })
    }
}
