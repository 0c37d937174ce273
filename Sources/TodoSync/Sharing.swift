import CloudClient
import CloudModel
import Foundation
import TodoStore

/// A list shared with the user, as `todo shares` and the invitation list show it.
public struct SharedListInfo: Sendable, Hashable {
    /// The share, as the cloud answered.
    public var share: ShareInfo
    /// Whether the user accepted it.
    public var isAccepted: Bool
    /// What the user may do in it.
    public var permission: SharePermission

    /// The reference that accepts or leaves it.
    public var reference: ShareReference { ShareReference(shareRecordName: share.shareRecordName, zoneID: share.zoneID) }
}

/// Sharing lists: talks to the cloud at once (it needs the network, and the list must have been uploaded), then brings
/// the share records into the cache with a pass; keeps the invitations the UI shows. Confined to the engine's actor.
final class Sharing {
    private let store: TodoStore
    private let calls: CloudCalls
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let scheduler: PassScheduler

    init(store: TodoStore, calls: CloudCalls, status: EngineStatus, feed: ChangeFeed, scheduler: PassScheduler) {
        self.store = store
        self.calls = calls
        self.status = status
        self.feed = feed
        self.scheduler = scheduler
    }

    private var client: CloudClient { calls.client }

    /// Shares a list with an account (or changes their access), keeping everyone else on the share as they are.
    /// Sharing talks to the cloud at once: it needs the network, and the list must have been uploaded.
    nonisolated(nonsending) func share(list listKey: RecordKey, with account: String, permission: SharePermission) async throws {
        let list = try await uploadedOwnList(listKey)
        var participants = try await currentParticipants(of: list.key)
        participants.removeAll { $0.account == account }
        participants.append(.init(account: account, permission: ShareParticipantPermission(permission)))
        try await saveShare(list.key, participants: participants)
    }

    /// Takes one account off a list's share; the share ends when nobody is left.
    nonisolated(nonsending) func removeParticipant(list listKey: RecordKey, account: String) async throws {
        let list = try await uploadedOwnList(listKey)
        var participants = try await currentParticipants(of: list.key)
        guard participants.contains(where: { $0.account == account }) else {
            throw SyncEngineError.refused("'\(list.title)' is not shared with \(account)")
        }
        participants.removeAll { $0.account == account }
        if participants.isEmpty {
            try await stopSharing(list: listKey)
        } else {
            try await saveShare(list.key, participants: participants)
        }
    }

    /// Stops sharing a list: every participant loses it.
    nonisolated(nonsending) func stopSharing(list listKey: RecordKey) async throws {
        let list = try await uploadedOwnList(listKey)
        let operation = ModifySharesRequest.Operation(.delete, zoneID: list.key.zoneID, rootRecordName: list.key.recordName)
        try await modifyShares(operation)
    }

    /// The lists the user shares with others, as the cloud has them.
    nonisolated(nonsending) func ownedShares() async throws -> [ShareInfo] {
        try await online { try await client.listOwnedShares() }
    }

    /// Lists others share with the user, accepted and not; also refreshes the invitations the UI shows.
    nonisolated(nonsending) func sharedWithMe() async throws -> [SharedListInfo] {
        let shares = try await online { try await client.listSharedWithMe() }
        let infos = shares.compactMap { share -> SharedListInfo? in
            guard let me = share.currentUserParticipant else { return nil }
            return SharedListInfo(share: share, isAccepted: me.acceptanceStatus == .accepted, permission: SharePermission(me.permission))
        }
        status.invitations = infos.filter { !$0.isAccepted }
        feed.publish()
        return infos
    }

    /// Accepts an invitation; the list then arrives through the shared database.
    nonisolated(nonsending) func accept(_ reference: ShareReference) async throws {
        let results = try await online { try await client.acceptShares([reference]) }
        if let error = results.first?.error { throw CloudError(error) }
        status.invitations.removeAll { $0.reference == reference }
        await scheduler.sync(.push(.shared))
    }

