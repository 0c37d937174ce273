import SQLiteDB

// The trait is for the tests only; the executor below also serves where no test library is linked (`todo-bench`).
#if canImport(Testing)
import Testing

/// A trait for tests that compute for seconds without awaiting (fuzzing, generated corpora, large renders, SQLite
/// files written in bulk): each test case runs with a thread of its own as its task executor preference, instead of
/// on one of the process's few cooperative threads.
///
/// Swift Testing starts every test at once on the cooperative pool, which has one thread per core and never takes a
/// thread back from a body that does not await. Such bodies held both threads for seconds at the start of every run,
/// while tests that talk to an in-process cloud (which answers on the same threads) ran into their timeouts.
public struct ThreadOfItsOwn: TestTrait, SuiteTrait, TestScoping {
    /// The executor of the test case running, for the trait's own test.
    @TaskLocal public static var executor: ThreadTaskExecutor?

    /// On a suite, the trait reaches each of its tests.
    public var isRecursive: Bool { true }

    /// Runs one test case with a new thread as its task executor preference: the body, and whatever it calls that is
    /// not isolated elsewhere, runs there.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let executor = ThreadTaskExecutor(name: "test on a thread of its own")
        defer { executor.stop() }
        try await Self.$executor.withValue(executor) {
            try await withTaskExecutorPreference(executor) { try await function() }
        }
    }
}

extension Trait where Self == ThreadOfItsOwn {
    /// Each test case runs on a thread of its own (see `ThreadOfItsOwn`).
    public static var onThreadOfItsOwn: Self { ThreadOfItsOwn() }
}
#endif
