/// The size of a terminal in columns and rows.
public struct TerminalSize: Hashable, Sendable {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// What the UI needs from a terminal: its size, drawing a whole screen, reading keys, restoring.
///
/// Drivers are not thread-safe; use one from a single task (the UI loop on the main actor).
public protocol TerminalDriver: AnyObject {
    /// The current size; read again after a `.resize` key.
    var size: TerminalSize { get }
    /// Displays `screen`; only cells that changed since the last frame need to reach the terminal.
    func draw(_ screen: Screen)
    /// Waits up to `timeout` (nil: forever, zero: just poll) for a key.
    func readKey(timeout: Duration?) -> Key?
    /// Restores the terminal to the state it had before; safe to call more than once.
    func shutdown()
    /// Hands the terminal to another program (an editor) until `resume()`.
    func suspend()
    /// Takes the terminal back after `suspend()`; the next frame is drawn whole.
    func resume()
}

extension TerminalDriver {
    /// Nothing to hand over (an in-memory terminal).
    public func suspend() {}
    /// Nothing to take back.
    public func resume() {}
}

/// An in-memory terminal for tests: fixed size, scripted keys, the last frame kept as text.
public final class TextTerminal: TerminalDriver {
    /// The current size (change it with `resize(to:)`).
    public private(set) var size: TerminalSize
    /// Keys still to be returned by `readKey`, first first.
    public var pendingKeys: [Key]
    /// The last screen drawn, if any.
    public private(set) var lastScreen: Screen?
    /// Number of frames drawn so far.
    public private(set) var frameCount = 0
    /// True once `shutdown()` was called.
    public private(set) var isShutDown = false

    /// Creates a terminal of the given size with a script of keys.
    public init(width: Int, height: Int, keys: [Key] = []) {
        size = TerminalSize(width: width, height: height)
        pendingKeys = keys
    }

    /// The last frame as plain text, trailing spaces removed ("" before the first frame).
    public var text: String { lastScreen?.text ?? "" }

    /// Changes the size and queues a `.resize` key, as a real terminal would.
    public func resize(to newSize: TerminalSize) {
        size = newSize
        pendingKeys.insert(.resize, at: 0)
    }

    /// Records `screen` as the last frame.
    public func draw(_ screen: Screen) {
        lastScreen = screen
        frameCount += 1
    }

    /// Returns the next scripted key, or nil when the script is exhausted.
    public func readKey(timeout: Duration?) -> Key? {
        pendingKeys.isEmpty ? nil : pendingKeys.removeFirst()
    }

    /// Marks the terminal as shut down.
    public func shutdown() {
        isShutDown = true
    }
}
