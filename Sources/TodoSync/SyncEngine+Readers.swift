import CloudModel
import Foundation
import TodoStore

/// What a row made from a record depends on besides the record: who asks, whether private data shows, how lists
/// are shared.
public struct RowContext: Sendable, Hashable {
    /// Who is asking, for `canUpdate` / `canDelete`.
    public var permissions: PermissionContext
    /// Signed out: private and shared records are hidden (DESIGN.md §1); the public board stays.
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
public struct VisibleChanges<Row: Sendable>: Sendable {
    /// Scopes whose rows are all in `rows`, replacing what the reader had (none while hidden).
    public var reloadedScopes: Set<DatabaseScope> = []
    /// New and changed rows, and every row of a reloaded scope.
    public var rows: [Row] = []
    /// Records no longer shown, in scopes not reloaded (share records among them are no rows; ignore them).
    public var removed: [RecordKey] = []
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
    }
}

extension SyncEngine {
    /// Registers a reader that keeps its own rows (the terminal UI: one copy of 100,000 rows, not two).
    ///
    /// `wakeups` yields the state (its `todos` left empty) whenever anything changed; the reader then calls
    /// `takeChanges`. The reader stays registered while its wakeups stream is kept. When `current` is the context of rows the reader already holds (made by `visibleRows` from
    /// this device's cache, with nothing written since), its first take reports only what changed; otherwise it
    /// reloads every scope.
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
        var changes = VisibleChanges<Row>(reloadedScopes: Set(DatabaseScope.allCases), context: context)
        try await read(scopes: changes.reloadedScopes, context, makeRow, into: &changes.rows)
        return changes
    }

    /// What changed since the reader last took changes, as rows made by `makeRow` (nil: the record is no row).
    ///
    /// Records written since are read again by key; a change of who is asking or of signing in or out reloads
    /// everything; a changed share reloads the shared database (its grants cover whole lists) or, for the user's
    /// own lists, the list row. On a failure the next take reloads everything.
    public func takeChanges<Row: Sendable>(
        _ reader: ChangeReader, makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?
    ) async throws -> VisibleChanges<Row> {
        guard var state = readers[reader.id] else { return VisibleChanges(context: try await currentRowContext()) }
        let keys = state.keys
        let all = state.reloadAll
        let seen = state.seen
        state.keys.removeAll()
        state.reloadAll = false
        readers[reader.id] = state
        // Nothing written and the same asker: nothing to read (no store access for a wakeup that changed only the status).
        if !all, keys.isEmpty, let seen, seen.permissions == permissionContext, seen.hidesPrivateData == (connection == .signedOut) {
            return VisibleChanges(context: seen)
        }
        do {
            let context = try await currentRowContext()
            var changes = VisibleChanges<Row>(context: context)
            var changedKeys = keys
            if all || seen == nil || seen?.permissions != context.permissions || seen?.hidesPrivateData != context.hidesPrivateData {
                changes.reloadedScopes = Set(DatabaseScope.allCases)
            } else if let seen {
                for root in Set(seen.shares.keys).union(context.shares.keys) where seen.shares[root] != context.shares[root] {
                    if root.scope == .shared { changes.reloadedScopes.insert(.shared) } else { changedKeys.insert(root) }
                }
            }
            try await read(scopes: changes.reloadedScopes, context, makeRow, into: &changes.rows)
            let wanted = changedKeys.filter { !changes.reloadedScopes.contains($0.scope) && context.shows($0.scope) }
            let user = context.permissions.userRecordName
            let (rows, absent) = try await store.mapTodos(keys: Array(wanted)) { item -> Row? in
                guard !item.isTrashed else { return nil }
                var item = item
                SharePermissions.apply(context.shares, user: user, to: &item)
                return makeRow(item, context)
            }
            changes.rows.append(contentsOf: rows)
            changes.removed = absent
            readers[reader.id]?.seen = context
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

    /// Rows of whole scopes, straight from the store.
    private func read<Row: Sendable>(
        scopes: Set<DatabaseScope>, _ context: RowContext, _ makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?,
        into rows: inout [Row]
    ) async throws {
        for scope in DatabaseScope.allCases where scopes.contains(scope) && context.shows(scope) {
            let user = context.permissions.userRecordName
            let scoped = try await store.mapTodos(in: scope) { item in
                var item = item
                SharePermissions.apply(context.shares, user: user, to: &item)
                return makeRow(item, context)
            }
            if rows.isEmpty { rows = scoped } else { rows.append(contentsOf: scoped) }
        }
    }

    /// Who asks, whether private data shows, and the shares the device holds now.
    func currentRowContext() async throws -> RowContext {
        var shares: [RecordKey: ShareState] = [:]
        for item in try await store.records(ofType: ShareSchema.recordType) where !item.isTrashed {
            if let share = ShareState(item) { shares[share.rootKey] = share }
        }
        return RowContext(permissions: permissionContext, hidesPrivateData: connection == .signedOut, shares: shares)
    }
}
