import CloudModel
import Foundation
import TodoStore

/// What a row made from a record depends on besides the record: who asks, whether private data shows, how lists
/// are shared.
public struct RowContext: Sendable, Hashable {
    /// Who is asking, for `canUpdate` / `canDelete`.
    public var permissions: PermissionContext
    /// Whether private and shared records are hidden (the engine keeps them on screen, read-only, when signed out).
    public var hidesPrivateData: Bool
    /// The share records the device holds, by the key of the list each shares.
    public var shares: [RecordKey: ShareState]

    /// A context for making rows.
    public init(permissions: PermissionContext, hidesPrivateData: Bool, shares: [RecordKey: ShareState] = [:]) {
        self.permissions = permissions
        self.hidesPrivateData = hidesPrivateData
        self.shares = shares
    }

    /// Whether records of `scope` are shown at all.
    public func shows(_ scope: DatabaseScope) -> Bool { scope == .public || !hidesPrivateData }
}

/// A reader that keeps its own rows and takes changes from the engine instead of whole snapshots.
public struct ChangeReader: Sendable, Hashable {
    let id: UUID
}

/// What changed for a reader since it last took changes, as the reader's own rows.
///
/// A scope read again arrives in chunks: from the take whose `reloadStarted` names it, the reader keeps its rows of
/// that scope on screen and replaces them as rows come; those not replaced by the take whose `reloadFinished` names
/// it are gone. While `hasMore`, the reader should take again at once.
public struct VisibleChanges<Row: Sendable>: Sendable {
    /// Scopes read again from this take on.
    public var reloadStarted: Set<DatabaseScope> = []
    /// Scopes whose reading again ends with this take (often the take that started it).
    public var reloadFinished: Set<DatabaseScope> = []
    /// New and changed rows, and the rows of scopes being read again.
    public var rows: [Row] = []
    /// Records no longer shown (share records among them are no rows; ignore them).
    public var removed: [RecordKey] = []
    /// Whether a scope is still being read again: take again.
    public var hasMore = false
    /// What the rows were made with; give it to `changeReader(current:)` when these rows outlive this engine.
    public var context: RowContext
}

/// A reader's state inside the engine.
struct ReaderState {
    var wakeups: AsyncStream<SyncSnapshot>.Continuation
    /// Records written since the reader last took changes.
    var keys: Set<RecordKey> = []
    /// Whether everything must be read again.
    var reloadAll = false
    /// What the reader's rows were made with; nil before its first take.
    var seen: RowContext?
    /// Scopes being read again, the one in progress first, and the last record key read of it.
    var reloading: [DatabaseScope] = []
    var reloadCursor: RecordKey?

    /// Whether reading again will bring `key`'s record (or its absence) in this take or a later one: its scope
    /// waits, or is in progress and the key lies past the last one read (in the store's order: bytes).
    func willRead(_ key: RecordKey) -> Bool {
        guard let index = reloading.firstIndex(of: key.scope) else { return false }
        guard index == 0, let cursor = reloadCursor else { return true }
        let after = [key.zoneOwner, key.zoneName, key.recordName].map { Array($0.utf8) }
        let last = [cursor.zoneOwner, cursor.zoneName, cursor.recordName].map { Array($0.utf8) }
        return last.lexicographicallyPrecedes(after) { $0.lexicographicallyPrecedes($1) }
    }

    /// Reads `scopes` again from their start (a scope already in progress starts over).
    mutating func startReloading(_ scopes: [DatabaseScope]) {
        if let current = reloading.first, scopes.contains(current) { reloadCursor = nil }
        for scope in scopes where !reloading.contains(scope) { reloading.append(scope) }
    }

    /// Notes written records. Past 20,000 (a large refetch) reading everything again costs less than key by key;
    /// below, the reader's rows stay and only the written ones are made again.
    mutating func invalidate<S: Sequence>(_ written: S) where S.Element == RecordKey {
        guard !reloadAll else { return }
        keys.formUnion(written)
        if keys.count > 20_000 { invalidateAll() }
    }

    mutating func invalidateAll() {
        reloadAll = true
        keys.removeAll()
        reloading.removeAll()
        reloadCursor = nil
    }
}

extension SyncEngine {
    /// Registers a reader that keeps its own rows (the terminal UI: one copy of 100,000 rows, not two).
    ///
    /// `wakeups` yields the state (its `todos` left empty) whenever anything changed; the reader then calls
    /// `takeChanges`. The reader stays registered while its wakeups stream is kept. When `current` is the context of
    /// rows the reader already holds (made by `visibleRows` from this device's cache, with nothing written since),
    /// its first take reports only what changed; otherwise it reads every scope again.
    public func changeReader(current: RowContext? = nil) async -> (reader: ChangeReader, wakeups: AsyncStream<SyncSnapshot>) {
        // Who asks (the last user) must be known before the first take compares it with `current`.
        if !hasLoadedState { await loadFromStore() }
        let (stream, continuation) = AsyncStream.makeStream(of: SyncSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let reader = ChangeReader(id: UUID())
        readers[reader.id] = ReaderState(wakeups: continuation, seen: current)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeReader(reader) }
        }
        continuation.yield(status())
        return (reader, stream)
    }

    private func removeReader(_ reader: ChangeReader) { readers[reader.id] = nil }

    /// Every shown record as a row (`makeRow` answers nil for records that are no rows), read one at a time from
    /// the store: for a first frame, before any network.
    public func visibleRows<Row: Sendable>(
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
    public func takeChanges<Row: Sendable>(
        _ reader: ChangeReader, chunk: Int = 10_000, makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?
    ) async throws -> VisibleChanges<Row> {
        guard var state = readers[reader.id] else { return VisibleChanges(context: try await currentRowContext()) }
        let keys = state.keys
        let all = state.reloadAll
        let seen = state.seen
        state.keys.removeAll()
        state.reloadAll = false
        readers[reader.id] = state
        // Nothing written, nothing being read again and the same asker: no store access for a wakeup that changed
        // only the status.
        if !all, keys.isEmpty, state.reloading.isEmpty, let seen, seen.permissions == permissionContext,
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
            // Records written since: once each (a chunk read before holds an older copy; a later one a current one).
            let wanted = changedKeys.filter { context.shows($0.scope) && !comesWithAChunk($0) }
            let (rows, absent) = try await store.mapTodos(keys: Array(wanted)) { item -> Row? in
                item.isTrashed ? nil : Self.rowMaker(context, makeRow)(item)
            }
            changes.rows.append(contentsOf: rows)
            changes.removed = absent
            changes.hasMore = !state.reloading.isEmpty
            // Keys written during the awaits above stay for the next take.
            state.keys = readers[reader.id]?.keys ?? []
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
    public func reread(_ reader: ChangeReader, keys: [RecordKey]) {
        readers[reader.id]?.invalidate(keys)
        readers[reader.id]?.wakeups.yield(status())
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
    func currentRowContext() async throws -> RowContext {
        var shares: [RecordKey: ShareState] = [:]
        for item in try await store.records(ofType: ShareSchema.recordType) where !item.isTrashed {
            if let share = ShareState(item) { shares[share.rootKey] = share }
        }
        // Signed out, the cached records stay on screen, read-only (the permissions say so); nothing is hidden.
        return RowContext(permissions: permissionContext, hidesPrivateData: false, shares: shares)
    }
}
