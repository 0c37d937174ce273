import Synchronization

/// One timer for every connection lease of a store: a lease still waiting when its deadline passes is cancelled.
///
/// Every lease has the same timeout, so deadlines come in the order leases begin: a queue in that order, and one task
/// that sleeps until the oldest deadline of a lease still waiting. Beginning and ending a lease is a lock and a table
/// entry, no timer of its own (a timer per lease, set and cancelled by the thousand a second, cost more than the rest of the
/// deadline); the task wakes about once per timeout while leases come, and sleeps without a deadline while none do.
final class LeaseDeadlines: Sendable {
    private struct State {
        /// What to do at the deadline, by lease: only leases still waiting are here.
        var waiting: [UInt64: @Sendable () -> Void] = [:]
        /// Leases by deadline (the order they began); those no longer waiting are skipped when reached.
        var queue: [(lease: UInt64, deadline: ContinuousClock.Instant)] = []
        var head = 0
        var nextLease: UInt64 = 0
        /// The watching task, parked while no lease waits.
        var parked: CheckedContinuation<Void, Never>?
        var stopped = false
    }

    let timeout: Duration
    private let state = Mutex(State())

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Notes a lease that begins waiting; `expire` runs (once, on the watching task) if it still waits at its deadline.
    func begin(_ expire: @escaping @Sendable () -> Void) -> UInt64 {
        let deadline = ContinuousClock.now + timeout
        let (lease, parked) = state.withLock { state -> (UInt64, CheckedContinuation<Void, Never>?) in
            let lease = state.nextLease
            state.nextLease += 1
            state.waiting[lease] = expire
            state.queue.append((lease, deadline))
            defer { state.parked = nil }
            return (lease, state.parked)
        }
        parked?.resume()
        return lease
    }

    /// The lease no longer waits (it got its connection, or ended): no deadline applies to it any more.
    func end(_ lease: UInt64) {
        _ = state.withLock { $0.waiting.removeValue(forKey: lease) }
    }

    /// Watches the deadlines until `stop`; run on a task of its own.
    func run() async {
        while true {
            let next = state.withLock { state -> ContinuousClock.Instant?? in
                if state.stopped { return .some(nil) }
                // Leases that already ended leave the queue here, not one by one.
                while state.head < state.queue.count, state.waiting[state.queue[state.head].lease] == nil { state.head += 1 }
                if state.head == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.head = 0
                    return nil
                }
                if state.head > 1024, state.head * 2 > state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return .some(state.queue[state.head].deadline)
            }
            switch next {
            case .some(nil): return
            case .some(let deadline?):
                try? await Task.sleep(until: deadline, clock: .continuous)
                expireDue()
            case nil:
                await withCheckedContinuation { continuation in
                    let wake = state.withLock { state -> Bool in
                        if state.stopped || !state.waiting.isEmpty { return true }
                        state.parked = continuation
                        return false
                    }
                    if wake { continuation.resume() }
                }
            }
        }
    }

    /// Ends `run`.
    func stop() {
        let parked = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.stopped = true
            defer { state.parked = nil }
            return state.parked
        }
        parked?.resume()
    }

    private func expireDue() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            while state.head < state.queue.count, state.queue[state.head].deadline <= now {
                if let expire = state.waiting.removeValue(forKey: state.queue[state.head].lease) { due.append(expire) }
                state.head += 1
            }
            return due
        }
        for expire in due { expire() }
    }
}
