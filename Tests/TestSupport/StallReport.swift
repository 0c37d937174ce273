import Foundation
import Synchronization

/// Names work that has not ended long after it began, on standard error, once each: a test process that stops with
/// every thread idle then says which test and which step it waits in (a stuck task shows in no thread's stack).
public enum StallReport {
    private struct Watched {
        var label: String
        var detail: @Sendable () -> String
        var start: ContinuousClock.Instant
        var reported = false
    }

    /// How long work may run before it is named.
    public static let threshold: Duration = .seconds(180)

    private static let inFlight = Mutex<[Int: Watched]>([:])
    private static let nextID = Atomic<Int>(0)
    /// The watching thread, started with the first watched work.
    private static let watcher: Void = {
        Thread.detachNewThread { watch() }
    }()

    /// Runs `work`, named `label` on standard error should it still run after `threshold`, with what `detail` says
    /// then.
    public static func watching<T>(
        _ label: @autoclosure () -> String, detail: @escaping @Sendable () -> String = { "" }, isolation: isolated (any Actor)? = #isolation,
        _ work: () async throws -> T
    ) async rethrows -> T {
        _ = watcher
        let id = nextID.add(1, ordering: .relaxed).newValue
        let watched = Watched(label: label(), detail: detail, start: .now)
        inFlight.withLock { $0[id] = watched }
        defer { inFlight.withLock { $0[id] = nil } }
        return try await work()
    }

    private static func watch() {
        while true {
            Thread.sleep(forTimeInterval: 10)
            let now = ContinuousClock.now
            let late = inFlight.withLock { watched in
                watched.filter { !$0.value.reported && now - $0.value.start > threshold }.map { id, entry in
                    watched[id]?.reported = true
                    let detail = entry.detail()
                    return "\(entry.label): still running after \(now - entry.start)\(detail.isEmpty ? "" : " (\(detail))")\n"
                }
            }
            for line in late { FileHandle.standardError.write(Data(("STALLED " + line).utf8)) }
        }
    }
}
