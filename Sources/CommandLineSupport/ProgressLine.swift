import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One line of progress on standard error, rewritten in place, for work that can take seconds (an import).
///
/// Only on a terminal: when standard error is a file or a pipe (scripts, logs), or with `--quiet`, nothing is written.
/// Updates come at most every 0.1 s; `clear()` removes the line before the result is printed.
public final class ProgressLine: Sendable {
    private struct Shown {
        var at: ContinuousClock.Instant?
        var visible = false
    }
    /// Whether lines are drawn (asked for, and standard error is a terminal).
    public let enabled: Bool
    /// Held while writing too: two lines never interleave.
    private let shown = Mutex(Shown())

    /// A progress line, drawn only if `enabled` and standard error is a terminal.
    public init(enabled: Bool) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
    }

    /// Shows `text` (the first time at once, then at most every 0.1 s).
    public func show(_ text: String) {
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
    public func clear() {
        guard enabled else { return }
        shown.withLock { shown in
            if shown.visible { Self.write("\r\u{1B}[2K") }
            shown = Shown()
        }
    }

    private static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
