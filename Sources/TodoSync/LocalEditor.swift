import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// The write side: local edits of todos and lists, checked against the permission table, stamped, stored and queued
/// in one transaction, then shown at once and sent in the background. Confined to the engine's actor.
final class LocalEditor {
    private let store: TodoStore
    private let clock: any SyncClock
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let time: CloudTime
    private let scheduler: PassScheduler

    init(store: TodoStore, clock: any SyncClock, status: EngineStatus, feed: ChangeFeed, time: CloudTime, scheduler: PassScheduler) {
        self.store = store
        self.clock = clock
        self.status = status
        self.feed = feed
        self.time = time
        self.scheduler = scheduler
    }

    /// Adds a todo (to the private `Todos` zone, or the public board); stored and queued at once, sent in the background.
    @discardableResult
    nonisolated(nonsending) func add(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, tags: [String] = [],
        repeat repeating: RepeatSetting? = nil, to scope: DatabaseScope = .private, recordName: String? = nil
    ) async throws -> TodoItem {
        guard status.permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add todos") }
        let name = recordName ?? RecordNames.next()
        let key: RecordKey =
            switch scope {
            case .public: .publicRecord(name)
            case .private, .shared: .privateTodo(name)
            }
        let item = time.stamped(NewTodo(title: title, notes: notes, due: due, priority: priority, tags: tags, repeating: repeating).item(key), from: nil)
        let saved = try await store.saveLocalEdit(item, at: clock.nowMilliseconds())
        await wrote(saved: [saved])
        return saved
    }

    /// Edits fields of a todo, if the permission table allows.
    @discardableResult
    nonisolated(nonsending) func edit(_ key: RecordKey, _ edit: TodoEdit) async throws -> TodoItem {
        try await self.edit(try await existing(key), edit)
    }

    /// Edits fields of `item`, read just now with its share permission (no second read), if the permission table allows.
    nonisolated(nonsending) func edit(_ item: TodoItem, _ edit: TodoEdit) async throws -> TodoItem {
        var item = item
        if let reason = RecordPermissions.refusal(toUpdate: item, status.permissionContext) { throw SyncEngineError.refused(reason) }
        let old = item
        edit.apply(to: &item)
        guard item.fields != old.fields else { return old }  // nothing changed: no stamp, nothing to send
        item.isTrashed = false  // trashed elsewhere meanwhile: this edit is the later action, and brings it back
        let saved = try await store.saveLocalEdit(time.stamped(item, from: old), at: clock.nowMilliseconds())
        await wrote(saved: [saved])
        return saved
    }

    /// Trashes a record per docs/ARCHITECTURE.md, "Permissions": deletes it, marks it `isTrashed`, or refuses with a reason (returned).
    ///
    /// A todo is trashed as a stamped `isTrashed = 1` on every database (hidden everywhere, like a delete), so a trash
    /// and an edit made elsewhere are ordered by when they were made: a tombstone would carry no time.
    @discardableResult
    nonisolated(nonsending) func trash(_ key: RecordKey) async throws -> TrashAction {
        let item = try await existing(key)
        let action = RecordPermissions.trashAction(item, status.permissionContext)
        switch action {
        case .delete where item.isList:
            try await deleteList(key)
            return action
        case .delete, .markTrashed:
            await wroteTrash(try await markTrashed(item), key)
        case .refuse:
            return action
        }
        return action
    }

    /// Takes a record out of the trash (`isTrashed = 0`), if the permission table allows editing it.
    @discardableResult
    nonisolated(nonsending) func untrash(_ key: RecordKey) async throws -> TodoItem {
        var item = try await existing(key)
        if let reason = RecordPermissions.refusal(toUpdate: item, status.permissionContext) { throw SyncEngineError.refused(reason) }
        guard item.isTrashed else { return item }
        let old = item
        item.isTrashed = false
        let saved = try await store.saveLocalEdit(time.stamped(item, from: old), at: clock.nowMilliseconds())
        await wrote(saved: [saved])
        return saved
    }

