import Foundation
import Synchronization

// Absent where a release tool links these helpers (`todo-bench` starts nginx with them, with the static runtime).
#if canImport(Testing)
import Testing
#endif

/// The waits' bound for failure when a test names none, in seconds (see `firstValue`). Measured in whole runs on 2
/// cores: starting a test cloud has taken 15 s, and a TLS connection over the per-address cap that closes in
/// milliseconds alone was seen closed only after 30 s and more, the cloud's accepts waiting on the shared
/// cooperative threads that hundreds of tests at once keep busy.
public let defaultWaitBound: Double = 90

/// How often the waits below look again at what they wait for.
public let conditionCheckInterval: Duration = .milliseconds(10)

/// Looks at `produce` every 10 ms until it gives a value, for at most `seconds` of real time; that value, or nil.
///
/// For what travels through the network or another process, where no event reaches the test: the wait ends as soon as
/// there is a value, so `seconds` is a bound for failure only, never a duration a test depends on. It runs in the
/// caller's isolation, so `produce` may read the caller's state.
///
/// The default bound is generous on purpose: the whole suite starts at once on 2 cores with its clouds, PostgreSQL,
/// nginx and child processes, and a hop that takes milliseconds alone has waited more than 30 s there.
public func firstValue<T>(
    within seconds: Double = defaultWaitBound, isolation: isolated (any Actor)? = #isolation, _ produce: () async throws -> T?
) async rethrows -> T? {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if let value = try await produce() { return value }
        try? await Task.sleep(for: conditionCheckInterval)
    }
    return try await produce()
}

/// `firstValue` with its bound as a `Duration`.
public func firstValue<T>(
    within limit: Duration, isolation: isolated (any Actor)? = #isolation, _ produce: () async throws -> T?
) async rethrows -> T? {
    try await firstValue(within: seconds(limit), produce)
}

/// `firstValueBlocking` with its bound as a `Duration`.
public func firstValueBlocking<T>(
    within limit: Duration, fileID: String = #fileID, line: Int = #line, _ produce: () throws -> T?
) rethrows -> T? {
    try firstValueBlocking(within: seconds(limit), fileID: fileID, line: line, produce)
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// `firstValue` for synchronous callers (a thread of their own, not the cooperative pool).
///
/// A test that calls it inside a task fails: the thread it holds is one of the few every task of the process shares
/// (the cloud under test answers on them too), and holding it for seconds stalled unrelated tests into timeouts.
public func firstValueBlocking<T>(
    within seconds: Double = 10, fileID: String = #fileID, line: Int = #line, _ produce: () throws -> T?
) rethrows -> T? {
    refuseBlockingInATask("a blocking wait", at: "\(fileID):\(line)")
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if let value = try produce() { return value }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return try produce()
}

/// Waits until `condition` holds (see `firstValue`), for at most `seconds`; whether it held.
public func eventually(
    _ seconds: Double = defaultWaitBound, isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    try await firstValue(within: seconds) { try await condition() ? true : nil } != nil
}

/// `eventually` for synchronous callers.
public func eventuallyBlocking(
    _ seconds: Double = 10, fileID: String = #fileID, line: Int = #line, _ condition: () throws -> Bool
) rethrows -> Bool {
    try firstValueBlocking(within: seconds, fileID: fileID, line: line) { try condition() ? true : nil } != nil
}

/// What `waitUntil` throws when its condition never held.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    /// The failure in words.
    public var description: String { "timed out waiting for \(what)" }
}

/// Waits until `condition` holds (see `firstValue`), for at most `seconds`; throws `WaitTimedOut` naming `what` when it
/// never did, for tests that cannot go on without it.
public func waitUntil(
    _ what: String = "condition", within seconds: Double = 30, isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async throws {
    guard try await eventually(seconds, condition) else { throw WaitTimedOut(what: what) }
}

/// Milliseconds since 1970 on the wall clock, the unit the cloud stamps its rows in.
public var wallClockMillis: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

/// Returns once the wall clock reads a later millisecond than `millis` (by default the one at the call): for a cloud
/// that compares its own stamps with a zero retention, "older than now" then holds for everything written before.
public func waitForWallClock(toPass millis: Int64 = wallClockMillis, isolation: isolated (any Actor)? = #isolation) async throws {
    try await waitUntil("the wall clock to pass \(millis) ms") { wallClockMillis > millis }
}

/// Whether `condition` holds at every look for `seconds` (looking every 10 ms). Only for absence, where nothing the
/// product does can say "it did not happen" (a copy not made, a message not sent): the one fixed span a test may
/// spend, kept short and named at the call.
public func holdsThroughout(
    _ seconds: Double, isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    try await firstValue(within: seconds) { try await condition() ? nil : false } == nil
}

/// Records a test failure naming `place` (the caller's file and line) when it runs inside a task: `what` would hold
/// one of the threads all tasks share. Synchronous code on a thread of its own (a scripted server's, a reaper) passes.
public func refuseBlockingInATask(_ what: String, at place: String) {
    guard withUnsafeCurrentTask(body: { $0 != nil }) else { return }
    let message = "\(what) inside a task at \(place) holds a thread every task shares: use the async form"
    #if canImport(Testing)
    Issue.record(Comment(rawValue: message))
    #else
    FileHandle.standardError.write(Data((message + "\n").utf8))
    #endif
}

/// Runs blocking `work` (a tool that takes seconds, waited for) on a new thread and awaits its result, so that no
/// thread the tasks share is held meanwhile.
public func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Runs `work` in a task of its own and waits for it to end, for at most `seconds`; whether it ended. For a step
/// that must end by an event (a stop, a shutdown, a quit) while something it should end asks to wait for minutes:
/// the test goes on either way, and a step that did not end is cancelled.
public func ends(within seconds: Double = 30, _ work: @escaping @Sendable () async -> Void) async -> Bool {
    let ended = Mutex(false)
    let task = Task {
        await work()
        ended.withLock { $0 = true }
    }
    let done = await eventually(seconds) { ended.withLock { $0 } }
    if !done { task.cancel() }
    return done
}
