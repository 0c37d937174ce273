import CSQLite
import Foundation

/// A value bound to, or read from, an SQL statement.
public enum SQLValue: Sendable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
}

/// An SQLite failure, with the statement that caused it.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary SQLite result code (`SQLITE_FULL`, `SQLITE_CONSTRAINT`, …).
    public var code: Int32
    public var message: String
    public var sql: String?

    /// `SQLITE_FULL`: the disk (or quota) is full.
    public static let full = SQLITE_FULL
    /// `SQLITE_READONLY`: the database cannot be written.
    public static let readOnly = SQLITE_READONLY
    /// `SQLITE_PERM`: access denied.
    public static let permission = SQLITE_PERM
    /// `SQLITE_CANTOPEN`: the file cannot be opened.
    public static let cannotOpen = SQLITE_CANTOPEN
    /// `SQLITE_IOERR`: a read or write of the disk failed.
    public static let ioError = SQLITE_IOERR

    /// Whether the disk (or quota) is full, so the write was refused whole.
    public var isDiskFull: Bool { code == SQLITE_FULL }
    /// Whether a uniqueness or other constraint refused the write.
    public var isConstraint: Bool { code == SQLITE_CONSTRAINT }

    public var description: String {
        if isDiskFull { return "the disk is full: \(message)" }
        return "SQLite error \(code): \(message)" + (sql.map { " in \($0.prefix(120))" } ?? "")
    }
}

