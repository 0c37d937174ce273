import CloudModel
import Foundation
import Terminal
import TodoStore
import TodoSync
import TodoUI

/// Connects the sync engine to the terminal UI: snapshots become rows and status, UI effects become engine calls.
///
/// Row ids are the record key's description (`scope/zone/name`), so records of different databases never collide.
@MainActor
public final class AppBridge {
    private let session: DeviceSession
    private let inbox: UpdateInbox
    /// Keys of the rows last shown, and of records the UI created before a snapshot showed them.
    private var keys: [String: RecordKey] = [:]

    /// A bridge posting to `inbox` and acting on `session`.
    public init(session: DeviceSession, inbox: UpdateInbox) {
        self.session = session
        self.inbox = inbox
    }

    /// The id the UI uses for a record.
    public nonisolated static func rowID(_ key: RecordKey) -> String { key.description }

    /// The rows and status of a snapshot, with permissions decided by the sync layer.
    public nonisolated static func update(from snapshot: SyncSnapshot) -> (rows: [TodoRow], status: SyncStatus, keys: [String: RecordKey]) {
        var rows: [TodoRow] = []
        var keys: [String: RecordKey] = [:]
        for scope in DatabaseScope.allCases {
            for item in snapshot.todos(in: scope) {
                let id = rowID(item.key)
                keys[id] = item.key
                let trash: TrashBehaviour
                switch snapshot.trashAction(item) {
                case .delete: trash = .delete
                case .markTrashed: trash = .markTrashed
                case .refuse(let reason): trash = .refuse(reason: reason)
                }
                let canUpdate = snapshot.canUpdate(item)
                rows.append(
                    TodoRow(
                        id: id, title: item.title, notes: item.notes, isCompleted: item.isCompleted, dueDate: item.dueDate,
                        priority: item.priority, scope: Scope(scope), canUpdate: canUpdate, canDelete: snapshot.canDelete(item),
                        trashBehaviour: trash, lockReason: canUpdate ? nil : RecordPermissions.refusal(toUpdate: item, snapshot.permissionContext),
                        isPending: item.hasPendingChanges))
            }
        }
        let connection: Connection
        switch snapshot.connection {
        case .online: connection = .online
        case .offline: connection = .offline
        case .signedOut: connection = .signedOut
        }
        let status = SyncStatus(
            account: snapshot.connection == .signedOut ? nil : snapshot.account, device: snapshot.deviceName, connection: connection,
            pendingCount: snapshot.pendingCount, lastSync: snapshot.lastSyncAt,
            progress: snapshot.progress.map { TodoUI.FetchProgress(fetched: $0.fetched, total: $0.total) }, lastError: snapshot.lastError)
        return (rows, status, keys)
    }

    /// Shows a snapshot.
    public func show(_ snapshot: SyncSnapshot) {
        let update = Self.update(from: snapshot)
        keys.merge(update.keys) { $1 }
        inbox.post(.data(rows: update.rows, status: update.status))
    }

    /// Performs one UI effect on the engine; failures become a status-line message.
    public func perform(_ effect: Effect) async {
        let engine = session.engine
        do {
            switch effect {
            case .create(let id, let draft):
                let scope = DatabaseScope(draft.scope)
                let item = try await engine.add(
                    title: draft.title, notes: draft.notes, dueDate: draft.dueDate, priority: draft.priority, to: scope, recordName: id)
                keys[id] = item.key
                keys[Self.rowID(item.key)] = item.key
            case .update(let id, let draft):
                _ = try await engine.edit(
                    try key(id), TodoEdit(title: draft.title, notes: draft.notes, dueDate: .some(draft.dueDate), priority: draft.priority))
            case .setCompleted(let id, let done):
                _ = try await engine.setCompleted(try key(id), done)
            case .delete(let id):
                try await engine.delete(try key(id))
            case .setTrashed(let id, let trashed):
                if trashed {
                    if case .refuse(let reason) = try await engine.trash(try key(id)) {
                        inbox.post(.message(StatusMessage(reason, kind: .error)))
                    }
                } else {
                    _ = try await engine.untrash(try key(id))
                }
            case .refresh:
                await engine.refresh()
            case .quit:
                break
            }
        } catch {
            inbox.post(.message(StatusMessage("\(error)", kind: .error)))
        }
    }

    private func key(_ id: String) throws -> RecordKey {
        guard let key = keys[id] else { throw DeviceSessionError("that record is no longer here") }
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
