import CSQLite
import Foundation

/// Runs the WAL checkpoints of one database file on a thread of its own, with a connection of its own, so the
/// connection that writes never stops to copy pages into the database file and wait for the disk.
///
/// The writing connection reports its WAL size after every commit (`sqlite3_wal_hook`, which replaces SQLite's
/// automatic checkpoints); past `threshold` pages this thread is woken for a PASSIVE checkpoint, which neither
/// blocks nor is blocked by the writer. With a `quietPeriod`, the checkpoint waits until no commit came for that
/// long (or the WAL reached `urgent` pages): a burst of writes is not slowed by copying its own pages, and a page
/// written many times in it is copied once. Should the thread fall behind by `limit` pages, the writer checkpoints
/// itself, as SQLite would have. Durability is unchanged: a commit is in the WAL either way.
final class WALCheckpointer: @unchecked Sendable {
    let threshold: Int32
    let urgent: Int32
    let limit: Int32
    let quietPeriod: Double
    private let condition = NSCondition()
    private var wanted = false
    private var pressing = false
    private var lastCommit = Date.distantPast
    private var stopped = false
    private var finished = false
    /// Pages in the WAL after the last commit, as the commit hook reported them.
    private var walPages: Int32 = 0
    private let connection: OpaquePointer

    init(path: String, threshold: Int32, quietPeriod: Double = 0) throws {
        self.threshold = threshold
        self.quietPeriod = quietPeriod
        urgent = quietPeriod > 0 ? threshold * 4 : threshold
        limit = threshold * 8
        let db = try SQLiteDatabase.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        connection = db
        // A connection learns the file is in WAL mode only when it first reads it: until then a checkpoint does nothing.
        let read = sqlite3_exec(db, "PRAGMA journal_mode", nil, nil, nil)
        guard read == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            throw SQLiteError(code: read, message: message, sql: "PRAGMA journal_mode")
        }
        let thread = Thread { [self] in run() }
        thread.name = "sqlite-checkpoint"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Asks for a checkpoint soon, after a commit that left `pages` in the WAL (many requests before it runs make
    /// one checkpoint).
    func request(pages: Int32) {
        condition.withLock {
            wanted = true
            lastCommit = Date()
            if pages >= urgent { pressing = true }
            condition.broadcast()
        }
    }

    /// Asks for a checkpoint at once, without waiting for a pause, when the last commit left at least `minimum`
    /// pages in the WAL (see `SQLiteDatabase.checkpointSoon`).
    func requestNow(minimum: Int32) {
        condition.withLock {
            guard walPages >= minimum else { return }
            wanted = true
            pressing = true
            condition.broadcast()
        }
    }

    /// Notes the WAL's size after a commit.
    func noteCommit(pages: Int32) {
        condition.withLock { walPages = pages }
    }

    /// Ends the thread after any checkpoint under way and waits until it closed its connection, so the writing
    /// connection, closed next, is the file's last one: SQLite then copies what the WAL still holds into the file
    /// and removes the WAL, and the next process to open the file need not read the WAL to rebuild its index.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
            while !finished { condition.wait() }
        }
    }

    private func run() {
        while true {
            condition.lock()
            while !wanted && !stopped { condition.wait() }
            // Writes still coming: wait for a pause, unless the WAL grew too long meanwhile.
            while quietPeriod > 0 && !pressing && !stopped && Date().timeIntervalSince(lastCommit) < quietPeriod {
                _ = condition.wait(until: lastCommit.addingTimeInterval(quietPeriod))
            }
            let done = stopped
            wanted = false
            pressing = false
            condition.unlock()
            if done { break }
            // BUSY (another checkpoint running) or a failure leaves the frames for the next one; nothing is lost.
            _ = sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
        sqlite3_close_v2(connection)
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }
}

/// The commit hook of a connection whose checkpoints run in the background (see `WALCheckpointer`).
func backgroundCheckpointHook(
    context: UnsafeMutableRawPointer?, db: OpaquePointer?, name: UnsafePointer<CChar>?, pages: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    let checkpointer = Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
    checkpointer.noteCommit(pages: pages)
    if pages >= checkpointer.limit {
        _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    } else if pages >= checkpointer.threshold {
        checkpointer.request(pages: pages)
    }
    return SQLITE_OK
}
