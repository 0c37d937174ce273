import Foundation

/// Time as the sync engine sees it: the current time and waiting; injected so tests never sleep.
public protocol SyncClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Waits `seconds` (throws on cancellation).
    func sleep(seconds: Double) async throws
}

extension SyncClock {
    /// The current time in milliseconds since 1970, as record timestamps count it.
    public func nowMilliseconds() -> Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded()) }
}

/// The real clock: wall time and `Task.sleep`.
public struct SystemClock: SyncClock {
    /// The system clock.
    public init() {}

    /// The wall-clock time.
    public func now() -> Date { Date() }

    /// The longest single sleep (a day): longer asks are cut to it rather than overflowing the nanosecond count.
    public static let longestSleep: Double = 86_400

    /// Sleeps for real; NaN and non-positive times return at once, anything longer than a day sleeps a day.
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, Self.longestSleep) * 1_000_000_000))
    }
}