    /// Declines an invitation, or leaves an accepted share.
    nonisolated(nonsending) func leave(_ reference: ShareReference) async throws {
        let results = try await online { try await client.leaveShares([reference]) }
        if let error = results.first?.error { throw CloudError(error) }
        status.invitations.removeAll { $0.reference == reference }
        await scheduler.sync(.push(.shared))
    }

    /// Leaves the share a shared list came through.
    nonisolated(nonsending) func leave(list listKey: RecordKey) async throws {
        guard listKey.scope == .shared else { throw SyncEngineError.refused("only lists shared with you can be left") }
        let shares = try await store.records(ofType: ShareSchema.recordType, inZone: listKey.zone).compactMap(ShareState.init)
        guard let share = shares.first(where: { $0.rootRecordName == listKey.recordName }) else {
            throw SyncEngineError.notFound(listKey.recordName)
        }
        try await leave(ShareReference(shareRecordName: share.key.recordName, zoneID: listKey.zoneID))
    }

    /// Refreshes the pending invitations after a pass that may have brought new ones (launch, refresh, shared push).
    nonisolated(nonsending) func refreshInvitationsAfterPass(_ reasons: Set<SyncReason>) async {
        let hinted = reasons.contains { [.launch, .manualRefresh, .networkBack, .push(nil), .push(.shared)].contains($0) }
        guard hinted, status.connection == .online else { return }
        _ = try? await sharedWithMe()
    }

    // MARK: helpers

    private nonisolated(nonsending) func uploadedOwnList(_ key: RecordKey) async throws -> TodoItem {
        guard let list = try await store.todo(key), list.isList else { throw SyncEngineError.notFound(key.recordName) }
        guard key.scope == .private else { throw SyncEngineError.refused("only the owner of '\(list.title)' can share it") }
        if !list.system.isUploaded || list.hasPendingChanges {
            await scheduler.sync(.manualRefresh)  // send the list first: the cloud shares only what it has
            guard let sent = try await store.todo(key), sent.system.isUploaded else {
                throw SyncEngineError.refused("'\(list.title)' is not in the cloud yet; share it once it has synced")
            }
            return sent
        }
        return list
    }

    private nonisolated(nonsending) func currentParticipants(of root: RecordKey) async throws -> [ModifySharesRequest.Participant] {
        let owned = try await ownedShares()
        guard let share = owned.first(where: { $0.rootRecordName == root.recordName && $0.zoneID.zoneName == root.zoneName }) else {
            return []
        }
        return share.participants.compactMap { person in
            person.account.map { ModifySharesRequest.Participant(account: $0, permission: person.permission) }
        }
    }

    private nonisolated(nonsending) func saveShare(_ root: RecordKey, participants: [ModifySharesRequest.Participant]) async throws {
        try await modifyShares(.init(.save, zoneID: root.zoneID, rootRecordName: root.recordName, participants: participants))
    }

    private nonisolated(nonsending) func modifyShares(_ operation: ModifySharesRequest.Operation) async throws {
        let results = try await online { try await client.modifyShares(ModifySharesRequest(operations: [operation])) }
        if let error = results.first?.error { throw CloudError(error) }
        await scheduler.sync(.manualRefresh)  // bring the share record (and its participants) into the cache
    }

    /// Runs a call that needs the cloud now, with the usual retries; offline or signed out, it is refused.
    private nonisolated(nonsending) func online<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        guard status.connection != .signedOut else { throw SyncEngineError.refused("signed out: sign in to share lists") }
        guard status.connection == .online else { throw SyncEngineError.refused("offline: sharing needs the cloud; try again when online") }
        return try await calls.withRetries(call)
    }
}

extension ShareParticipantPermission {
    /// The wire permission of a device-side one.
    public init(_ permission: SharePermission) {
        self = permission == .readOnly ? .readOnly : .readWrite
    }
}

extension SharePermission {
    /// The device-side permission of a wire one.
    public init(_ permission: ShareParticipantPermission) {
        self = permission == .readOnly ? .readOnly : .readWrite
    }
}
