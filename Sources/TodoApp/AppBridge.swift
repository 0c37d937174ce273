import CloudModel
import Foundation
import Terminal
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
    /// Keys of records the UI created (with ids it chose) before a snapshot showed them.
    private var created: [String: RecordKey] = [:]

    /// A bridge posting to `inbox` and acting on `session`.
    public init(session: DeviceSession, inbox: UpdateInbox) {
        self.session = session
        self.inbox = inbox
    }

    private nonisolated static let separator: Character = "\u{1F}"

    /// The id the UI uses for a record.
    public nonisolated static func rowID(_ key: RecordKey) -> String {
        [key.scope.rawValue, key.zoneOwner, key.zoneName, key.recordName].joined(separator: String(separator))
    }

    /// The record key a row id stands for, if it is one `rowID` made.
    public nonisolated static func recordKey(_ id: String) -> RecordKey? {
        let parts = id.split(separator: separator, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let scope = DatabaseScope(rawValue: String(parts[0])) else { return nil }
        return RecordKey(scope: scope, zoneName: String(parts[2]), zoneOwner: String(parts[1]), recordName: String(parts[3]))
    }

    /// The rows and status of a snapshot, with permissions decided by the sync layer.
    public nonisolated static func update(from snapshot: SyncSnapshot) -> (rows: [TodoRow], status: SyncStatus) {
        var rows: [TodoRow] = []
        rows.reserveCapacity(snapshot.todos.values.reduce(0) { $0 + $1.count })
        for scope in DatabaseScope.allCases {
            for item in snapshot.todos(in: scope) {
                let id = rowID(item.key)
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
        return (rows, status)
    }

    /// Shows a snapshot.
    public func show(_ snapshot: SyncSnapshot) {
        let update = Self.update(from: snapshot)
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
                created[id] = item.key
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
        guard let key = Self.recordKey(id) ?? created[id] else { throw DeviceSessionError("that record is no longer here") }
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
