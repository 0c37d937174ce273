import CloudModel
import Foundation
import TodoStore

/// The reader side: hands the UI what changed, as its own rows, and wakes it with the state.
///
/// Every write the engine makes (local edits, fetched pages, confirmations) is noted here by key; each reader takes
/// the records written since its last take (`takeChanges`), and `snapshot()` patches its copy (`SnapshotCache`).
/// Confined to the engine's actor.
final class ChangeFeed {
    private let store: TodoStore
    private let status: EngineStatus
    private let notices: NoticeLog
    /// The todos `SyncEngine.snapshot()` answers.
    let snapshots: SnapshotCache
    /// Readers that keep their own rows and take changes.
    private var readers: [UUID: ReaderState] = [:]
    /// How many times records changed in the cache under this engine (`invalidate`): what was read before may be stale.
    private(set) var cacheChanges = 0

    /// The engine whose actor the feed is confined to (checked in debug builds).
    private let link: EngineLink

    init(store: TodoStore, status: EngineStatus, notices: NoticeLog, link: EngineLink) {
        self.link = link
        self.store = store
        self.status = status
        self.notices = notices
        snapshots = SnapshotCache(store: store)
    }

    /// Whether any reader listens (progress is then worth publishing mid-round).
    var hasReaders: Bool { !readers.isEmpty }

    /// The state now without the todos, as readers are woken with.
    func current() -> SyncSnapshot { status.snapshot(notices: notices.notices) }

    /// Wakes the readers with the state now; a reader whose stream ended is forgotten.
    func publish() {
        guard !readers.isEmpty else { return }
        let now = current()
        for (id, reader) in readers {
            if case .terminated = reader.wakeups.yield(now) { readers[id] = nil }
        }
    }

    /// Debug builds trap when the feed is used off the engine's actor: it is unsynchronised, confined to that actor,
    /// and a use from elsewhere would be a data race (a whole run crashed once in its snapshot cache's key set).
    private func assertOnEngine() {
        #if DEBUG
            link.engine?.assertIsolated("the change feed is used off the engine's actor")
        #endif
    }

    /// Notes that records changed in the store, so their cached copies are read again.
    func invalidate<S: Sequence>(_ keys: S) where S.Element == RecordKey {
        assertOnEngine()
        var named = keys.makeIterator()
        if named.next() != nil { cacheChanges += 1 }
        for id in readers.keys { readers[id]?.invalidate(keys) }
        snapshots.invalidate(keys)
    }

    /// Notes records this engine wrote, as they are now in the store: readers make their rows from them, unread.
    func wrote(_ items: [TodoItem]) {
        assertOnEngine()
        guard !items.isEmpty else { return }
        cacheChanges += 1
        for id in readers.keys { readers[id]?.wrote(items) }
        snapshots.invalidate(items.lazy.map(\.key))
    }

    /// Notes that anything may have changed.
    func invalidateAll() {
        assertOnEngine()
        cacheChanges += 1
        for id in readers.keys { readers[id]?.invalidateAll() }
        snapshots.invalidateAll()
    }

    /// Ends every reader's wakeups (the engine stops).
    func finishAll() {
        for reader in readers.values { reader.wakeups.finish() }
        readers.removeAll()
    }

    /// Registers a reader (see `SyncEngine.changeReader`); it stays registered while its wakeups stream is kept.
    func register(current context: RowContext?) -> (reader: ChangeReader, wakeups: AsyncStream<SyncSnapshot>) {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let reader = ChangeReader(id: UUID())
        readers[reader.id] = ReaderState(wakeups: continuation, seen: context)
        continuation.yield(current())
        return (reader, stream)
    }

    /// Every shown record as a row (`makeRow` answers nil for records that are no rows), read one at a time from
    /// the store: for a first frame, before any network.
    nonisolated(nonsending) func visibleRows<Row: Sendable>(
        makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?
    ) async throws -> VisibleChanges<Row> {
        let context = try await currentRowContext()
        var changes = VisibleChanges<Row>(context: context)
        changes.reloadStarted = Set(DatabaseScope.allCases)
        changes.reloadFinished = changes.reloadStarted
        for scope in DatabaseScope.allCases where context.shows(scope) {
            let scoped = try await store.mapTodos(in: scope, Self.rowMaker(context, makeRow)).values
            if changes.rows.isEmpty { changes.rows = scoped } else { changes.rows.append(contentsOf: scoped) }
        }
        return changes
    }

