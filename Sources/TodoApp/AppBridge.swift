import CloudClient
import CloudModel
import Foundation
import Terminal
import TodoPlanning
import TodoStore
import TodoSync
import TodoUI

/// Connects the sync engine to the terminal UI: snapshots become rows and status, UI effects become engine calls.
///
/// Row ids encode the whole record key (scope, zone owner, zone, name — joined by U+001F, a control character no
/// name may contain), so records of different databases never collide and no id → key table is kept for 100,000 rows.
@MainActor
public final class AppBridge {
    private let session: DeviceSession
    private let inbox: UpdateInbox
    private let reader: ChangeReader
    /// Keys of records the UI created (with ids it chose) before a snapshot showed them.
    private var created: [String: RecordKey] = [:]
    /// The last engine notice posted as a message (each is shown once).
    private var lastNotice = 0
    /// The annotations of todos deleted lately, by row id: a row does not hold them, so an undo that recreates the
    /// todo under its id puts them back from here (the latest `keptDeletions` deletions).
    private var deletedAnnotations: [String: [Annotation]] = [:]
    private var deletionOrder: [String] = []
    private static let keptDeletions = 256

    /// A bridge posting to `inbox` what `reader` takes from `session`'s engine, and acting on the engine.
    public init(session: DeviceSession, inbox: UpdateInbox, reader: ChangeReader) {
        self.session = session
        self.inbox = inbox
        self.reader = reader
    }

    private nonisolated static let separator: Character = "\u{1F}"

    /// The id the UI uses for a record: its bare name in the private `Todos` zone (sharing the name's storage,
    /// which matters with 100,000 rows), else scope, owner, zone and name joined.
    public nonisolated static func rowID(_ key: RecordKey) -> String {
        if key.zone == .privateTodos { return key.recordName }
        return [key.scope.rawValue, key.zoneOwner, key.zoneName, key.recordName].joined(separator: String(separator))
    }

    /// The id a new record's row gets (the UI's `RowNaming`): the id `rowID` gives the key the engine will store it
    /// under — in the list's own zone (a list someone else owns lives in their zone), on the public board, or in the
    /// private zone — so the row drawn at once and the record confirmed later are one row.
    @Sendable public nonisolated static func newRowID(_ name: String, _ scope: Scope, _ listID: String?) -> String {
        if let listID, let list = recordKey(listID) {
            return rowID(RecordKey(scope: list.scope, zoneName: list.zoneName, zoneOwner: list.zoneOwner, recordName: name))
        }
        switch scope {
        case .public: return rowID(.publicRecord(name))
        case .private, .shared: return rowID(.privateTodo(name))
        }
    }

