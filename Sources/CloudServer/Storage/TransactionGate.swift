import Synchronization

/// Lets one holder at a time through, in the order they came: the transactions of a store that has one connection
/// (or one writer), whose bodies may suspend and so cannot rely on an actor's isolation.
final class TransactionGate: Sendable {
    private struct State {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// Runs `body` once every holder before it has left; the next one enters when it returns or throws.
    func withTurn<T>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        let admitted = state.withLock { state -> Bool in
            guard !state.held else { return false }
            state.held = true
            return true
        }
        if admitted { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if !state.held {
                    state.held = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.held = false
                return nil
            }
            // The turn passes straight to the next one: `held` stays true.
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
