import CloudModel
import Foundation
import SQLiteDB

/// Why the cache refused an operation.
///
/// The words say what happened to this device's storage and what to do; whether a change was kept is the caller's
/// to say (a failure inside an edit's transaction keeps nothing of it; one after it, such as recording the cloud's
/// answer, leaves the edit saved). They never show a raw SQLite code.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store was closed.
    case closed
    /// The disk is full; nothing of the operation was written.
    case diskFull(String)
    /// The cache file or its directory cannot be written (permissions, a read-only mount).
    case readOnly(String)
    /// The cache cannot be opened or created (a missing or unwritable directory).
    case cannotOpen(String)
    /// Reading or writing the disk failed.
    case ioError(String)
    /// No record with that key (or ID prefix).
    case notFound(String)
    /// An ID prefix matches several records.
    case ambiguous(String)
    /// SQLite failed otherwise.
    case database(String)

    /// How every description of this device's storage trouble begins (not `notFound` and `ambiguous`).
    public static let storagePrefix = "this device's storage"

    public var description: String {
        switch self {
        case .closed: "\(Self.storagePrefix) is closed"
        case .diskFull(let m): "\(Self.storagePrefix) is full (\(m)): free some space on that disk, then run it again"
        case .readOnly(let m):
            "\(Self.storagePrefix) cannot be written (\(m)): make the data directory and the files in it writable, then run it again"
        case .cannotOpen(let m):
            "\(Self.storagePrefix) cannot be opened (\(m)): check that the data directory exists and is writable (--data-dir, $XDG_DATA_HOME)"
        case .ioError(let m): "\(Self.storagePrefix) failed to read or write the disk (\(m)): check that the disk is not full or failing"
        case .notFound(let m): "no such todo: \(m)"
        case .ambiguous(let m): "\(m) matches several todos; give more characters"
        case .database(let m): "\(Self.storagePrefix) failed (\(m))"
        }
    }

    /// Whether this is trouble with the device's storage (rather than a todo not found).
    public var isStorageFailure: Bool {
        switch self {
        case .notFound, .ambiguous: false
        default: true
        }
    }

    /// The error an SQLite failure on `path` amounts to, worded without its code.
    public init(_ error: SQLiteError, path: String? = nil) {
        let file = path.map { "\($0)" } ?? error.message
        switch error.code {
        case SQLiteError.full: self = .diskFull(file)
        case SQLiteError.readOnly, SQLiteError.permission: self = .readOnly(file)
        case SQLiteError.cannotOpen: self = .cannotOpen(file)
        case SQLiteError.ioError: self = .ioError(file)
        default: self = .database(error.message)
        }
    }
}

