import Foundation
import Synchronization
import TodoSync

#if canImport(Glibc)
import Glibc
#endif

/// One line of progress on standard error, rewritten in place, for work that can take seconds (an import).
///
/// Only on a terminal: when standard error is a file or a pipe (scripts, logs), or with `--quiet`, nothing is written.
/// Updates come at most every 0.1 s; `clear()` removes the line before the result is printed.
final class ProgressLine: Sendable {
    private struct Shown {
        var at: ContinuousClock.Instant?
        var visible = false
    }
    private let enabled: Bool
    /// Held while writing too: two lines never interleave.
    private let shown = Mutex(Shown())

    /// A progress line, drawn only if `enabled` and standard error is a terminal.
    init(enabled: Bool) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
    }

    /// Shows `text` (the first time at once, then at most every 0.1 s).
    func show(_ text: String) {
        guard enabled else { return }
        shown.withLock { shown in
            let now = ContinuousClock.now
            if let last = shown.at, now - last < .milliseconds(100) { return }
            shown.at = now
            shown.visible = true
            Self.write("\r\u{1B}[2K" + text)
        }
    }

    /// Removes the line.
    func clear() {
        guard enabled else { return }
        shown.withLock { shown in
            if shown.visible { Self.write("\r\u{1B}[2K") }
            shown = Shown()
        }
    }

    /// Runs `body` (a send) while showing how many changes are left to send, then removes the line.
    func whileSending(_ session: DeviceSession, _ body: () async throws -> Void) async throws {
        guard enabled else { return try await body() }
        let (_, wakeups) = await session.engine.changeReader()
        let watcher = Task { [self] in
            for await state in wakeups where state.isSyncing && state.pendingCount > 0 {
                show("Sending todos: \(state.pendingCount) left")
            }
        }
        let outcome: Result<Void, any Error>
        do {
            try await body()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        watcher.cancel()
        await watcher.value  // no line is drawn after the one cleared here
        clear()
        try outcome.get()
    }

    private static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