    /// What changed since the reader last took changes, as rows made by `makeRow` (nil: the record is no row).
    ///
    /// Records written since are read again by key. A change of who is asking, or signing in or out, reads every
    /// scope again; a changed share reads the shared database again (its grants cover whole lists) or, for the
    /// user's own lists, the list row. Scopes read again come `chunk` records at a time, so the reader's old rows
    /// and a second copy of all of them never exist at once. On a failure the next take reads everything again.
    nonisolated(nonsending) func takeChanges<Row: Sendable>(
        _ reader: ChangeReader, chunk: Int = 10_000, makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?
    ) async throws -> VisibleChanges<Row> {
        guard var state = readers[reader.id] else { return VisibleChanges(context: try await currentRowContext()) }
        let keys = state.keys
        let written = state.written
        let all = state.reloadAll
        let seen = state.seen
        state.keys.removeAll()
        state.written.removeAll()
        state.reloadAll = false
        readers[reader.id] = state
        // Nothing written, nothing being read again and the same asker: no store access for a wakeup that changed
        // only the status.
        if !all, keys.isEmpty, state.reloading.isEmpty, let seen, seen.permissions == status.permissionContext,
            !seen.hidesPrivateData
        {
            return VisibleChanges(context: seen)
        }
        do {
            let context = try await currentRowContext()
            var changes = VisibleChanges<Row>(context: context)
            var changedKeys = keys
            var restart: [DatabaseScope] = []
            if all || seen == nil || seen?.permissions != context.permissions || seen?.hidesPrivateData != context.hidesPrivateData {
                restart = DatabaseScope.allCases
            } else if let seen {
                for root in Set(seen.shares.keys).union(context.shares.keys) where seen.shares[root] != context.shares[root] {
                    if root.scope == .shared { restart = [.shared] } else { changedKeys.insert(root) }
                }
            }
            guard var state = readers[reader.id] else { return changes }
            state.startReloading(restart)
            changes.reloadStarted = Set(restart)
            // A written record of a scope being read again comes with its chunk, unless that chunk was read before.
            let comesWithAChunk = state.willRead(_:)
            // The next chunk of the scopes being read again.
            var budget = max(1, chunk)
            while budget > 0, let scope = state.reloading.first {
                var read = (values: [Row](), last: RecordKey?.none, isComplete: true)
                if context.shows(scope) {
                    read = try await store.mapTodos(in: scope, after: state.reloadCursor, limit: budget, Self.rowMaker(context, makeRow))
                }
                changes.rows.append(contentsOf: read.values)
                budget -= max(1, read.values.count)
                if read.isComplete {
                    state.reloading.removeFirst()
                    state.reloadCursor = nil
                    changes.reloadFinished.insert(scope)
                } else {
                    state.reloadCursor = read.last
                }
            }
            // Records written since: once each (a chunk read before holds an older copy; a later one a current one);
            // those this engine wrote come as it wrote them, the rest are read.
            let wanted = changedKeys.filter { context.shows($0.scope) && !comesWithAChunk($0) }
            let row: @Sendable (TodoItem) -> Row? = { item in item.isTrashed ? nil : Self.rowMaker(context, makeRow)(item) }
            var (rows, absent) = try await store.mapTodos(keys: wanted.filter { written[$0] == nil }, row)
            for key in wanted {
                guard let item = written[key] else { continue }
                if let made = row(item) { rows.append(made) } else { absent.append(key) }
            }
            changes.rows.append(contentsOf: rows)
            changes.removed = absent
            changes.hasMore = !state.reloading.isEmpty
            // Keys written during the awaits above stay for the next take.
            state.keys = readers[reader.id]?.keys ?? []
            state.written = readers[reader.id]?.written ?? [:]
            state.reloadAll = readers[reader.id]?.reloadAll ?? false
            state.seen = context
            readers[reader.id] = state
            return changes
        } catch {
            readers[reader.id]?.invalidateAll()
            throw error
        }
    }

    /// Marks records for a reader to read again, and wakes it (with no keys: only the state, e.g. invitations).
    func reread(_ reader: ChangeReader, keys: [RecordKey]) {
        readers[reader.id]?.invalidate(keys)
        if case .terminated = readers[reader.id]?.wakeups.yield(current()) { readers[reader.id] = nil }
    }

    /// Makes a record into a row with the permission its share grants (shared database).
    private static func rowMaker<Row: Sendable>(
        _ context: RowContext, _ makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?
    ) -> @Sendable (TodoItem) -> Row? {
        let user = context.permissions.userRecordName
        return { item in
            var item = item
            SharePermissions.apply(context.shares, user: user, to: &item)
            return makeRow(item, context)
        }
    }

    /// Who asks, whether private data shows, and the shares the device holds now.
    nonisolated(nonsending) func currentRowContext() async throws -> RowContext {
        var shares: [RecordKey: ShareState] = [:]
        for item in try await store.records(ofType: ShareSchema.recordType) where !item.isTrashed {
            if let share = ShareState(item) { shares[share.rootKey] = share }
        }
        // Signed out, the cached records stay on screen, read-only (the permissions say so); nothing is hidden.
        return RowContext(permissions: status.permissionContext, hidesPrivateData: false, shares: shares)
    }
}