/// The device's local cache: todos with their system fields, sync state and the outbox, in one SQLite file.
///
/// The only owner of its database; every method is one transaction, named after what it is for. Its methods run on a
/// thread of its own (`ThreadTaskExecutor`): SQLite's reads and its commits' waits for the disk never hold one of the
/// cooperative threads the engine, the terminal and the network share.
public actor TodoStore {
    var database: SQLiteDatabase?
    /// The thread every method of this store runs on.
    private let executor: ThreadTaskExecutor
    /// Whether the connection was left committing without waiting for the disk (see `writeRepeatable`).
    var commitsRelaxed = false
    /// Whether the background checkpoints run (from the first write on).
    private var checkpointsStarted = false
    /// The file this store keeps, or `:memory:`.
    public nonisolated let path: String
    /// What the sync engine's budgets count (off unless started).
    public nonisolated let counters = StoreCounters()

    /// The store's own thread, as its executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating and migrating) the cache at `path`; `":memory:"` for a throwaway one.
    public init(path: String) async throws {
        self.path = path
        executor = ThreadTaskExecutor(name: "todo-store")
        // From here on the initializer runs on the store's executor, its thread: the opening and migrating too.
        if path != ":memory:" {
            // The path's directory by its text (Foundation's URL path calls cost more than the call they serve: FilePaths).
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            do {
                if !directory.isEmpty {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                }
            } catch {
                throw StoreError.cannotOpen("cannot create \(directory)")
            }
        }
        self.database = try Self.mapErrors(path: path) {
            let database = try SQLiteDatabase(path: path)
            if path != ":memory:" { try database.configureForDurableWAL() }
            try database.migrate(Self.migrations)
            return database
        }
    }

    /// Opens the cache at a file URL.
    public init(url: URL) async throws { try await self.init(path: url.filePath) }

    // The connection, if still open, closes on the store's thread: closing the file's last connection writes to it.
    deinit { executor.stop(releasing: &database) }

    /// Closes the database; later calls throw `StoreError.closed`.
    public func close() { database = nil }

    /// A burst of writes just ended (an outbox sent): the WAL is copied into the file in the background now, not by
    /// the close or the next burst.
    public func checkpointSoon() { database?.checkpointSoon() }

    /// The schema, one migration per version, applied in order and never edited once shipped.
    static let migrations: [(name: String, sql: String)] = [
        (
            "v1",
            """
            CREATE TABLE records (
                scope TEXT NOT NULL,
                zone_owner TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                record_name TEXT NOT NULL,
                record_type TEXT NOT NULL,
                title TEXT NOT NULL DEFAULT '',
                notes TEXT NOT NULL DEFAULT '',
                is_completed INTEGER NOT NULL DEFAULT 0,
                due_date INTEGER,
                priority INTEGER NOT NULL DEFAULT 0,
                is_trashed INTEGER NOT NULL DEFAULT 0,
                list_ref TEXT,
                parent TEXT,
                extra_fields TEXT,
                change_tag TEXT,
                created_at INTEGER, created_user TEXT, created_device TEXT,
                modified_at INTEGER, modified_user TEXT, modified_device TEXT,
                local_edited_at INTEGER,
                share_permission TEXT,
                stale INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (scope, zone_owner, zone_name, record_name)
            ) WITHOUT ROWID;
            CREATE INDEX records_stale ON records (scope, zone_owner, zone_name) WHERE stale = 1;
            CREATE TABLE zone_tokens (
                scope TEXT NOT NULL,
                zone_owner TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                token TEXT NOT NULL,
                PRIMARY KEY (scope, zone_owner, zone_name)
            ) WITHOUT ROWID;
            CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                scope TEXT NOT NULL,
                zone_owner TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                record_name TEXT NOT NULL,
                action TEXT NOT NULL CHECK (action IN ('save', 'delete')),
                record_type TEXT NOT NULL,
                change_tag TEXT,
                base_fields TEXT,
                revision INTEGER NOT NULL DEFAULT 1,
                failed_reason TEXT,
                enqueued_at INTEGER NOT NULL,
                UNIQUE (scope, zone_owner, zone_name, record_name)
            );
            """
        ),
        (
            "v2: records by type",
            // Lists and share records are read by type on every change a reader takes: a few rows among 100,000 todos.
            "CREATE INDEX records_type ON records (record_type);"
        ),
        (
            "v3: edit stamps and lost edits",
            // Beside each record: when each field was last edited, and the values that lost conflicts (both synced
            // fields, kept as their wire text); which losses this device already announced.
            """
            ALTER TABLE records ADD COLUMN edit_stamps TEXT;
            ALTER TABLE records ADD COLUMN lost_edits TEXT;
            CREATE INDEX records_lost ON records (scope) WHERE lost_edits IS NOT NULL;
            CREATE TABLE announced_losses (id TEXT PRIMARY KEY, announced_at INTEGER NOT NULL) WITHOUT ROWID;
            """
        ),
        (
            "v4: refused changes by index",
            // Counted and retried at every start of a sync: a few rows found by index, not a read of the whole outbox
            // (10,000 entries waiting to be sent took 4 ms to count).
            "CREATE INDEX outbox_failed ON outbox (seq) WHERE failed_reason IS NOT NULL;"
        ),
        (
            "v5: planning fields",
            // Tags, due times, repeats and annotations, each a column (lists in `StringListColumn`'s text): rows read
            // by the hundred thousand need no JSON decoding. Rows stored before keep such fields in `extra_fields`,
            // and are moved into the columns as they are read (`item(from:offset:)`).
            """
            ALTER TABLE records ADD COLUMN tags TEXT;
            ALTER TABLE records ADD COLUMN all_day INTEGER NOT NULL DEFAULT 1;
            ALTER TABLE records ADD COLUMN repeat_rule TEXT;
            ALTER TABLE records ADD COLUMN repeat_from_completion INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE records ADD COLUMN series TEXT;
            ALTER TABLE records ADD COLUMN occurrence INTEGER NOT NULL DEFAULT 1;
            ALTER TABLE records ADD COLUMN annotations TEXT;
            """
        ),
        (
            "v6: wait, scheduled, until, start, depends",
            // Issue 27's fields, each a column like v5's (rows synced before by a newer device keep them in
            // `extra_fields` and move as they are read). Todos with an `until` are found by index: a few among many.
            """
            ALTER TABLE records ADD COLUMN wait_at INTEGER;
            ALTER TABLE records ADD COLUMN scheduled_at INTEGER;
            ALTER TABLE records ADD COLUMN until_at INTEGER;
            ALTER TABLE records ADD COLUMN start_at INTEGER;
            ALTER TABLE records ADD COLUMN depends TEXT;
            CREATE INDEX records_until ON records (until_at) WHERE until_at IS NOT NULL AND is_trashed = 0;
            """
        ),
        (
            "v7: history",
            // What changed in each record, when and from which device, as this device applied it (`todo info`),
            // bounded (`TodoStore+History`).
            """
            CREATE TABLE history (
                id INTEGER PRIMARY KEY,
                scope TEXT NOT NULL,
                zone_owner TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                record_name TEXT NOT NULL,
                at INTEGER NOT NULL,
                device TEXT,
                from_cloud INTEGER NOT NULL,
                changes TEXT NOT NULL
            );
            CREATE INDEX history_record ON history (scope, zone_owner, zone_name, record_name, id);
            """
        ),
        (
            "v8: everyday reads by index",
            // `todo list`, `next` and `export` read only the rows their filter may keep (`TodoQuery`): open todos by
            // due date, and the few that wait on others or still keep fields in `extra_fields`, without a scan.
            """
            CREATE INDEX records_open_due ON records (scope, is_completed, due_date) WHERE is_trashed = 0;
            CREATE INDEX records_depends ON records (scope) WHERE depends IS NOT NULL;
            CREATE INDEX records_extra ON records (scope) WHERE extra_fields IS NOT NULL;
            """
        ),
        (
            "v9: the trash by index",
            // The daily purge reads the few trashed todos, not every todo by the record-type index and then by key
            // (14 ms at the end of a fresh device's first pass over 10,000 todos).
            """
            CREATE INDEX records_trashed ON records (scope) WHERE is_trashed = 1;
            """
        ),
        (
            "v10: everyday writes keyed by record name first",
            // Every todo written wrote an entry for its type too, all but a few of them "Todo" and read by nobody
            // (lists and shares are what is read by type): only the other types are indexed now (`nonTodoTypes`).
            // The outbox's one-entry-per-record key leads with the record name: its other three parts are the same
            // for nearly every entry, and comparing them first was most of the cost of each insert, clear and
            // lookup by key. The table is copied (a key of a table cannot be changed in place), its queue positions
            // kept and its AUTOINCREMENT high mark carried over, so no position is ever given twice.
            """
            DROP INDEX records_type;
            CREATE INDEX records_type ON records (record_type) WHERE \(nonTodoTypes);
            CREATE TABLE outbox_v10 (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                scope TEXT NOT NULL,
                zone_owner TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                record_name TEXT NOT NULL,
                action TEXT NOT NULL CHECK (action IN ('save', 'delete')),
                record_type TEXT NOT NULL,
                change_tag TEXT,
                base_fields TEXT,
                revision INTEGER NOT NULL DEFAULT 1,
                failed_reason TEXT,
                enqueued_at INTEGER NOT NULL,
                UNIQUE (record_name, scope, zone_owner, zone_name)
            );
            INSERT INTO outbox_v10 (seq, scope, zone_owner, zone_name, record_name, action, record_type, change_tag, base_fields,
                revision, failed_reason, enqueued_at)
            SELECT seq, scope, zone_owner, zone_name, record_name, action, record_type, change_tag, base_fields,
                revision, failed_reason, enqueued_at FROM outbox ORDER BY seq;
            DELETE FROM sqlite_sequence WHERE name = 'outbox_v10';
            INSERT INTO sqlite_sequence (name, seq)
            SELECT 'outbox_v10', max(ifnull((SELECT seq FROM sqlite_sequence WHERE name = 'outbox'), 0), ifnull((SELECT max(seq) FROM outbox), 0));
            DROP TABLE outbox;
            ALTER TABLE outbox_v10 RENAME TO outbox;
            CREATE INDEX outbox_failed ON outbox (seq) WHERE failed_reason IS NOT NULL;
            """
        ),
    ]

    /// The condition of the partial `records_type` index (v10): a record of a type other than a todo's. A query by
    /// type names it too (`records(ofType:inZone:)`, `listTitlesSQL`), so the planner may use the index.
    static let nonTodoTypes = "record_type != '\(TodoSchema.todoType)'"

    /// The open connection, or `StoreError.closed`.
    func db() throws -> SQLiteDatabase {
        guard let database else { throw StoreError.closed }
        return database
    }

    /// Before the first write: copying the WAL into the file (and its fsync) happens beside the edits and
    /// acknowledgements from then on, on a connection and thread of its own. A command that only reads (a list, an
    /// export) never starts them.
    private func startCheckpointsIfNeeded(_ db: SQLiteDatabase) throws {
        guard !checkpointsStarted else { return }
        try Self.mapErrors { try db.checkpointInBackground() }
        checkpointsStarted = true
    }

    /// Runs `body` in one transaction, turning SQLite failures into `StoreError`; its commit waits for the disk.
    func write<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        let db = try db()
        try startCheckpointsIfNeeded(db)
        if commitsRelaxed {
            // A repeatable write could not put the setting back: do it before anything durable is written.
            try Self.mapErrors { try db.execute("PRAGMA synchronous = FULL") }
            commitsRelaxed = false
        }
        return try Self.mapErrors { try db.transaction { try body(db) } }
    }

    /// Runs `body` in one transaction whose commit does not wait for the disk (WAL, `synchronous = NORMAL`).
    ///
    /// Only for writes that merely record what the cloud already holds, so a power cut that undoes them makes the
    /// device repeat work, never lose any: the acknowledgements of sent changes (their entries come back and are sent
    /// again, and the cloud's copies settle them). A process crash loses nothing either way, and the next durable
    /// commit (every local edit is one) makes these durable too.
    func writeRepeatable<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        let db = try db()
        try startCheckpointsIfNeeded(db)
        try Self.mapErrors { try db.execute("PRAGMA synchronous = NORMAL") }
        commitsRelaxed = true
        defer {
            if (try? db.execute("PRAGMA synchronous = FULL")) != nil { commitsRelaxed = false }
        }
        return try Self.mapErrors { try db.transaction { try body(db) } }
    }

    /// Runs a read, turning SQLite failures into `StoreError`.
    func read<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        let db = try db()
        return try Self.mapErrors { try body(db) }
    }

    /// Runs `body`, turning SQLite failures into `StoreError` (worded for a person, naming `path` when given).
    static func mapErrors<T>(path: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError(error, path: path)
        }
    }

    /// The schema version this build writes (the number of migrations it knows).
    public static var currentSchemaVersion: Int { migrations.count }

    /// The schema version (number of migrations applied).
    public func schemaVersion() throws -> Int {
        try read { db in Int(try db.first("PRAGMA user_version") { $0.int(0) } ?? 0) }
    }

    /// Forgets everything: records, tokens, flags and outbox (account switch).
    public func wipe() throws {
        try write { db in
            try db.execute("DELETE FROM records; DELETE FROM zone_tokens; DELETE FROM sync_state; DELETE FROM outbox; DELETE FROM announced_losses; DELETE FROM history;")
        }
    }
}

extension TodoStore {
    /// Caps the file at its current size plus `pages` pages, so tests can see how a full disk is handled.
    public func limitFileSizeForTesting(pages: Int) throws {
        try read { db in
            let count = try db.first("PRAGMA page_count") { $0.int(0) } ?? 0
            _ = try db.first("PRAGMA max_page_count = \(count + Int64(pages))") { $0.int(0) }
        }
    }
}
