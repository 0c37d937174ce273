import SQLiteDB
import TestSupport
import Testing

/// The trait that keeps long computations off the cooperative pool runs a test's body where it says.
@Suite("Tests on a thread of their own")
struct ThreadOfItsOwnTests {
    @Test(.onThreadOfItsOwn) func aSynchronousBodyRunsOnTheTraitsThread() throws {
        #expect(try #require(ThreadOfItsOwn.executor).isCurrentThread)
    }

    @Test(.onThreadOfItsOwn) func anAsynchronousBodyComesBackToItAfterAnAwait() async throws {
        let executor = try #require(ThreadOfItsOwn.executor)
        #expect(executor.isCurrentThread)
        await Task.yield()
        try await Task.sleep(for: .milliseconds(1))
        #expect(executor.isCurrentThread)
    }
}
