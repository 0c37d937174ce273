import CloudModel
import Foundation
import SQLiteDB

/// The cloud's storage in one SQLite file (WAL) beside the data directory's `assets/` folder.
///
/// One writer connection, whose transactions go one at a time (`gate`), and a few read connections beside it, so reads
/// never wait for a write (WAL gives each its snapshot). Each connection has a thread of its own: a transaction's body
/// runs there (task executor preference), so SQLite's blocking calls and fsync stay off the cooperative pool, with no
/// hop per call.
final class SQLiteCloudStore: CloudStore, @unchecked Sendable {
    /// A connection, its transaction view and its thread.
    final class Connection: @unchecked Sendable {
        /// The transaction view; released only by `deinit`.
        var transaction: SQLiteStoreTransaction { held! }
        let executor: ThreadTaskExecutor
        private var held: SQLiteStoreTransaction?

        init(_ transaction: SQLiteStoreTransaction, name: String) {
            held = transaction
            executor = ThreadTaskExecutor(name: name)
        }

        // The connection closes on its own thread, after the transactions queued there (closing it writes to disk).
        deinit { executor.stop(releasing: &held) }
    }

    /// Read connections beside the writer.
    static let readerCount = 2

    /// The data directory: `cloud.sqlite` and the asset files live in it.
    let directory: URL
    /// The writer, used by one transaction at a time (`gate` lets them through one by one); nil once shut down.
    private var writer: Connection?
    private let gate = TransactionGate()
    private let readers: ConnectionPool<Connection>

    /// Opens (creating and migrating) `cloud.sqlite` in `directory` on a thread of its own, off the cooperative pool;
    /// `migrations` other than all of them only in tests.
    static func open(directory: URL, migrations: [(name: String, sql: String)] = SQLiteCloudStore.migrations) async throws -> SQLiteCloudStore {
        let opener = ThreadTaskExecutor(name: "cloud-sqlite-open")
        defer { opener.stop() }
        return try await withTaskExecutorPreference(opener) { try SQLiteCloudStore(directory: directory, migrations: migrations) }
    }

    /// Opens (creating and migrating) `cloud.sqlite` in `directory`, on the calling thread: see `open`.
    private init(directory: URL, migrations: [(name: String, sql: String)] = SQLiteCloudStore.migrations) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("cloud.sqlite").path
        let database = try SQLiteDatabase(path: path)
        // WAL with synchronous=NORMAL: a commit survives the process being killed at any moment.
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        // Requests are answered from the WAL; copying it into the file (and its fsync) happens beside them, in the
        // first pause of a tenth of a second (or once the WAL holds 16 MB): a device's upload is not slowed by it.
        try database.checkpointInBackground(quietPeriod: 0.1)
        try database.migrate(migrations)
        writer = Connection(try SQLiteStoreTransaction(database), name: "cloud-sqlite-writer")
        var readConnections: [Connection] = []
        for index in 0..<Self.readerCount {
            let reader = try SQLiteDatabase(path: path)
            try reader.execute("PRAGMA query_only=1;")
            readConnections.append(Connection(try SQLiteStoreTransaction(reader, cachesShareZones: false), name: "cloud-sqlite-reader-\(index)"))
        }
        readers = ConnectionPool(readConnections)
    }

    func write<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        try await gate.withTurn {
            guard let writer else { throw Self.shutDownError }
            return try await Self.onThread(of: writer) {
                let transaction = writer.transaction
                let database = transaction.db
                // Kept prepared (run, not execute): no parsing on every transaction.
                try database.run("BEGIN IMMEDIATE")
                do {
                    let value = try await body(transaction)
                    try transaction.flushSequence()
                    try database.run("COMMIT")
                    return value
                } catch {
                    try? database.execute("ROLLBACK")
                    transaction.discardSequence()
                    transaction.shareZoneCache.removeAll()
                    transaction.locationZoneCache.removeAll()
                    throw error
                }
            }
        }
    }

    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        guard let reader = await readers.take() else { throw Self.shutDownError }
        defer { readers.giveBack(reader) }
        return try await Self.onThread(of: reader) {
            let transaction = reader.transaction
            // Prepared once and kept (run, not execute): every request opens at least one of these.
            try transaction.db.run("BEGIN")
            defer { try? transaction.db.run("COMMIT") }
            return try await body(transaction)
        }
    }

    func shutDown() async {
        // Transactions under way finish first; a connection (and its thread) ends with its last reference.
        try? await gate.withTurn { writer = nil }
        await readers.close()
    }

    private static var shutDownError: ServerError { ServerError(.tryAgainLater, "the cloud's storage is shut down") }

    /// Runs `body` on a connection's thread, and everything it calls that does not ask for another executor.
    private static func onThread<T: Sendable>(of connection: Connection, _ body: () async throws -> T) async throws -> T {
        if #available(macOS 15.0, *) {
            return try await withTaskExecutorPreference(connection.executor) { try await body() }
        }
        return try await body()
    }
}
