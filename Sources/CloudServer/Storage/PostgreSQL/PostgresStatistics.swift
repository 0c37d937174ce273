import Synchronization

/// When the PostgreSQL store asks for fresh planner statistics of `records`.
///
/// A feed page (`WHERE zone_pk = $1 AND seq > $2 ORDER BY seq LIMIT $3`) is an index scan that stops after one page,
/// or, when the planner believes the table is small, a scan of every later row and a sort: one page then costs as
/// much as all the rest, and reading a zone grows with the square of its size (measured: 30,000 fresh records read
/// back at ~10,000 records/s). Autovacuum analyzes a table only after it grew by a tenth and its nap (a minute), too
/// late for a device reading right after a big upload. So each instance counts the records it wrote and asks for
/// `ANALYZE records` after 2,000 of them, then after twice as many each time (at most every 256,000): a handful of
/// quick sampled ANALYZEs while a cloud grows, none once it is steady.
final class PostgresStatistics: Sendable {
    private struct State {
        var sinceAnalyze = 0
        var nextAt = PostgresStatistics.firstThreshold
        var running = false
    }

    static let firstThreshold = 2_000
    static let largestThreshold = 256_000
    private let state = Mutex(State())

    /// Counts `records` written by a committed transaction; true when an ANALYZE is due now (the caller runs it, then
    /// calls `analyzed()`). Only one is due at a time.
    func noteWritten(_ records: Int) -> Bool {
        guard records > 0 else { return false }
        return state.withLock { state in
            state.sinceAnalyze += records
            guard !state.running, state.sinceAnalyze >= state.nextAt else { return false }
            state.running = true
            return true
        }
    }

    /// The ANALYZE asked for ended (done or failed): counting starts again towards a threshold twice as far.
    func analyzed() {
        state.withLock { state in
            state.running = false
            state.sinceAnalyze = 0
            state.nextAt = min(state.nextAt * 2, Self.largestThreshold)
        }
    }
}