    /// Deletes a record, if the permission table allows deleting it.
    nonisolated(nonsending) func delete(_ key: RecordKey) async throws {
        let item = try await existing(key)
        guard RecordPermissions.canDelete(item, status.permissionContext) else {
            if case .refuse(let reason) = RecordPermissions.trashAction(item, status.permissionContext) { throw SyncEngineError.refused(reason) }
            throw SyncEngineError.refused("a public post cannot be deleted for everyone, only marked deleted (trash it)")
        }
        if item.isList {
            try await deleteList(key)
            return
        }
        await wroteTrash(try await markTrashed(item), key)
    }

    /// Sets `isTrashed = 1` with a stamp (a todo never sent just vanishes); answers the trashed record as saved, nil
    /// when it vanished.
    private nonisolated(nonsending) func markTrashed(_ item: TodoItem) async throws -> TodoItem? {
        guard item.system.isUploaded || item.key.scope == .public else {
            try await store.deleteLocally(item.key, at: clock.nowMilliseconds())
            return nil
        }
        var trashed = item
        trashed.isTrashed = true
        return try await store.saveLocalEdit(time.stamped(trashed, from: item), at: clock.nowMilliseconds())
    }

    private nonisolated(nonsending) func wroteTrash(_ saved: TodoItem?, _ key: RecordKey) async {
        if let saved { await wrote(saved: [saved]) } else { await wrote([key]) }
    }

    /// Whether the user may edit the record now.
    func canUpdate(_ item: TodoItem) -> Bool { RecordPermissions.canUpdate(item, status.permissionContext) }

    /// Whether the user may delete the record now.
    func canDelete(_ item: TodoItem) -> Bool { RecordPermissions.canDelete(item, status.permissionContext) }

    /// One record by key, as the cache has it.
    nonisolated(nonsending) func todo(_ key: RecordKey) async throws -> TodoItem? {
        guard let item = try await store.todo(key) else { return nil }
        return try await withSharePermission(item)
    }

    /// The todos an ID given on the command line names (`TodoStore.todos(matchingID:limit:)`), with their share permission.
    nonisolated(nonsending) func todos(matchingID id: String, limit: Int = 11) async throws -> [TodoItem] {
        var found: [TodoItem] = []
        for item in try await store.todos(matchingID: id, limit: limit) { found.append(try await withSharePermission(item)) }
        return found
    }

    private nonisolated(nonsending) func existing(_ key: RecordKey) async throws -> TodoItem {
        guard let item = try await store.todo(key) else { throw SyncEngineError.notFound(key.recordName) }
        return try await withSharePermission(item)
    }

    /// The item with the permission its share grants this user (records of the shared database).
    nonisolated(nonsending) func withSharePermission(_ item: TodoItem) async throws -> TodoItem {
        guard item.key.scope == .shared else { return item }
        var items = [item] + (try await store.records(ofType: ShareSchema.recordType, inZone: item.key.zone))
        SharePermissions.apply(to: &items, user: status.userRecordName)
        return items[0]
    }

    /// Shows local edits at once and sends them in the background.
    nonisolated(nonsending) func wrote(_ keys: [RecordKey]) async {
        feed.invalidate(keys)
        await followUp()
    }

    /// `wrote` for records saved one by one: readers make their rows from them as saved, without reading them again.
    nonisolated(nonsending) func wrote(saved items: [TodoItem]) async {
        feed.wrote(items)
        await followUp()
    }

    private nonisolated(nonsending) func followUp() async {
        try? await status.reloadCounts(store)
        feed.publish()
        if status.configuration.sendsAutomatically && status.connection == .online { scheduler.request(.localEdit) }
    }

    /// Creates a `TodoList` in the private `Todos` zone; stored and queued at once.
    @discardableResult
    nonisolated(nonsending) func addList(title: String, recordName: String? = nil) async throws -> TodoItem {
        guard status.permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add lists") }
        let name = recordName ?? RecordNames.next()
        let item = time.stamped(TodoItem(key: .privateTodo(name), recordType: TodoSchema.listType, title: title), from: nil)
        let saved = try await store.saveLocalEdit(item, at: clock.nowMilliseconds())
        await wrote(saved: [saved])
        return saved
    }

