import Foundation

/// A few connections handed out one per transaction, first come first served; a taker waits while all are out.
final class ConnectionPool<Connection: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [Connection]
    private var out = 0
    private var waiting: [CheckedContinuation<Connection?, Never>] = []
    private var closed = false
    private var drained: CheckedContinuation<Void, Never>?

    init(_ connections: [Connection]) {
        free = connections
    }

    /// A connection for one transaction, to give back after; nil once the pool is closed.
    func take() async -> Connection? {
        let taken = lock.withLock { () -> Connection?? in
            if closed { return .some(nil) }
            guard let connection = free.popLast() else { return nil }
            out += 1
            return .some(connection)
        }
        if let taken { return taken }
        return await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Connection?? in
                if closed { return .some(nil) }
                if let connection = free.popLast() {
                    out += 1
                    return .some(connection)
                }
                waiting.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Returns a connection: to the next waiter, or to the pool (dropped if it closed meanwhile).
    func giveBack(_ connection: Connection) {
        let (next, done) = lock.withLock { () -> (CheckedContinuation<Connection?, Never>?, CheckedContinuation<Void, Never>?) in
            if !closed, !waiting.isEmpty { return (waiting.removeFirst(), nil) }
            out -= 1
            if closed {
                let done = out == 0 ? drained : nil
                if done != nil { drained = nil }
                return (nil, done)
            }
            free.append(connection)
            return (nil, nil)
        }
        next?.resume(returning: connection)
        done?.resume()
    }

    /// Closes the pool: waiters and later takers get nil; returns once every connection given out is back (and dropped).
    func close() async {
        let waiters = lock.withLock { () -> [CheckedContinuation<Connection?, Never>] in
            closed = true
            free.removeAll()
            let waiters = waiting
            waiting.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lock.withLock { () -> Bool in
                if out == 0 { return true }
                drained = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
