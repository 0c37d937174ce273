import Foundation

/// Lets one holder at a time through, in the order they came: the transactions of a store that has one connection
/// (or one writer), whose bodies may suspend and so cannot rely on an actor's isolation.
final class TransactionGate: @unchecked Sendable {
    private let lock = NSLock()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once every holder before it has left; the next one enters when it returns or throws.
    func withTurn<T>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        let admitted = lock.withLock { () -> Bool in
            guard !held else { return false }
            held = true
            return true
        }
        if admitted { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = lock.withLock {
                if !held {
                    held = true
                    return true
                }
                waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            if waiting.isEmpty {
                held = false
                return nil
            }
            // The turn passes straight to the next one: `held` stays true.
            return waiting.removeFirst()
        }
        next?.resume()
    }
}
