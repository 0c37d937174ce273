import CloudClient
import CloudModel
import Foundation
import TodoStore

/// What the engine says of itself: connection, who is signed in, counts, progress and the last error.
///
/// The one piece of state every part of the engine shares (each part writes what it learns, snapshots read it);
/// confined to the engine's actor like every part.
final class EngineStatus {
    let client: CloudClient
    let configuration: SyncConfiguration
    var connection: ConnectionState
    var userRecordName: String?
    var lastError: String?
    var progress: FetchProgress?
    var isSyncing = false
    var lastSyncAt: Date?
    var pendingCount = 0
    var failedCount = 0
    /// Whether the device is signed out because the cloud ended its session (not on purpose).
    var sessionEnded = false
    /// Lists others invited the user to, not accepted yet (refreshed on launch, refresh and shared pushes).
    var invitations: [SharedListInfo] = []
    /// Seconds the engine waited on the clock for retries (for status and tests).
    var retryWaits: [Double] = []
    /// Passes completed, for tests and status.
    var completedPasses = 0
    /// Whether the kept state (last user, last sync) was read from the store yet.
    var hasLoadedState = false

    init(client: CloudClient, configuration: SyncConfiguration) {
        self.client = client
        self.configuration = configuration
        connection = client.authToken == nil ? .signedOut : .online
    }

    /// Who is asking, for the permission table.
    var permissionContext: PermissionContext {
        PermissionContext(isSignedIn: client.authToken != nil && connection != .signedOut, userRecordName: userRecordName)
    }

    /// Reloads the outbox counts.
    nonisolated(nonsending) func reloadCounts(_ store: TodoStore) async throws {
        pendingCount = try await store.pendingCount()
        failedCount = try await store.failedCount()
    }

    /// The last sync the cache names (ms since 1970), as a date.
    func noteLastSync(_ milliseconds: Int64?) {
        lastSyncAt = milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The state now, without todos.
    func snapshot(notices: [SyncNotice]) -> SyncSnapshot {
        var snapshot = SyncSnapshot(deviceName: configuration.deviceName)
        // Signed out, what the cache holds stays readable and nothing can change (docs/ACCOUNTS.md, "When a session ends").
        snapshot.connection = connection
        snapshot.sessionEnded = connection == .signedOut && sessionEnded
        snapshot.isSyncing = isSyncing
        snapshot.pendingCount = pendingCount
        snapshot.failedCount = failedCount
        snapshot.lastSyncAt = lastSyncAt
        snapshot.progress = progress
        snapshot.lastError = lastError
        snapshot.account = configuration.account
        snapshot.userRecordName = userRecordName
        snapshot.permissionContext = permissionContext
        snapshot.invitations = connection == .signedOut ? [] : invitations
        snapshot.notices = notices
        return snapshot
    }
}
