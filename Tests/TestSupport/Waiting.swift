import Foundation

/// How often the waits below look again at what they wait for.
public let conditionCheckInterval: Duration = .milliseconds(10)

/// Waits until `condition` holds, looking again every 10 ms, for at most `seconds` of real time; whether it held.
///
/// For what travels through the network or another process, where no event reaches the test: the wait ends as soon as
/// the condition holds, so `seconds` is a bound for failure only, never a duration a test depends on.
public func eventually(
    _ seconds: Double = 10, isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: conditionCheckInterval)
    }
    return try await condition()
}

/// `eventually` for synchronous callers (a thread of their own, not the cooperative pool).
public func eventuallyBlocking(_ seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return try condition()
}
