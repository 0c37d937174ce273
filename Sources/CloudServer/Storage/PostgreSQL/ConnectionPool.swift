import Synchronization

/// A few connections handed out one per transaction, first come first served; a taker waits while all are out.
final class ConnectionPool<Connection: Sendable>: Sendable {
    private struct State {
        var free: [Connection]
        var out = 0
        var waiting: [CheckedContinuation<Connection?, Never>] = []
        var closed = false
        var drained: CheckedContinuation<Void, Never>?
    }
    private let state: Mutex<State>

    init(_ connections: [Connection]) {
        state = Mutex(State(free: connections))
    }

    /// A connection for one transaction, to give back after; nil once the pool is closed.
    func take() async -> Connection? {
        let taken = state.withLock { state -> Connection?? in
            if state.closed { return .some(nil) }
            guard let connection = state.free.popLast() else { return nil }
            state.out += 1
            return .some(connection)
        }
        if let taken { return taken }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Connection?? in
                if state.closed { return .some(nil) }
                if let connection = state.free.popLast() {
                    state.out += 1
                    return .some(connection)
                }
                state.waiting.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Returns a connection: to the next waiter, or to the pool (dropped if it closed meanwhile).
    func giveBack(_ connection: Connection) {
        let (next, done) = state.withLock { state -> (CheckedContinuation<Connection?, Never>?, CheckedContinuation<Void, Never>?) in
            if !state.closed, !state.waiting.isEmpty { return (state.waiting.removeFirst(), nil) }
            state.out -= 1
            if state.closed {
                let done = state.out == 0 ? state.drained : nil
                if done != nil { state.drained = nil }
                return (nil, done)
            }
            state.free.append(connection)
            return (nil, nil)
        }
        next?.resume(returning: connection)
        done?.resume()
    }

    /// Closes the pool: waiters and later takers get nil; returns once every connection given out is back (and dropped).
    func close() async {
        let waiters = state.withLock { state -> [CheckedContinuation<Connection?, Never>] in
            state.closed = true
            state.free.removeAll()
            let waiters = state.waiting
            state.waiting.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.out == 0 { return true }
                state.drained = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
