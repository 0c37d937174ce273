import TodoUI

/// The effects the key loop hands over while the device is still opening (the embedded cloud starting, a sign-in):
/// kept in the order they came and done once it is open, so nothing the screen already shows is dropped. Once open,
/// effects pass straight through; once opening failed, they are refused with its reason.
@MainActor
final class OpeningQueue {
    private enum Phase {
        case opening
        case open((Effect) async -> Void)
        case failed(String)
    }

    private var phase = Phase.opening
    private var waiting: [Effect] = []

    /// Whether effects wait to be done: kept while opening, or being done by `open(_:)` (an effect leaves the queue
    /// only once done).
    var hasWaiting: Bool { !waiting.isEmpty }

    /// Does `effect` once open and keeps it while opening (nil either way); after a failed opening, answers why it
    /// cannot be done.
    func submit(_ effect: Effect) async -> String? {
        switch phase {
        case .open(let perform):
            await perform(effect)
            return nil
        case .opening:
            waiting.append(effect)
            return nil
        case .failed(let reason):
            return reason
        }
    }

    /// Does the kept effects in order, those handed over meanwhile included, then lets later ones straight through.
    func open(_ perform: @escaping (Effect) async -> Void) async {
        while let next = waiting.first {
            await perform(next)
            waiting.removeFirst()
        }
        phase = .open(perform)
    }

    /// Opening failed for `reason`: answers the kept effects, which will never be done, and refuses later ones.
    func fail(_ reason: String) -> [Effect] {
        phase = .failed(reason)
        defer { waiting.removeAll() }
        return waiting
    }
}
