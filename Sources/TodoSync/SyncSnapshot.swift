import CloudModel
import Foundation
import TodoStore

/// Whether the device can talk to the cloud, and as whom.
public enum ConnectionState: String, Sendable, Hashable {
    /// Signed in and the cloud answers.
    case online
    /// The cloud cannot be reached; edits queue up.
    case offline
    /// No one is signed in: private and shared are unavailable, the public board is read-only.
    case signedOut
}

/// How far a long fetch has come.
public struct FetchProgress: Sendable, Hashable {
    /// Records (and tombstones) applied so far in this pass.
    public var fetched: Int
    /// The total, when the cloud said.
    public var total: Int?

    /// Progress of a fetch.
    public init(fetched: Int, total: Int? = nil) {
        self.fetched = fetched
        self.total = total
    }
}

/// Everything the UI shows about the device, as one value.
public struct SyncSnapshot: Sendable, Hashable {
    /// Todos per scope, trashed ones hidden.
    public var todos: [DatabaseScope: [TodoItem]]
    public var connection: ConnectionState
    /// Whether a sync pass is running.
    public var isSyncing: Bool
    /// Local changes not yet confirmed by the cloud.
    public var pendingCount: Int
    /// Of those, the ones the cloud refused for good.
    public var failedCount: Int
    /// When the last complete sync finished.
    public var lastSyncAt: Date?
    /// Progress of the running fetch, if any.
    public var progress: FetchProgress?
    /// The last problem, in words for the user.
    public var lastError: String?
    /// The account name and the user record it signed in as.
    public var account: String?
    public var userRecordName: String?
    public var deviceName: String
    /// Who is asking, for `canUpdate` / `canDelete`.
    public var permissionContext: PermissionContext
    /// Lists others invited the user to, waiting for an answer.
    public var invitations: [SharedListInfo] = []
    /// Signed out because the cloud ended the session (revoked, password changed, account removed, expired).
    public var sessionEnded = false
    /// What the engine did on its own that the user must hear of, newest last (each carries an increasing sequence).
    public var notices: [SyncNotice] = []

    /// An empty snapshot for a device.
    public init(deviceName: String) {
        todos = [:]
        connection = .signedOut
        isSyncing = false
        pendingCount = 0
        failedCount = 0
        self.deviceName = deviceName
        permissionContext = PermissionContext(isSignedIn: false, userRecordName: nil)
    }

    /// The visible todos of one scope.
    public func todos(in scope: DatabaseScope) -> [TodoItem] { todos[scope] ?? [] }

    /// Whether the UI may offer editing this record.
    public func canUpdate(_ item: TodoItem) -> Bool { RecordPermissions.canUpdate(item, permissionContext) }

    /// Whether the UI may offer deleting this record.
    public func canDelete(_ item: TodoItem) -> Bool { RecordPermissions.canDelete(item, permissionContext) }

    /// What trashing this record would do.
    public func trashAction(_ item: TodoItem) -> TrashAction { RecordPermissions.trashAction(item, permissionContext) }

    /// A one-line status: "online", "offline · 3 pending", "signed out", "syncing 1200…".
    public var statusLine: String {
        // Joined by hand: `joined(separator:)` looks up a conformance over the whole binary at its first use, and
        // every list from the cache prints this line.
        var line: String
        switch connection {
        case .online: line = isSyncing ? "syncing" + (progress.map { " \($0.fetched)" + ($0.total.map { "/\($0)" } ?? "") } ?? "") : "online"
        case .offline: line = "offline"
        case .signedOut: line = "signed out"
        }
        if pendingCount > 0 { line += " · \(pendingCount) pending" }
        if failedCount > 0 { line += " · \(failedCount) refused" }
        return line
    }
}

/// Why the engine refused a local operation.
public enum SyncEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The permission table forbids it; the reason is for the user.
    case refused(String)
    /// No such record on this device.
    case notFound(String)

    public var description: String {
        switch self {
        case .refused(let reason): reason
        case .notFound(let what): "no such todo: \(what)"
        }
    }
}
