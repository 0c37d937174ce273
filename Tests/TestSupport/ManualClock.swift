import Foundation

/// Time for tests: real wall time plus an offset the test moves. Short sleeps return at once (and are recorded); long
/// ones park until `advance` lets their time pass, so a test shows a wait by its sleeper, never by a stopwatch.
///
/// Its `now()` and `sleep(seconds:)` match the product's clock protocols; test targets add the conformance.
public final class ManualClock: @unchecked Sendable {
    private struct Waiter {
        var deadline: Double
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var offset: Double = 0
    private var waiters: [UUID: Waiter] = [:]
    private var recorded: [Double] = []
    /// Sleeps shorter than this return at once.
    public let instantBelow: Double

    /// `skew`: seconds this clock is off from the real time.
    public init(instantBelow: Double = 60, skew: Double = 0) {
        self.instantBelow = instantBelow
        offset = skew
    }

    /// The real time plus the offset.
    public func now() -> Date { Date().addingTimeInterval(lock.withLock { offset }) }

    /// Every sleep asked for, in order.
    public var sleeps: [Double] { lock.withLock { recorded } }

    /// How many sleepers are parked, waiting for time to pass.
    public var waiting: Int { lock.withLock { waiters.count } }

    /// Returns at once below `instantBelow` (after a yield); parks longer sleeps until `advance` reaches their end.
    /// Throws `CancellationError` when the sleeping task is cancelled.
    public func sleep(seconds: Double) async throws {
        let deadline: Double = lock.withLock {
            recorded.append(seconds)
            return offset + seconds
        }
        if seconds < instantBelow {
            await Task.yield()
            try Task.checkCancellation()
            return
        }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = lock.withLock {
                    if Task.isCancelled { return true }
                    waiters[id] = Waiter(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Lets `seconds` pass: wakes every sleeper whose end came.
    public func advance(by seconds: Double) {
        let due: [Waiter] = lock.withLock {
            offset += seconds
            let ready = waiters.filter { $0.value.deadline <= offset }
            for id in ready.keys { waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in due { waiter.continuation.resume() }
    }
}
