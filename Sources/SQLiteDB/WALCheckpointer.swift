import CSQLite
import Foundation

/// Runs the WAL checkpoints of one database file on a thread of its own, with a connection of its own, so the
/// connection that writes never stops to copy pages into the database file and wait for the disk.
///
/// The writing connection reports its WAL size after every commit (`sqlite3_wal_hook`, which replaces SQLite's
/// automatic checkpoints); past `threshold` pages this thread is woken for a PASSIVE checkpoint, which neither
/// blocks nor is blocked by the writer. Should the thread fall behind by `limit` pages, the writer checkpoints
/// itself, as SQLite would have. Durability is unchanged: a commit is in the WAL either way.
final class WALCheckpointer: @unchecked Sendable {
    let threshold: Int32
    let limit: Int32
    private let condition = NSCondition()
    private var wanted = false
    private var stopped = false
    private let connection: OpaquePointer

    init(path: String, threshold: Int32) throws {
        self.threshold = threshold
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

    /// Asks for a checkpoint soon (many requests before it runs make one checkpoint).
    func request() {
        condition.withLock {
            wanted = true
            condition.signal()
        }
    }

    /// Ends the thread after any checkpoint under way; it closes its connection.
    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while !wanted && !stopped { condition.wait() }
            let done = stopped
            wanted = false
            condition.unlock()
            if done { break }
            // BUSY (another checkpoint running) or a failure leaves the frames for the next one; nothing is lost.
            _ = sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
        sqlite3_close_v2(connection)
    }
}

/// The commit hook of a connection whose checkpoints run in the background (see `WALCheckpointer`).
func backgroundCheckpointHook(
    context: UnsafeMutableRawPointer?, db: OpaquePointer?, name: UnsafePointer<CChar>?, pages: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    let checkpointer = Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue()
    if pages >= checkpointer.limit {
        _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    } else if pages >= checkpointer.threshold {
        checkpointer.request()
    }
    return SQLITE_OK
}
