import CloudModel
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import CloudServer

/// A transaction of the PostgreSQL store waits for a connection only so long: past its deadline it is refused with
/// `TRY_AGAIN_LATER`, while one that got its connection runs as long as its statements take.
@Suite("PostgreSQL: waiting for a connection")
struct PostgresLeaseTests {
    @Test func aWaitPastTheDeadlineIsRefusedWhileTheHolderFinishesAndACancelledWaitEnds() async throws {
        try await PostgresTestDatabase.with { database in
            let store = try await PostgresCloudStore.open(
                database.url, logger: Logger(label: "lease-test"), maximumConnections: 1, leaseTimeout: .seconds(2))
            // The pool's one connection is made here, so the holder below need not wait for a connect. Making it is
            // set-up, not the deadline under test: on a loaded machine a connect has taken longer than the 2 s, so
            // the first lease is asked for again until it comes.
            #expect(await firstValue { try? await store.leased { _ in 1 } } == 1)
            let (holding, held) = AsyncStream.makeStream(of: Void.self)
            let (released, release) = AsyncStream.makeStream(of: Void.self)
            let holder = Task {
                try await store.leased { connection in
                    held.yield()
                    // Held until the waiter below was refused: longer than the deadline, which no longer applies.
                    for await _ in released { break }
                    return try await connection.query("SELECT 2", logger: store.logger).collect().count
                }
            }
            for await _ in holding { break }
            do {
                _ = try await store.leased { _ in 0 }
                Issue.record("a lease past its deadline ran")
            } catch let error as ServerError {
                #expect(error.serverErrorCode == .tryAgainLater && error.reason.contains("did not answer in time"), "\(error)")
            }
            // A waiter whose request is cancelled gives up its place at once: it does not wait for the holder.
            let waiter = Task { try await store.leased { _ in 0 } }
            waiter.cancel()
            await #expect(throws: (any Error).self) { try await waiter.value }
            release.yield()
            #expect(try await holder.value == 1)
            #expect(try await store.leased { _ in 3 } == 3)
            await store.shutDown()
        }
    }
}