/// One SQLite connection. Not thread-safe: exactly one owner (an actor or a lock) uses it at a time, on a thread where
/// it may block (see `allowBlocking`).
public final class SQLiteDatabase: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var cache: [String: Statement] = [:]
    private var checkpointer: WALCheckpointer?
    /// The file this connection opened.
    public let path: String

    /// Opens (creating if needed) a database file; `":memory:"` for a private in-memory one.
    public init(path: String, readOnly: Bool = false) throws {
        _ = Self.configured
        self.path = path
        checkMayBlock()
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let db = try Self.open(path, flags: flags)
        handle = db
        sqlite3_extended_result_codes(db, 0)
        // Its sorts and temporary tables stay in memory too, so it never touches a disk (see `checkMayBlock`).
        if path == ":memory:" { sqlite3_exec(db, "PRAGMA temp_store=MEMORY", nil, nil, nil) }
    }

    /// A raw connection to `path` that waits up to 5 s for a lock, or the reason it cannot be opened.
    static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: "\(message) (\(path))", sql: nil)
        }
        sqlite3_busy_timeout(db, 5000)
        // Plans that do not depend on bound values: the one LIKE we have (a tag filter, on a column no index covers)
        // made SQLite prepare its statement twice, 0.5 M instructions of a `todo list +home`.
        _ = csqlite_keep_plans_whatever_is_bound(db)
        return db
    }

    deinit {
        checkMayBlock()
        cache.removeAll()
        if let checkpointer {
            sqlite3_wal_hook(handle, nil, nil)
            checkpointer.stop()
        }
        sqlite3_close_v2(handle)
    }

    /// Process-wide settings, applied once before the first connection opens: no memory statistics (we never
    /// read them, and keeping them costs a global lock per allocation).
    private static let configured: Void = { _ = csqlite_disable_memory_statistics() }()

    /// Turns on WAL journaling with the durability our acknowledgements promise.
    public func configureForDurableWAL() throws {
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
    }

    /// Moves this WAL database's checkpoints to a background thread: commits no longer stop to copy pages into the
    /// database file (and wait for the disk) every `pages` pages of WAL; with a `quietPeriod` (seconds), a checkpoint
    /// waits for a pause in the writes that long. Call once, after `journal_mode=WAL`.
    public func checkpointInBackground(everyPages pages: Int32 = 1000, quietPeriod: Double = 0) throws {
        guard checkpointer == nil, path != ":memory:" else { return }
        let worker = try WALCheckpointer(path: path, threshold: max(pages, 1), quietPeriod: quietPeriod)
        checkpointer = worker
        sqlite3_wal_hook(handle, backgroundCheckpointHook, Unmanaged.passUnretained(worker).toOpaque())
    }

    /// Has the background checkpointer copy the WAL into the file now, beside whatever comes next, when the last
    /// commit left at least `minimumPages` there: a burst of writes just ended, and the close or the next writes
    /// then find little left to copy. Does nothing without `checkpointInBackground`.
    public func checkpointSoon(minimumPages: Int32 = 128) {
        checkpointer?.requestNow(minimum: minimumPages)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        checkMayBlock()
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw SQLiteError(code: rc & 0xFF, message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reused across calls (reset and unbound).
    public func statement(_ sql: String) throws -> Statement {
        if let cached = cache[sql] {
            cached.reset()
            return cached
        }
        checkMayBlock()
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else { throw SQLiteError(code: rc, message: lastMessage, sql: sql) }
        let statement = Statement(raw, database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows, with arguments.
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws {
        let statement = try statement(sql)
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// Runs a statement from `statement(_:)` that returns no rows, with arguments: for hot statements a caller
    /// keeps, so the SQL text is not looked up again on every use.
    public func run(_ statement: Statement, _ arguments: [SQLValue]) throws {
        statement.rewind(rebinding: arguments.count)
        try statement.withBorrowedBindings(arguments) {
            while try statement.step() {}
        }
    }

    /// The first row of a statement from `statement(_:)`, mapped (see `run(_:_:)` with a statement).
    public func first<T>(_ statement: Statement, _ arguments: [SQLValue], _ map: (Row) throws -> T) throws -> T? {
        statement.rewind(rebinding: arguments.count)
        defer { statement.reset() }
        return try statement.withBorrowedBindings(arguments) {
            try statement.step() ? map(Row(statement: statement)) : nil
        }
    }

    /// Runs a query and maps each row.
    public func query<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (Row) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        try statement.bind(arguments)
        var result: [T] = []
        while try statement.step() { result.append(try map(Row(statement: statement))) }
        return result
    }

    /// The first row of a query, mapped.
    public func first<T>(_ sql: String, _ arguments: [SQLValue] = [], _ map: (Row) throws -> T) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? map(Row(statement: statement)) : nil
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: all of it commits, or none of it.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        // Kept prepared (run, not execute): no parsing on every transaction.
        try run("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last insert.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Applies the migrations not yet applied, in order, each in its own transaction (tracked by `user_version`).
    public func migrate(_ migrations: [(name: String, sql: String)]) throws {
        let current = try first("PRAGMA user_version") { $0.int(0) } ?? 0
        for (index, migration) in migrations.enumerated() where index >= current {
            try transaction {
                try execute(migration.sql)
                try execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }

    fileprivate var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A prepared statement owned by its connection.
public final class Statement {
    private let raw: OpaquePointer
    private unowned let database: SQLiteDatabase
    private let sql: String

    fileprivate init(_ raw: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.raw = raw
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(raw) }

    /// How many times SQLite has prepared it again since it was made (after a schema change, or for bound values
    /// its plan would depend on).
    public var timesPreparedAgain: Int { Int(sqlite3_stmt_status(raw, SQLITE_STMTSTATUS_REPREPARE, 0)) }

    /// A valid pointer for binding empty text (a nil pointer would bind NULL).
    private static var emptyText: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 1)! }

    /// Clears bindings and rewinds.
    public func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Rewinds before `count` arguments are bound; the old bindings are cleared only if some would survive.
    func rewind(rebinding count: Int) {
        sqlite3_reset(raw)
        if count < Int(sqlite3_bind_parameter_count(raw)) { sqlite3_clear_bindings(raw) }
    }

    /// Binds arguments to `?1…?n`.
    public func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(raw, index)
            case .int(let v): rc = sqlite3_bind_int64(raw, index, v)
            case .double(let v): rc = sqlite3_bind_double(raw, index, v)
            case .text(let v):
                // The string's own UTF-8 with its length: no C-string copy, no strlen.
                var text = v
                rc = text.withUTF8 { utf8 -> Int32 in
                    let start = utf8.baseAddress.map(UnsafeRawPointer.init) ?? Statement.emptyText
                    return sqlite3_bind_text(raw, index, start.assumingMemoryBound(to: CChar.self), Int32(utf8.count), csqlite_transient())
                }
            case .blob(let v):
                rc = v.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(raw, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), csqlite_transient())
                }
            }
            guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: database.lastMessage, sql: sql) }
        }
    }

    /// Binds `values` to `?1…?n` without SQLite copying text and blobs, and runs `body` (which must do all the
    /// stepping) while they are valid. Borrowed values are read only by `sqlite3_step`: once `body` returns they
    /// are never read again, because every later use binds all parameters anew (or clears them) first.
    fileprivate func withBorrowedBindings<T>(_ values: [SQLValue], from start: Int = 0, _ body: () throws -> T) throws -> T {
        var offset = start
        while offset < values.count {
            let index = Int32(offset + 1)
            let rc: Int32
            switch values[offset] {
            case .null: rc = sqlite3_bind_null(raw, index)
            case .int(let v): rc = sqlite3_bind_int64(raw, index, v)
            case .double(let v): rc = sqlite3_bind_double(raw, index, v)
            case .text(let v):
                var text = v
                return try text.withUTF8 { utf8 in
                    let start = utf8.baseAddress.map(UnsafeRawPointer.init) ?? Statement.emptyText
                    let rc = sqlite3_bind_text(raw, index, start.assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
                    guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: database.lastMessage, sql: sql) }
                    return try withBorrowedBindings(values, from: offset + 1, body)
                }
            case .blob(let v):
                return try v.withUnsafeBytes { bytes in
                    let rc = sqlite3_bind_blob(raw, index, bytes.baseAddress ?? Statement.emptyText, Int32(bytes.count), nil)
                    guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: database.lastMessage, sql: sql) }
                    return try withBorrowedBindings(values, from: offset + 1, body)
                }
            }
            guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: database.lastMessage, sql: sql) }
            offset += 1
        }
        return try body()
    }

    /// Advances; true while there is a row.
    public func step() throws -> Bool {
        database.checkMayBlock()
        let rc = sqlite3_step(raw)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(code: rc & 0xFF, message: database.lastMessage, sql: sql)
            sqlite3_reset(raw)
            throw error
        }
    }

    fileprivate var handle: OpaquePointer { raw }
}

