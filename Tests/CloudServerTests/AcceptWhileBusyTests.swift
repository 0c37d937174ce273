import CloudServer
import Foundation
import Synchronization
import TestSupport
import Testing

/// The cloud accepts, counts and times connections on its event loops, whatever Swift's shared threads are doing:
/// a process whose tasks are all busy (a load spike, a test run) must not leave new connections in the kernel's
/// queue, where neither the idle deadline nor the connection limit reaches them and `/health` waits behind them.
/// Its clouds accept at once (`deferAccept = 0`): the tests hold silent connections, which the deferred accept would
/// keep in the kernel, out of the cloud's reach.
@Suite("Accepting while the shared threads are held")
struct AcceptWhileBusyTests {
    /// How many blockers hold a shared thread, and whether the watcher let them go.
    final class Flags: Sendable {
        let holding = Atomic<Int>(0)
        let released = Atomic<Bool>(false)
    }

    @Test func silentConnectionsAreAcceptedAndClosedWhileEverySharedThreadIsHeld() async throws {
        try await withCloud(configure: { $0.deferAccept = 0; $0.idleTimeout = 2; $0.maxConnectionsPerAddress = 0 }) { cloud in
            let server = cloud.server
            let port = server.port
            let width = ProcessInfo.processInfo.activeProcessorCount
            let flags = Flags()
            // One blocker per shared thread of the cloud's priority (each priority has threads of its own), each computing
            // until the watcher is done (10 s at most): a thread that sleeps would be replaced, one that computes is not.
            let priority = Task.currentPriority
            let blockers = (0..<width).map { _ in
                Task.detached(priority: priority) {
                    flags.holding.add(1, ordering: .sequentiallyConsistent)
                    let start = ContinuousClock.now
                    while !flags.released.load(ordering: .sequentiallyConsistent), ContinuousClock.now - start < .seconds(10) {}
                }
            }
            // The watcher runs on a thread of its own: once every shared thread is held, it opens 60 silent
            // connections and reads how many the cloud holds within 3 s. (Before, it held none of them.)
            let watched = try await onThreadOfItsOwn { () -> (starved: Bool, counted: Int, clients: [RawClient]) in
                defer { flags.released.store(true, ordering: .sequentiallyConsistent) }
                _ = eventuallyBlocking(10) { flags.holding.load(ordering: .sequentiallyConsistent) >= width }
                // Shown held: a task of the cloud's priority started now does not run.
                let probe = Flags()
                Task.detached(priority: priority) { probe.holding.store(1, ordering: .sequentiallyConsistent) }
                let starved = !eventuallyBlocking(0.3) { probe.holding.load(ordering: .sequentiallyConsistent) == 1 }
                let clients = try (0..<60).map { _ in try RawClient(port: port) }
                _ = eventuallyBlocking(3) { server.connectionCount >= clients.count }
                return (starved, server.connectionCount, clients)
            }
            for blocker in blockers { await blocker.value }
            #expect(watched.starved, "a task of the cloud's priority still ran beside the blockers: the test showed nothing")
            #expect(watched.counted == watched.clients.count, "the cloud held \(watched.counted) of 60 while the shared threads were busy")
            // Each is closed by the idle deadline.
            let open = await firstValue(within: .seconds(60)) { () -> Int? in
                let open = watched.clients.filter { $0.drain(); return !$0.isClosed }.count
                return open == 0 ? 0 : nil
            }
            #expect(open == 0, "\(watched.clients.filter { !$0.isClosed }.count) silent connections still open")
        }
    }
}
