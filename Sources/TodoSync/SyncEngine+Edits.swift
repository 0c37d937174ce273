import CloudModel
import Foundation
import TodoPlanning
import TodoStore

extension SyncEngine {
    /// Adds a todo (to the private `Todos` zone, or the public board); stored and queued at once, sent in the background.
    @discardableResult
    public func add(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, tags: [String] = [],
        repeat repeating: RepeatSetting? = nil, to scope: DatabaseScope = .private, recordName: String? = nil
    ) async throws -> TodoItem {
        guard permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add todos") }
        let name = recordName ?? RecordNames.next()
        let key: RecordKey =
            switch scope {
            case .public: .publicRecord(name)
            case .private, .shared: .privateTodo(name)
            }
        let item = stamped(NewTodo(title: title, notes: notes, due: due, priority: priority, tags: tags, repeating: repeating).item(key), from: nil)
        let saved = try await store.saveLocalEdit(item, at: clock.nowMilliseconds())
        await afterLocalEdit(key)
        return saved
    }

    /// Edits fields of a todo, if the permission table allows.
    @discardableResult
    public func edit(_ key: RecordKey, _ edit: TodoEdit) async throws -> TodoItem {
        var item = try await existing(key)
        if let reason = RecordPermissions.refusal(toUpdate: item, permissionContext) { throw SyncEngineError.refused(reason) }
        let old = item
        edit.apply(to: &item)
        guard item.fields != old.fields else { return old }  // nothing changed: no stamp, nothing to send
        item.isTrashed = false  // trashed elsewhere meanwhile: this edit is the later action, and brings it back
        let saved = try await store.saveLocalEdit(stamped(item, from: old), at: clock.nowMilliseconds())
        await afterLocalEdit(key)
        return saved
    }

    /// Trashes a record per docs/ARCHITECTURE.md, "Permissions": deletes it, marks it `isTrashed`, or refuses with a reason (returned).
    ///
    /// A todo is trashed as a stamped `isTrashed = 1` on every database (hidden everywhere, like a delete), so a trash
    /// and an edit made elsewhere are ordered by when they were made: a tombstone would carry no time.
    @discardableResult
    public func trash(_ key: RecordKey) async throws -> TrashAction {
        let item = try await existing(key)
        let action = RecordPermissions.trashAction(item, permissionContext)
        switch action {
        case .delete where item.isList:
            try await deleteList(key)
            return action
        case .delete, .markTrashed:
            try await markTrashed(item)
        case .refuse:
            return action
        }
        await afterLocalEdit(key)
        return action
    }

    /// Takes a record out of the trash (`isTrashed = 0`), if the permission table allows editing it.
    @discardableResult
    public func untrash(_ key: RecordKey) async throws -> TodoItem {
        var item = try await existing(key)
        if let reason = RecordPermissions.refusal(toUpdate: item, permissionContext) { throw SyncEngineError.refused(reason) }
        guard item.isTrashed else { return item }
        let old = item
        item.isTrashed = false
        let saved = try await store.saveLocalEdit(stamped(item, from: old), at: clock.nowMilliseconds())
        await afterLocalEdit(key)
        return saved
    }

    /// Deletes a record, if the permission table allows deleting it.
    public func delete(_ key: RecordKey) async throws {
        let item = try await existing(key)
        guard RecordPermissions.canDelete(item, permissionContext) else {
            if case .refuse(let reason) = RecordPermissions.trashAction(item, permissionContext) { throw SyncEngineError.refused(reason) }
            throw SyncEngineError.refused("a public post cannot be deleted for everyone, only marked deleted (trash it)")
        }
        if item.isList {
            try await deleteList(key)
            return
        }
        try await markTrashed(item)
        await afterLocalEdit(key)
    }

    /// Sets `isTrashed = 1` with a stamp (a todo never sent just vanishes).
    private func markTrashed(_ item: TodoItem) async throws {
        guard item.system.isUploaded || item.key.scope == .public else {
            try await store.deleteLocally(item.key, at: clock.nowMilliseconds())
            return
        }
        var trashed = item
        trashed.isTrashed = true
        try await store.saveLocalEdit(stamped(trashed, from: item), at: clock.nowMilliseconds())
    }

    /// Whether the user may edit the record now.
    public func canUpdate(_ item: TodoItem) -> Bool { RecordPermissions.canUpdate(item, permissionContext) }

    /// Whether the user may delete the record now.
    public func canDelete(_ item: TodoItem) -> Bool { RecordPermissions.canDelete(item, permissionContext) }

    /// One record by key, as the cache has it.
    public func todo(_ key: RecordKey) async throws -> TodoItem? {
        guard let item = try await store.todo(key) else { return nil }
        return try await withSharePermission(item)
    }

    /// The todos an ID given on the command line names (`TodoStore.todos(matchingID:limit:)`), with their share permission.
    public func todos(matchingID id: String, limit: Int = 11) async throws -> [TodoItem] {
        var found: [TodoItem] = []
        for item in try await store.todos(matchingID: id, limit: limit) { found.append(try await withSharePermission(item)) }
        return found
    }

    private func existing(_ key: RecordKey) async throws -> TodoItem {
        guard let item = try await store.todo(key) else { throw SyncEngineError.notFound(key.recordName) }
        return try await withSharePermission(item)
    }

    /// The item with the permission its share grants this user (records of the shared database).
    func withSharePermission(_ item: TodoItem) async throws -> TodoItem {
        guard item.key.scope == .shared else { return item }
        var items = [item] + (try await store.records(ofType: ShareSchema.recordType, inZone: item.key.zone))
        SharePermissions.apply(to: &items, user: userRecordName)
        return items[0]
    }

    private func afterLocalEdit(_ key: RecordKey) async {
        await afterLocalEdits([key])
    }

    /// Shows local edits at once and sends them in the background.
    func afterLocalEdits(_ keys: [RecordKey]) async {
        invalidate(keys)
        try? await reloadCounts()
        publish()
        if configuration.sendsAutomatically && connection == .online { requestSync(.localEdit) }
    }
}