    /// The record key a row id stands for, if it is one `rowID` made.
    public nonisolated static func recordKey(_ id: String) -> RecordKey? {
        guard !id.isEmpty else { return nil }
        if !id.contains(separator) { return .privateTodo(id) }
        let parts = id.split(separator: separator, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let scope = DatabaseScope(rawValue: String(parts[0])) else { return nil }
        return RecordKey(scope: scope, zoneName: String(parts[2]), zoneOwner: String(parts[1]), recordName: String(parts[3]))
    }

    /// The status line's view of an engine state.
    public nonisolated static func status(from snapshot: SyncSnapshot) -> SyncStatus {
        let connection: Connection
        switch snapshot.connection {
        case .online: connection = .online
        case .offline: connection = .offline
        case .signedOut: connection = .signedOut
        }
        var status = SyncStatus(
            account: snapshot.account, device: snapshot.deviceName, connection: connection,
            pendingCount: snapshot.pendingCount, lastSync: snapshot.lastSyncAt,
            progress: snapshot.progress.map { TodoUI.FetchProgress(fetched: $0.fetched, total: $0.total) }, lastError: snapshot.lastError.map(plainMessage))
        status.sessionEnded = snapshot.sessionEnded
        status.invitations = snapshot.invitations.map {
            Invitation(
                id: invitationID($0.reference), listTitle: $0.share.rootTitle ?? "a list",
                owner: $0.share.owner.account ?? $0.share.owner.userRecordName, access: ShareAccess($0.permission))
        }
        return status
    }

    /// The UI's changes for the engine's: record keys become row ids.
    public nonisolated static func rowChanges(_ changes: consuming VisibleChanges<TodoRow>) -> RowChanges {
        RowChanges(
            reloaded: Set(changes.reloadStarted.map(Scope.init)), reloadFinished: Set(changes.reloadFinished.map(Scope.init)),
            rows: changes.rows, removed: changes.removed.map(rowID))
    }

    /// The row a record becomes, with permissions decided by the sync layer; nil for share records, which are no
    /// rows but say how their lists are shared.
    @Sendable public nonisolated static func row(_ item: TodoItem, _ context: RowContext) -> TodoRow? {
        guard item.recordType != ShareSchema.recordType else { return nil }
        let permissions = context.permissions
        let trash: TrashBehaviour
        switch RecordPermissions.trashAction(item, permissions) {
        case .delete: trash = .delete
        case .markTrashed: trash = .markTrashed
        case .refuse(let reason): trash = .refuse(reason: reason + (item.isList && item.key.scope == .shared ? " (x leaves it)" : ""))
        }
        let canUpdate = RecordPermissions.canUpdate(item, permissions)
        var row = TodoRow(
            id: rowID(item.key), title: item.title, notes: item.notes, isCompleted: item.isCompleted, due: item.due,
            priority: item.priority, scope: Scope(item.key.scope), canUpdate: canUpdate, canDelete: RecordPermissions.canDelete(item, permissions),
            trashBehaviour: trash, lockReason: canUpdate ? nil : RecordPermissions.refusal(toUpdate: item, permissions),
            isPending: item.hasPendingChanges, tags: item.tags, repeatRule: item.repeatRule,
            repeatFromCompletion: item.repeatFromCompletion, annotations: item.annotations,
            created: item.system.created?.date)
        if item.wait != nil || item.scheduled != nil || item.until != nil || item.start != nil {
            (row.wait, row.scheduled, row.until, row.start) = (item.wait, item.scheduled, item.until, item.start)
        }
        if !item.depends.isEmpty {
            // Blockers live in the todo's own zone (`todo edit --depends` allows no other).
            let key = item.key
            row.depends = item.depends.map { rowID(RecordKey(scope: key.scope, zoneName: key.zoneName, zoneOwner: key.zoneOwner, recordName: $0)) }
        }
        let unreadable = item.unreadableFields
        if !unreadable.isEmpty { row.unreadableFields = unreadable }
        if item.isList {
            let share = context.shares[item.key]
            row.kind = .list
            row.canAddItems = RecordPermissions.refusal(toAddTo: item, permissions) == nil
            switch item.key.scope {
            case .shared:
                row.sharing = ListSharing(owner: share?.ownerAccount ?? "its owner", access: item.sharePermission.map(ShareAccess.init))
            case .private, .public:
                if let share, !share.members.isEmpty {
                    row.sharing = ListSharing(participants: share.members.map {
                        ShareParticipant(account: $0.account, access: ShareAccess($0.permission), hasAccepted: $0.hasAccepted)
                    })
                }
            }
        } else if let listName = item.listName {
            row.listID = rowID(RecordKey(scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner, recordName: listName))
        }
        return row
    }

    /// The UI's id of an invitation: the share's zone owner, zone and record name.
    nonisolated static func invitationID(_ reference: ShareReference) -> String {
        [reference.zoneID.ownerRecordName ?? "", reference.zoneID.zoneName, reference.shareRecordName].joined(separator: String(separator))
    }

    /// The share an invitation id stands for.
    nonisolated static func shareReference(_ id: String) -> ShareReference? {
        let parts = id.split(separator: separator, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return ShareReference(
            shareRecordName: String(parts[2]), zoneID: ZoneID(zoneName: String(parts[1]), ownerRecordName: String(parts[0])))
    }

    /// Takes what changed for the reader (every chunk of a scope read again) and posts it with the state the engine
    /// woke the reader with.
    public func show(_ snapshot: SyncSnapshot) async {
        // What the engine did on its own (an edit reverted, data deleted elsewhere) is said once, over any older message.
        for notice in snapshot.notices where notice.sequence > lastNotice {
            lastNotice = notice.sequence
            inbox.post(.message(StatusMessage(notice.text, kind: .warning)))
        }
        do {
            var more = true
            while more {
                let changes = try await session.engine.takeChanges(reader, makeRow: Self.row)
                more = changes.hasMore
                inbox.post(.changes(Self.rowChanges(consume changes), status: Self.status(from: snapshot)))
            }
            try await announceLostEdits()
        } catch {
            inbox.post(.status(Self.status(from: snapshot)))
            inbox.post(.message(StatusMessage("cannot read the cache: \(plainMessage(for: error))", kind: .error)))
        }
    }

    /// Posts the values that newly lost a conflict (synced from any device), once per device.
    private func announceLostEdits() async throws {
        let notices = try await session.engine.conflicts(unannounced: true)
        guard !notices.isEmpty else { return }
        for notice in notices.reversed() {
            inbox.post(.lostEdit(LostEditNotice(rowID: Self.rowID(notice.key), lossID: notice.edit.id, sentence: notice.sentence, isMine: notice.isMine)))
        }
        try await session.engine.markAnnounced(notices)
    }

    /// Keeps a deleted todo's annotations for an undo, forgetting the oldest beyond `keptDeletions`.
    private func keepAnnotations(_ annotations: [Annotation], of id: String) {
        if deletedAnnotations.updateValue(annotations, forKey: id) == nil { deletionOrder.append(id) }
        while deletionOrder.count > Self.keptDeletions { deletedAnnotations[deletionOrder.removeFirst()] = nil }
    }

    /// Performs one UI effect on the engine; failures become a status-line message.
    public func perform(_ effect: Effect) async {
        let engine = session.engine
        do {
            switch effect {
            case .create(let id, let draft) where draft.kind == .list:
                let item = try await engine.addList(title: draft.title, recordName: Self.recordName(id))
                settle(id, as: item.key)
            case .create(let id, let draft):
                let item: TodoItem
                let repeating = draft.repeatRule.map { RepeatSetting(rrule: $0, fromCompletion: draft.repeatFromCompletion) }
                if let listID = draft.listID {
                    item = try await engine.add(
                        title: draft.title, notes: draft.notes, due: draft.due, priority: draft.priority, tags: draft.tags,
                        repeat: repeating, toList: try key(listID), recordName: Self.recordName(id))
                } else {
                    item = try await engine.add(
                        title: draft.title, notes: draft.notes, due: draft.due, priority: draft.priority, tags: draft.tags,
                        repeat: repeating, to: DatabaseScope(draft.scope), recordName: Self.recordName(id))
                }
                settle(id, as: item.key)
                if draft.wait != nil || draft.scheduled != nil || draft.until != nil || !draft.depends.isEmpty {
                    var dates = TodoEdit(wait: draft.wait.map { .some($0) }, scheduled: draft.scheduled.map { .some($0) }, until: draft.until.map { .some($0) })
                    if !draft.depends.isEmpty { dates.dependsList = draft.depends.map(Self.recordName) }
                    _ = try await engine.edit(item.key, dates)
                }
                if let annotations = deletedAnnotations.removeValue(forKey: id) {
                    _ = try await engine.edit(item.key, TodoEdit(annotate: annotations))
                }
            case .update(let id, let draft) where draft.kind == .list:
                _ = try await engine.edit(try key(id), TodoEdit(title: draft.title))
            case .update(let id, let draft):
                let repeating = draft.repeatRule.map { RepeatSetting(rrule: $0, fromCompletion: draft.repeatFromCompletion) }
                var edit = TodoEdit(
                    title: draft.title, notes: draft.notes, due: .some(draft.due), priority: draft.priority, tags: draft.tags, repeatRule: .some(repeating),
                    wait: .some(draft.wait), scheduled: .some(draft.scheduled), until: .some(draft.until))
                edit.dependsList = draft.depends.map(Self.recordName)
                _ = try await engine.edit(try key(id), edit)
            case .edit(let id, let changes):
                _ = try await engine.edit(try key(id), Self.edit(changes))
            case .annotate(let id, let text):
                _ = try await engine.edit(try key(id), TodoEdit(annotate: [Annotation(entry: Date(), text: text)]))
            case .skip(let id):
                _ = try await engine.skip(try key(id))
            case .unskip(let id):
                _ = try await engine.unskip(try key(id))
            case .batch(let effects):
                for effect in effects { await perform(effect) }
            case .saveFilter, .setSortOrder, .setContext, .editNotes:
                break  // the configuration file and the editor, which the terminal app looks after
            case .restoreLost(let id, let lossID):
                let record = try key(id)
                guard let notice = try await engine.conflicts().first(where: { $0.key == record && $0.edit.id == lossID }) else {
                    throw DeviceSessionError("that value was restored or dismissed already")
                }
                try await engine.restore(notice)
            case .setCompleted(let id, let done):
                _ = try await engine.setCompleted(try key(id), done)
            case .delete(let id):
                let record = try key(id)
                if let annotations = try await engine.todo(record)?.annotations, !annotations.isEmpty {
                    keepAnnotations(annotations, of: id)
                }
                try await engine.delete(record)
            case .setTrashed(let id, let trashed):
                if trashed {
                    if case .refuse(let reason) = try await engine.trash(try key(id)) {
                        inbox.post(.message(StatusMessage(reason, kind: .error)))
                    }
                } else {
                    _ = try await engine.untrash(try key(id))
                }
            case .move(let id, let listID):
                _ = try await engine.move(try key(id), toList: try listID.map { try key($0) })
            case .share(let listID, let account, let access):
                let list = try key(listID)
                inBackground("sharing with \(account)", reread: [list]) {
                    try await engine.share(list: list, with: account, permission: SharePermission(access))
                }
            case .removeParticipant(let listID, let account):
                let list = try key(listID)
                inBackground("removing \(account)", reread: [list]) { try await engine.removeParticipant(list: list, account: account) }
            case .stopSharing(let listID):
                let list = try key(listID)
                inBackground("stopping the share", reread: [list]) { try await engine.stopSharing(list: list) }
            case .accept(let invitationID):
                let share = try reference(invitationID)
                inBackground("accepting", reread: []) { try await engine.accept(share) }
            case .decline(let invitationID):
                let share = try reference(invitationID)
                inBackground("declining", reread: []) { try await engine.leave(share) }
            case .leave(let listID):
                let list = try key(listID)
                inBackground("leaving", reread: [list]) { try await engine.leave(list: list) }
            case .refresh:
                refreshInBackground()
            case .showingPublicBoard(let visible):
                await engine.setPublicBoardVisible(visible)
            case .quit, .signIn:
                break  // a sign-in is the terminal app's (it holds the device's options)
            }
        } catch {
            // The screen assumed the effect worked: the cache's truth about what it touched replaces that (a refused
            // add leaves no row behind, a refused edit shows the old values again).
            let keys = Self.touched(by: effect).compactMap { created[$0] ?? Self.recordKey($0) }
            if !keys.isEmpty { await engine.reread(reader, keys: keys) }
            inbox.post(.message(StatusMessage(plainMessage(for: error), kind: .error)))
        }
    }

    /// The record name a row id of a new record carries.
    nonisolated static func recordName(_ id: String) -> String { recordKey(id)?.recordName ?? id }

    /// Notes where a record the UI created lives; should the engine have put it elsewhere than its row id says, the
    /// row drawn at once goes (the engine's row replaces it), so no row is left pending forever.
    private func settle(_ id: String, as key: RecordKey) {
        created[id] = key
        if Self.rowID(key) != id { inbox.post(.removed(ids: [id])) }
    }

    /// The row ids an effect changes.
    nonisolated static func touched(by effect: Effect) -> [String] {
        switch effect {
        case .create(let id, _), .update(let id, _), .edit(let id, _), .setCompleted(let id, _), .delete(let id),
            .setTrashed(let id, _), .restoreLost(let id, _):
            [id]
        case .move(let id, let listID): [id] + (listID.map { [$0] } ?? [])
        case .share(let listID, _, _), .removeParticipant(let listID, _), .stopSharing(let listID), .leave(let listID): [listID]
        case .annotate(let id, _), .skip(let id), .unskip(let id), .editNotes(let id, _): [id]
        case .batch(let effects): effects.flatMap(touched(by:))
        case .accept, .decline, .refresh, .signIn, .showingPublicBoard, .quit, .saveFilter, .setSortOrder, .setContext: []
        }
    }

    /// The engine's edit for the fields the UI changed (`tags` is the whole new list).
    nonisolated static func edit(_ changes: TodoChanges) -> TodoEdit {
        let repeating = changes.repeatRule.map { rule in
            rule.map { RepeatSetting(rrule: $0, fromCompletion: changes.repeatFromCompletion ?? false) }
        }
        var edit = TodoEdit(
            title: changes.title, notes: changes.notes, due: changes.due, priority: changes.priority, tags: changes.tags,
            repeatRule: repeating, wait: changes.wait, scheduled: changes.scheduled, until: changes.until)
        edit.dependsList = changes.depends.map { $0.map(recordName) }
        return edit
    }

    /// Runs a refresh without holding up the keyboard; says when it is over, replacing "Refreshing…".
    private func refreshInBackground() {
        let inbox = inbox
        let engine = session.engine
        Task {
            await engine.refresh()
            if Task.isCancelled { return }
            let status = await engine.status()
            if status.connection == .online, let error = status.lastError {
                inbox.post(.message(StatusMessage("Refreshed, with a problem: \(plainMessage(error))", kind: .warning)))
            } else if status.connection == .online {
                inbox.post(.message(StatusMessage("Up to date.", kind: .success)))
            } else {
                inbox.post(.message(StatusMessage("Not refreshed: \(status.statusLine)", kind: .warning)))
            }
        }
    }

    /// Runs a call that waits on the cloud without holding up the keyboard; a failure becomes a message, and the
    /// engine's truth about `reread` (an invited name, a removed invitation: the status) replaces what the screen assumed.
    private func inBackground(_ what: String, reread keys: [RecordKey], _ call: @escaping @Sendable () async throws -> Void) {
        let inbox = inbox
        let engine = session.engine
        let reader = reader
        Task {
            do {
                try await call()
            } catch {
                await engine.reread(reader, keys: keys)
                inbox.post(.message(StatusMessage("Failed \(what): \(plainMessage(for: error))", kind: .error)))
            }
        }
    }

    private func reference(_ id: String) throws -> ShareReference {
        guard let share = Self.shareReference(id) else { throw DeviceSessionError("that invitation is no longer here") }
        return share
    }

    private func key(_ id: String) throws -> RecordKey {
        guard let key = created[id] ?? Self.recordKey(id) else { throw DeviceSessionError("that record is no longer here") }
        return key
    }
}

extension Scope {
    /// The UI scope of a database.
    public init(_ scope: DatabaseScope) {
        switch scope {
        case .private: self = .private
        case .shared: self = .shared
        case .public: self = .public
        }
    }
}

extension DatabaseScope {
    /// The database of a UI scope.
    public init(_ scope: Scope) {
        switch scope {
        case .private: self = .private
        case .shared: self = .shared
        case .public: self = .public
        }
    }
}

extension ShareAccess {
    /// The UI access of a device-side permission.
    public init(_ permission: SharePermission) {
        self = permission == .readOnly ? .readOnly : .readWrite
    }
}

extension SharePermission {
    /// The device-side permission of a UI access.
    public init(_ access: ShareAccess) {
        self = access == .readOnly ? .readOnly : .readWrite
    }
}
