import CloudClient
import CloudModel
import Foundation
import TodoStore

/// What a pass sets up in the cloud before it fetches and sends — who is signed in (`users/caller`), the `Todos` zone,
/// the database subscriptions — and how it starts over when the zone is gone. Confined to the engine's actor.
final class PassSetup {
    private let store: TodoStore
    private let clock: any SyncClock
    private let calls: CloudCalls
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let notices: NoticeLog
    private let time: CloudTime
    private let board: PublicBoard

    init(
        store: TodoStore, clock: any SyncClock, calls: CloudCalls, status: EngineStatus, feed: ChangeFeed, notices: NoticeLog,
        time: CloudTime, board: PublicBoard
    ) {
        self.store = store
        self.clock = clock
        self.calls = calls
        self.status = status
        self.feed = feed
        self.notices = notices
        self.time = time
        self.board = board
    }

    private var client: CloudClient { calls.client }

    /// Asks who is signed in; another user than the cache's wipes the cache first.
    nonisolated(nonsending) func checkAccount(_ pass: inout PassProgress) async throws {
        let client = client
        let identity = try await calls.withRetries { try await client.caller() }
        if let previous = pass.state.lastKnownUser, previous != identity.userRecordName {
            // Another user: the old cache must not leak into this account.
            try await store.wipe()
            pass.state = SyncState()  // what the wipe left
            feed.invalidateAll()
            board.forgetLastPoll()
            pass.sequence.zoneMissing()
            try await status.reloadCounts(store)
        }
        if pass.state.lastKnownUser != identity.userRecordName {
            try await store.setLastKnownUser(identity.userRecordName)
            pass.state.lastKnownUser = identity.userRecordName
        }
        status.userRecordName = identity.userRecordName
        await time.measureIfDue(client)
        if status.connection != .online {
            status.connection = .online
            if status.lastError?.hasPrefix("offline") == true || status.lastError?.hasPrefix("signed out") == true { status.lastError = nil }
        }
        feed.publish()
    }

    /// Creates the private `Todos` zone (one that exists already will do).
    nonisolated(nonsending) func createTodosZone(_ pass: inout PassProgress) async throws {
        let client = client
        let results = try await calls.withRetries {
            try await client.modifyZones(.private, ModifyZonesRequest(operations: [.init(.create, ZoneKey.privateTodos.zoneID)]))
        }
        if let error = results.first?.error, error.serverErrorCode != .exists { throw CloudError(error) }
        try await store.setFlag(.createdCustomZone, true)
        pass.state.createdCustomZone = true
    }

    /// Saves the database subscriptions not saved yet.
    nonisolated(nonsending) func saveSubscriptions(private wantsPrivate: Bool, shared wantsShared: Bool, _ pass: inout PassProgress) async throws {
        let client = client
        for (scope, wanted, id, flag) in [
            (DatabaseScope.private, wantsPrivate, TodoSchema.privateSubscriptionID, SyncFlag.subscribedToPrivateChanges),
            (.shared, wantsShared, TodoSchema.sharedSubscriptionID, SyncFlag.subscribedToSharedChanges),
        ] where wanted {
            let subscription = Subscription(
                subscriptionID: id, subscriptionType: .database, notificationInfo: NotificationInfo(shouldSendContentAvailable: true))
            let results = try await calls.withRetries {
                try await client.modifySubscriptions(scope, ModifySubscriptionsRequest(operations: [.init(.create, subscription)]))
            }
            if let error = results.first?.error, error.serverErrorCode != .exists { throw CloudError(error) }
            try await store.setFlag(flag, true)
            if scope == .private { pass.state.subscribedToPrivateChanges = true } else { pass.state.subscribedToSharedChanges = true }
        }
    }

    /// The zone is gone on the server: queue every local record for re-upload and recreate zone and subscriptions.
    nonisolated(nonsending) func recoverMissingZone(_ pass: inout PassProgress) async throws {
        feed.invalidateAll()
        try await store.prepareReupload(of: .privateTodos, now: clock.nowMilliseconds())
        try await store.forgetZoneAndSubscriptions()
        Self.forgetFlags(&pass.state)
        pass.sequence.zoneMissing()
    }

    /// The user deleted their data (`USER_DELETED_ZONE`, seen on fetch or on send): purge the private zone here too,
    /// pending edits included, and recreate it empty with its subscriptions — what the database feed's zone deletion
    /// does, so "delete my data" sticks whichever device syncs first.
    nonisolated(nonsending) func purgeZoneDeletedByUser(_ pass: inout PassProgress) async throws {
        try await store.removeZone(.privateTodos)
        pass.state.zoneTokens[.privateTodos] = nil
        try await store.forgetZoneAndSubscriptions()
        Self.forgetFlags(&pass.state)
        feed.invalidateAll()
        try await status.reloadCounts(store)
        pass.sequence.zoneMissing()
        let words = "Your todos were deleted from the cloud on another device; removed here too."
        notices.report(SyncNotice(.dataDeleted, words), at: clock.nowMilliseconds())
    }

    /// As `TodoStore.forgetZoneAndSubscriptions` leaves the state.
    private static func forgetFlags(_ state: inout SyncState) {
        state.createdCustomZone = false
        state.subscribedToPrivateChanges = false
        state.subscribedToSharedChanges = false
    }
}