/// The current row of a stepping statement.
public struct Row {
    fileprivate let statement: Statement

    /// Whether column `i` is NULL.
    public func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement.handle, i) == SQLITE_NULL }
    /// Column `i` as an integer.
    public func int(_ i: Int32) -> Int64 { sqlite3_column_int64(statement.handle, i) }
    /// Column `i` as an optional integer.
    public func optionalInt(_ i: Int32) -> Int64? { isNull(i) ? nil : int(i) }
    /// Column `i` as a double.
    public func double(_ i: Int32) -> Double { sqlite3_column_double(statement.handle, i) }
    /// Column `i` as text ("" when NULL).
    public func text(_ i: Int32) -> String {
        guard let c = sqlite3_column_text(statement.handle, i) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.handle, i))
        return String(decoding: UnsafeBufferPointer(start: c, count: count), as: UTF8.self)
    }
    /// Column `i` as optional text.
    public func optionalText(_ i: Int32) -> String? { isNull(i) ? nil : text(i) }
    /// Column `i` as bytes.
    public func blob(_ i: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement.handle, i))
        guard count > 0, let p = sqlite3_column_blob(statement.handle, i) else { return Data() }
        return Data(bytes: p, count: count)
    }
    /// Column `i` as optional bytes.
    public func optionalBlob(_ i: Int32) -> Data? { isNull(i) ? nil : blob(i) }
    /// Runs `body` over column `i`'s text as UTF-8 bytes, without copying them (empty when NULL); the bytes are
    /// valid only inside `body`.
    public func withText<T>(_ i: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let start = sqlite3_column_text(statement.handle, i)
        return try body(UnsafeBufferPointer(start: start, count: start == nil ? 0 : Int(sqlite3_column_bytes(statement.handle, i))))
    }
    /// Runs `body` over column `i`'s bytes without copying them (empty when NULL); valid only inside `body`.
    public func withBlob<T>(_ i: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let start = sqlite3_column_blob(statement.handle, i)
        return try body(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : Int(sqlite3_column_bytes(statement.handle, i))))
    }
}
