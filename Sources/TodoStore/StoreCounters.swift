import Synchronization

/// How often the store was asked for what the sync engine's budgets count: sync-state reads, reads of a record by
/// its key, and outbox read connections opened. Off until `start()` (a test's counting store); then each counted
/// call costs one lock.
public final class StoreCounters: Sendable {
    /// The counts since `start()`.
    public struct Counts: Sendable, Hashable {
        /// `syncState()` calls.
        public var syncStateReads = 0
        /// Reads of each record by its key (`todo(_:)`, `mapTodos(keys:)`).
        public var recordReads: [RecordKey: Int] = [:]
        /// Outbox read connections opened (`outboxReader()`).
        public var outboxReaders = 0
    }

    private struct State {
        var counting = false
        var counts = Counts()
    }

    private let state = Mutex(State())

    /// Counters that count nothing until started.
    public init() {}

    /// Starts counting from zero.
    public func start() { state.withLock { $0 = State(counting: true) } }

    /// The counts so far.
    public var counts: Counts { state.withLock { $0.counts } }

    func syncStateRead() { state.withLock { if $0.counting { $0.counts.syncStateReads += 1 } } }

    func recordsRead(_ keys: [RecordKey]) {
        state.withLock { state in
            guard state.counting else { return }
            for key in keys { state.counts.recordReads[key, default: 0] += 1 }
        }
    }

    func outboxReaderOpened() { state.withLock { if $0.counting { $0.counts.outboxReaders += 1 } } }
}