    /// Adds a todo to a list: in the list's own zone (a shared list lives in its owner's zone), parented to it.
    @discardableResult
    nonisolated(nonsending) func add(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, tags: [String] = [],
        repeat repeating: RepeatSetting? = nil, toList listKey: RecordKey, recordName: String? = nil
    ) async throws -> TodoItem {
        let list = try await existingList(listKey)
        if let reason = RecordPermissions.refusal(toAddTo: list, status.permissionContext) { throw SyncEngineError.refused(reason) }
        let key = RecordKey(
            scope: listKey.scope, zoneName: listKey.zoneName, zoneOwner: listKey.zoneOwner,
            recordName: recordName ?? RecordNames.next())
        var item = NewTodo(title: title, notes: notes, due: due, priority: priority, tags: tags, repeating: repeating).item(key)
        item.setList(listKey.recordName)
        item.sharePermission = list.sharePermission
        let saved = try await store.saveLocalEdit(time.stamped(item, from: nil), at: clock.nowMilliseconds())
        await wrote(saved: [saved])
        return saved
    }

    /// Deletes a list and every todo in it, in one local transaction, if the permission table allows.
    /// Answers how many todos went with it.
    @discardableResult
    nonisolated(nonsending) func deleteList(_ listKey: RecordKey) async throws -> Int {
        let list = try await existingList(listKey)
        if case .refuse(let reason) = RecordPermissions.trashAction(list, status.permissionContext) { throw SyncEngineError.refused(reason) }
        let members = try await todos(inList: listKey)
        let keys = members.map(\.key) + [listKey]
        try await store.applyLocalChanges(saving: [], deleting: keys, at: clock.nowMilliseconds())
        await wrote(keys)
        return members.count
    }

    /// Moves a todo to another list (nil: to no list). Within a zone the todo is re-parented; into another
    /// zone (a list shared by someone else) it is created there and deleted here, in one local transaction.
    @discardableResult
    nonisolated(nonsending) func move(_ key: RecordKey, toList listKey: RecordKey?) async throws -> TodoItem {
        guard var item = try await store.todo(key) else { throw SyncEngineError.notFound(key.recordName) }
        if let reason = RecordPermissions.refusal(toUpdate: item, status.permissionContext) { throw SyncEngineError.refused(reason) }
        var target: TodoItem?
        if let listKey { target = try await existingList(listKey) }
        if let target, let reason = RecordPermissions.refusal(toAddTo: target, status.permissionContext) {
            throw SyncEngineError.refused(reason)
        }
        let targetZone = target?.key.zone ?? ZoneKey(scope: .private, zoneName: TodoSchema.zoneName, zoneOwner: "")
        let now = clock.nowMilliseconds()
        if targetZone == key.zone {
            let old = item
            item.setList(target?.key.recordName)
            let saved = try await store.saveLocalEdit(time.stamped(item, from: old), at: now)
            await wrote(saved: [saved])
            return saved
        }
        guard RecordPermissions.canDelete(item, status.permissionContext) else {
            throw SyncEngineError.refused("this todo cannot leave its shared list: you may not delete it there")
        }
        var copy = TodoItem(
            key: RecordKey(
                scope: targetZone.scope, zoneName: targetZone.zoneName, zoneOwner: targetZone.zoneOwner,
                recordName: RecordNames.next()),
            title: item.title, notes: item.notes, isCompleted: item.isCompleted, dueDate: item.dueDate, priority: item.priority)
        copy.apply(fields: item.fields)  // tags, repeat, annotations and kept unknown fields go along
        copy.editStamps = nil
        copy.lostEdits = nil
        copy.setList(target?.key.recordName)
        copy.sharePermission = target?.sharePermission
        try await store.applyLocalChanges(saving: [copy], deleting: [key], at: now)
        await wrote([key, copy.key])
        return copy
    }

    /// The todos whose list is `listKey` (same zone, parented to it).
    nonisolated(nonsending) func todos(inList listKey: RecordKey) async throws -> [TodoItem] {
        try await store.todos(inZone: listKey.zone).filter { !$0.isList && $0.listName == listKey.recordName }
    }

    /// The lists the device knows, per scope (private: own; shared: others' lists shared with this user).
    nonisolated(nonsending) func lists() async throws -> [TodoItem] {
        try await store.records(ofType: TodoSchema.listType).filter { !$0.isTrashed }
    }

    private nonisolated(nonsending) func existingList(_ key: RecordKey) async throws -> TodoItem {
        guard let list = try await store.todo(key), list.isList else { throw SyncEngineError.notFound(key.recordName) }
        return try await withSharePermission(list)
    }
}
