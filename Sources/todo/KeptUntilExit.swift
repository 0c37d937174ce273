import Synchronization

/// Values a command has finished with, kept until the process exits instead of being freed just before it does.
///
/// A command line's last act is `exit`, which returns the whole heap at once; freeing a large import's todos one by
/// one first (each todo's strings and lists) cost 2,400 instructions a todo, 3 % of an import of 10,000, and freed
/// nothing anyone could use. Only for values that live to the command's end anyway: keeping them adds no memory.
enum KeptUntilExit {
    private static let kept = Mutex<[any Sendable]>([])

    /// Keeps `value` until the process exits.
    static func keep(_ value: some Sendable) {
        kept.withLock { $0.append(value) }
    }
}
