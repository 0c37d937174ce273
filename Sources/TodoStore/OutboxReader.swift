import Foundation
import SQLiteDB

/// A read-only connection of its own to a cache file, for reading the outbox beside the store's own work.
///
/// Sending a large outbox reads the next entries while the answers to the last ones are committed: on the store's one
/// connection the two take turns; here the reading runs on another thread, the reader's own (`ThreadTaskExecutor`),
/// off the cooperative pool. It sees what was committed when each read begins (SQLite's WAL gives every reader its
/// snapshot), as the store's connection would between commits.
public actor OutboxReader {
    private let path: String
    /// The store, read through when the connection cannot be opened.
    private let store: TodoStore
    private var state = State.unopened
    /// The thread every read runs on.
    private let executor = ThreadTaskExecutor(name: "todo-outbox-reader")

    private enum State {
        case unopened
        case open(SQLiteDatabase)
        /// The connection could not be opened: reads go to the store's own.
        case unavailable
        case closed
    }

    /// The reader's own thread, as its executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A reader of the cache at `path` (a WAL database, open in `store`); the connection opens at the first read, on
    /// the reader's thread.
    init(path: String, store: TodoStore) {
        self.path = path
        self.store = store
    }

    // The connection closes on the reader's thread.
    deinit {
        var database: SQLiteDatabase?
        if case .open(let open) = state { database = open }
        state = .closed
        executor.stop(releasing: &database)
    }

    /// As `TodoStore.pendingChanges(limit:includeFailed:after:)`.
    public func pendingChanges(limit: Int = Int.max, includeFailed: Bool = false, after sequence: Int64? = nil) async throws -> [PendingChange] {
        if case .unopened = state {
            state = (try? TodoStore.mapErrors { try SQLiteDatabase(path: path, readOnly: true) }).map(State.open) ?? .unavailable
        }
        switch state {
        case .open(let database): return try TodoStore.pendingChanges(limit: limit, includeFailed: includeFailed, after: sequence, db: database)
        case .unavailable: return try await store.pendingChanges(limit: limit, includeFailed: includeFailed, after: sequence)
        case .unopened, .closed: throw StoreError.closed
        }
    }

    /// Closes the connection; later reads throw `StoreError.closed`.
    public func close() { state = .closed }
}

extension TodoStore {
    /// A reader of this cache's outbox on a connection of its own; nil for an in-memory cache, which has no file
    /// another connection could open.
    public nonisolated func outboxReader() throws -> OutboxReader? {
        counters.outboxReaderOpened()
        return path == ":memory:" ? nil : OutboxReader(path: path, store: self)
    }
}
