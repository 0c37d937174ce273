import CloudModel
import Foundation
import TodoPlanning
import TodoStore

extension SyncEngine {
    /// Creates a `TodoList` in the private `Todos` zone; stored and queued at once.
    @discardableResult
    public func addList(title: String, recordName: String? = nil) async throws -> TodoItem {
        guard permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add lists") }
        let name = recordName ?? RecordNames.next()
        let item = stamped(TodoItem(key: .privateTodo(name), recordType: TodoSchema.listType, title: title), from: nil)
        let saved = try await store.saveLocalEdit(item, at: clock.nowMilliseconds())
        await afterLocalEdits([item.key])
        return saved
    }

    /// Adds a todo to a list: in the list's own zone (a shared list lives in its owner's zone), parented to it.
    @discardableResult
    public func add(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, tags: [String] = [],
        repeat repeating: RepeatSetting? = nil, toList listKey: RecordKey, recordName: String? = nil
    ) async throws -> TodoItem {
        let list = try await existingList(listKey)
        if let reason = RecordPermissions.refusal(toAddTo: list, permissionContext) { throw SyncEngineError.refused(reason) }
        let key = RecordKey(
            scope: listKey.scope, zoneName: listKey.zoneName, zoneOwner: listKey.zoneOwner,
            recordName: recordName ?? RecordNames.next())
        var item = NewTodo(title: title, notes: notes, due: due, priority: priority, tags: tags, repeating: repeating).item(key)
        item.setList(listKey.recordName)
        item.sharePermission = list.sharePermission
        let saved = try await store.saveLocalEdit(stamped(item, from: nil), at: clock.nowMilliseconds())
        await afterLocalEdits([key])
        return saved
    }

    /// Deletes a list and every todo in it, in one local transaction, if the permission table allows.
    /// Answers how many todos went with it.
    @discardableResult
    public func deleteList(_ listKey: RecordKey) async throws -> Int {
        let list = try await existingList(listKey)
        if case .refuse(let reason) = RecordPermissions.trashAction(list, permissionContext) { throw SyncEngineError.refused(reason) }
        let members = try await todos(inList: listKey)
        let keys = members.map(\.key) + [listKey]
        try await store.applyLocalChanges(saving: [], deleting: keys, at: clock.nowMilliseconds())
        await afterLocalEdits(keys)
        return members.count
    }

    /// Moves a todo to another list (nil: to no list). Within a zone the todo is re-parented; into another
    /// zone (a list shared by someone else) it is created there and deleted here, in one local transaction.
    @discardableResult
    public func move(_ key: RecordKey, toList listKey: RecordKey?) async throws -> TodoItem {
        guard var item = try await store.todo(key) else { throw SyncEngineError.notFound(key.recordName) }
        if let reason = RecordPermissions.refusal(toUpdate: item, permissionContext) { throw SyncEngineError.refused(reason) }
        var target: TodoItem?
        if let listKey { target = try await existingList(listKey) }
        if let target, let reason = RecordPermissions.refusal(toAddTo: target, permissionContext) {
            throw SyncEngineError.refused(reason)
        }
        let targetZone = target?.key.zone ?? ZoneKey(scope: .private, zoneName: TodoSchema.zoneName, zoneOwner: "")
        let now = clock.nowMilliseconds()
        if targetZone == key.zone {
            let old = item
            item.setList(target?.key.recordName)
            let saved = try await store.saveLocalEdit(stamped(item, from: old), at: now)
            await afterLocalEdits([key])
            return saved
        }
        guard RecordPermissions.canDelete(item, permissionContext) else {
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
        await afterLocalEdits([key, copy.key])
        return copy
    }

    /// The todos whose list is `listKey` (same zone, parented to it).
    public func todos(inList listKey: RecordKey) async throws -> [TodoItem] {
        try await store.todos(inZone: listKey.zone).filter { !$0.isList && $0.listName == listKey.recordName }
    }

    /// The lists the device knows, per scope (private: own; shared: others' lists shared with this user).
    public func lists() async throws -> [TodoItem] {
        try await store.records(ofType: TodoSchema.listType).filter { !$0.isTrashed }
    }

    private func existingList(_ key: RecordKey) async throws -> TodoItem {
        guard let list = try await store.todo(key), list.isList else { throw SyncEngineError.notFound(key.recordName) }
        return try await withSharePermission(list)
    }
}
