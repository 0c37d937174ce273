import Foundation

/// Where SQLite may be called: its calls block (disk reads, fsync at commit, waits for another connection's lock), so
/// they stay off the threads Swift's tasks share.
///
/// SQLite may be called on a `ThreadTaskExecutor`'s thread, by code that runs outside any task (a thread of its own,
/// a synchronous program's main thread), and inside `allowBlocking`. Debug builds trap when a connection to a file is
/// opened, prepares, steps or closes anywhere else: that is a task on the cooperative pool (or on another shared
/// executor, such as an event loop). A private `:memory:` connection never waits for a disk or a lock; it is
/// exempt, as any other computation is.
extension SQLiteDatabase {
    /// Runs `body` with SQLite allowed on this thread, even inside a task.
    ///
    /// Only for tests that open a database on their own task, and for short synchronous tools (command-line verbs
    /// that run no other async work meanwhile): nothing else waits for the thread they hold. Code that serves
    /// requests or a terminal uses a `ThreadTaskExecutor` instead.
    public static func allowBlocking<T>(_ body: () throws -> T) rethrows -> T {
        #if DEBUG
            let depth = BlockingPermit.depth
            BlockingPermit.depth = depth + 1
            defer { BlockingPermit.depth = depth }
        #endif
        return try body()
    }

    /// Marks the current thread as one of its own (a `ThreadTaskExecutor`'s): SQLite may be called on it.
    static func markBlockingThread() {
        #if DEBUG
            BlockingPermit.depth = 1
        #endif
    }

    /// Traps in debug builds when SQLite is called where it must not block (see above).
    @inline(__always)
    func checkMayBlock() {
        #if DEBUG
            if path != ":memory:" { BlockingPermit.check(path) }
        #endif
    }
}

#if DEBUG
    /// The per-thread permission behind `allowBlocking` and `markBlockingThread`.
    enum BlockingPermit {
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key for the SQLite check")
            return key
        }()

        /// How many `allowBlocking` scopes (or the thread's mark) hold the current thread.
        static var depth: Int {
            get { Int(bitPattern: pthread_getspecific(key)) }
            set { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
        }

        static func check(_ path: String) {
            guard depth == 0, withUnsafeCurrentTask(body: { $0 != nil }) else { return }
            fatalError(
                "SQLite called on a task's shared thread (\(path)): run it on a ThreadTaskExecutor, or in a test or a short "
                    + "synchronous tool inside SQLiteDatabase.allowBlocking")
        }
    }
#endif
