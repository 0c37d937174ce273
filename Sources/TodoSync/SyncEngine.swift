import CloudClient
import CloudModel
import Foundation
import TodoStore

/// How a sync engine behaves.
public struct SyncConfiguration: Sendable {
    /// The device's name (as signed in).
    public var deviceName: String
    /// The device ID the cloud gave at sign-in; orders concurrent edits in a merge.
    public var deviceID: String
    /// The account name, for display.
    public var account: String?
    /// Seconds between public-board polls (default 5 minutes).
    public var publicPollInterval: Double
    /// Seconds between reachability probes while offline.
    public var reachabilityProbeInterval: Double
    /// Records per `changes/zone` page (≤ 200).
    public var fetchPageSize: Int
    /// Whether local edits are sent at once in the background (the command line sends explicitly).
    public var sendsAutomatically: Bool
    /// Backoff and retry limits.
    public var retryPolicy: RetryPolicy
    /// Seconds each push long-poll is held.
    public var pushPollTimeout: Int
    /// Seconds a trashed todo is kept (hidden) before it is deleted for good: as long as an edit made offline elsewhere
    /// may still arrive and bring it back (30 days, as long as the cloud keeps tombstones).
    public var trashRetention: Double

    /// A configuration for a device.
    public init(
        deviceName: String, deviceID: String? = nil, account: String? = nil, publicPollInterval: Double = 300,
        reachabilityProbeInterval: Double = 3, fetchPageSize: Int = CloudLimits.maxResultsPerPage, sendsAutomatically: Bool = true,
        retryPolicy: RetryPolicy = RetryPolicy(), pushPollTimeout: Int = 25, trashRetention: Double = 30 * 86_400
    ) {
        self.deviceName = deviceName
        self.deviceID = deviceID ?? deviceName
        self.account = account
        self.publicPollInterval = publicPollInterval
        self.reachabilityProbeInterval = reachabilityProbeInterval
        self.fetchPageSize = max(1, min(fetchPageSize, CloudLimits.maxResultsPerPage))
        self.sendsAutomatically = sendsAutomatically
        self.retryPolicy = retryPolicy
        self.pushPollTimeout = pushPollTimeout
        self.trashRetention = trashRetention
    }
}

/// The one owner of a device's sync state: runs the CloudKit local-cache workflow over a `TodoStore` and a `CloudClient`.
///
/// One method per sync event (launch, push, refresh, network back, local edit, poll timer); the pure
/// `SyncSequence`, `RetryPolicy`, `OutboxBatcher` and `ConflictMerge` decide, this actor performs.
public actor SyncEngine {
    /// The cloud client (its token says whether the device is signed in).
    public nonisolated let client: CloudClient
    /// The local cache.
    public nonisolated let store: TodoStore
    let clock: any SyncClock
    let configuration: SyncConfiguration
    let random: @Sendable () -> Double

    var connection: ConnectionState
    var userRecordName: String?
    var lastError: String?
    var progress: FetchProgress?
    var isSyncing = false
    var lastSyncAt: Date?
    var lastPublicPollAt: Date?
    /// Whether the kept state (last user, last sync) was read from the store yet.
    var hasLoadedState = false
    /// The visible todos for `snapshot()` (command-line verbs, tests), read on the first call and then patched key
    /// by key; the terminal app never asks, so it never holds them (it is a reader, see `changeReader`).
    var visibleTodos: [DatabaseScope: [TodoItem]] = [:]
    /// Keys whose cached copy may be stale.
    var dirtyKeys: Set<RecordKey> = []
    /// Whether the whole cache must be read again (wipe, zone removal, large changes).
    var needsFullReload = true
    var pendingCount = 0
    var failedCount = 0
    /// Words for the user that outlive the pass that produced them (an edit reverted because access was lowered).
    var notice: String?
    /// What the engine did on its own that the user must hear of (reverted edits, data deleted elsewhere), newest last.
    var notices: [SyncNotice] = []
    var noticeSequence = 0
    /// Notices not yet written to the cache.
    var pendingNoticeLines: [String] = []
    /// Whether the public board's tab is on screen (it is then polled every `visiblePublicPollInterval`).
    var publicBoardVisible = false
    /// The cache's `data_version` last seen: it changes when another process (the command line, a second window)
    /// commits to the same cache file.
    var cacheDataVersion: Int64?
    var cacheWatchTask: Task<Void, Never>?
    /// Lists others invited the user to, not accepted yet (refreshed on launch, refresh and shared pushes).
    var invitations: [SharedListInfo] = []
    /// Readers that keep their own rows and take changes (`changeReader`).
    var readers: [UUID: ReaderState] = [:]
    var queuedReasons: Set<SyncReason> = []
    var syncTask: Task<Void, Never>?
    var pushTask: Task<Void, Never>?
    var pollTask: Task<Void, Never>?
    var probeTask: Task<Void, Never>?
    var pushChannel: PushChannel?
    /// Seconds the engine waited on the clock for retries (for status and tests).
    public internal(set) var retryWaits: [Double] = []
    /// Passes completed, for tests and status.
    public internal(set) var completedPasses = 0
    /// Stamps this device's edits (SyncEngine+Conflicts); kept in the store between runs.
    var editClock: HybridClock
    /// How far the cloud's clock is ahead of this device's, once measured.
    var cloudOffset: CloudClockOffset?
    /// What the store keeps of both, to write them only when they changed.
    var keptClockValues: [String: String?] = [:]
    /// Asked for a fresh session token when the cloud refuses the kept one (SyncEngine+SignIn).
    var signInRenewal: SignInRenewal?
    /// Whether the device is signed out because the cloud ended its session (not on purpose).
    var sessionEnded = false
    /// Whether the engine listens for pushes (started so, and so again after a new sign-in).
    var listensForPushes = false
    /// How many times records changed in the cache under this engine (`invalidate`): what was read before may be stale.
    var cacheChanges = 0
    /// The outbox's first chunk, read while a pass's first steps wait for the cloud (SyncEngine+Outbox).
    var outboxPrefetch: OutboxPrefetch?

    /// An engine over a client and a store, with an injected clock and random source.
    public init(
        client: CloudClient, store: TodoStore, configuration: SyncConfiguration, clock: any SyncClock = SystemClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.client = client
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.random = random
        self.editClock = HybridClock(deviceID: configuration.deviceID)
        self.connection = client.authToken == nil ? .signedOut : .online
    }

    // MARK: Lifecycle

    /// Loads the cache, runs the launch sync, and (optionally) listens for pushes and polls the public board.
    public func start(listenForPushes: Bool = true) async {
        await loadFromStore()
        if listenForPushes {
            startListeningForPushes()
            startPublicPollTimer()
        }
        await sync(.launch)
    }

    /// Stops listening, polling and watching, cancels a running pass (a retry wait or a request in flight ends at
    /// once; what was confirmed stays confirmed, the rest waits in the outbox) and waits for it to end.
    public func stop() async {
        pushChannel?.stop()
        pushTask?.cancel()
        pollTask?.cancel()
        probeTask?.cancel()
        cacheWatchTask?.cancel()
        pushTask = nil
        pollTask = nil
        probeTask = nil
        cacheWatchTask = nil
        pushChannel = nil
        queuedReasons.removeAll()
        if let syncTask {
            syncTask.cancel()
            await syncTask.value
        }
        for reader in readers.values { reader.wakeups.finish() }
        readers.removeAll()
    }

    /// Reads the kept state (last user, last sync, outbox counts) before any network.
    public func loadFromStore() async {
        hasLoadedState = true
        do {
            let state = try await store.syncState()
            userRecordName = state.lastKnownUser
            lastSyncAt = state.lastSyncAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            try await loadEditClock()
            try await reloadCounts()
        } catch {
            lastError = "\(error)"
        }
        publish()
    }

    // MARK: Sync events

    /// Runs a sync pass for `reason` (coalesced with any pass already queued) and returns when it is done.
    public func sync(_ reason: SyncReason) async {
        requestSync(reason)
        if let syncTask { await syncTask.value }
    }

    /// Queues a sync pass without waiting for it.
    public func requestSync(_ reason: SyncReason) {
        queuedReasons.insert(reason)
        if syncTask == nil {
            syncTask = Task { await self.drainQueuedPasses() }
        }
    }

    /// Waits until no pass is running or queued.
    public func waitUntilIdle() async {
        while let syncTask { await syncTask.value }
    }

    /// A push arrived: fetch (the push says nothing about what changed).
    public func handlePush(_ notification: PushNotification) {
        requestSync(.push(notification.scope))
    }

    /// The user asked for a refresh: also retries changes the cloud refused before.
    public func refresh() async {
        await checkCacheForOtherWriters()  // what another process wrote shows even if no watch runs
        try? await store.retryFailedChanges()
        await sync(.manualRefresh)
    }

    private func drainQueuedPasses() async {
        while !queuedReasons.isEmpty && !Task.isCancelled {
            let reasons = queuedReasons
            queuedReasons.removeAll()
            await runPass(reasons)
        }
        syncTask = nil
    }

    // MARK: Observation

    /// The state now, with the todos read fresh from the store.
    public func snapshot() async -> SyncSnapshot {
        try? await refreshTodos()
        return makeSnapshot()
    }

    /// The state now without the todos (left empty): connection, counts, last sync and last error, for a status line.
    ///
    /// Unlike `snapshot()` it reads no records, so a command that only reports costs no memory for 10,000 todos.
    public func status() -> SyncSnapshot {
        var snapshot = makeSnapshot()
        snapshot.todos = [:]
        return snapshot
    }

    func makeSnapshot() -> SyncSnapshot {
        var snapshot = SyncSnapshot(deviceName: configuration.deviceName)
        let todos = todosByScope()
        // Signed out, what the cache holds stays readable and nothing can change (docs/ACCOUNTS.md, "When a session ends").
        snapshot.todos = todos
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

    /// Wakes the readers with the state now.
    func publish() {
        guard !readers.isEmpty else { return }
        let current = status()
        for reader in readers.values { reader.wakeups.yield(current) }
    }

    /// Notes that records changed in the store, so their cached copies are read again.
    func invalidate<S: Sequence>(_ keys: S) where S.Element == RecordKey {
        var named = keys.makeIterator()
        if named.next() != nil { cacheChanges += 1 }
        for id in readers.keys { readers[id]?.invalidate(keys) }
        guard !needsFullReload else { return }
        dirtyKeys.formUnion(keys)
        if dirtyKeys.count > 2_000 {
            needsFullReload = true
            dirtyKeys.removeAll()
        }
    }

    /// Notes that anything may have changed.
    func invalidateAll() {
        cacheChanges += 1
        for id in readers.keys { readers[id]?.invalidateAll() }
        needsFullReload = true
        dirtyKeys.removeAll()
    }

    /// Brings the cached visible todos up to date: key by key when few changed, else all at once.
    func refreshTodos() async throws {
        if needsFullReload {
            needsFullReload = false
            dirtyKeys.removeAll()
            visibleTodos = [:]  // drop the old copy before reading the new one
            var fresh: [DatabaseScope: [TodoItem]] = [:]
            for scope in DatabaseScope.allCases {
                // The store's order is the display order already; sorting keeps ties identical to patched arrays.
                var items = try await store.todos(in: scope)
                if !items.isEmpty {
                    if !Self.isInDisplayOrder(items) { items.sort(by: Self.displayOrder) }
                    fresh[scope] = items
                }
            }
            visibleTodos = fresh
        } else if !dirtyKeys.isEmpty {
            let keys = dirtyKeys
            dirtyKeys.removeAll()
            var fresh: [DatabaseScope: [TodoItem]] = [:]
            for key in keys {
                if let item = try await store.todo(key), !item.isTrashed { fresh[key.scope, default: []].append(item) }
            }
            for scope in Set(keys.map(\.scope)) {
                var items = visibleTodos.removeValue(forKey: scope) ?? []
                items.removeAll { keys.contains($0.key) }
                items.append(contentsOf: fresh[scope] ?? [])
                items.sort(by: Self.displayOrder)  // nearly sorted: close to linear
                if !items.isEmpty { visibleTodos[scope] = items }
            }
        }
        if var shared = visibleTodos.removeValue(forKey: .shared) {
            SharePermissions.apply(to: &shared, user: userRecordName)
            visibleTodos[.shared] = shared
        }
    }

    /// Display order: creation time (else the local edit time), then record name.
    static func displayOrder(_ lhs: TodoItem, _ rhs: TodoItem) -> Bool {
        let l = lhs.system.created?.timestamp ?? lhs.localEditedAt ?? Int64.min
        let r = rhs.system.created?.timestamp ?? rhs.localEditedAt ?? Int64.min
        return l != r ? l < r : lhs.key.recordName < rhs.key.recordName
    }

    /// Whether `items` need no sorting (checked in one pass; a sort would allocate a merge buffer).
    static func isInDisplayOrder(_ items: [TodoItem]) -> Bool {
        var index = items.startIndex
        while index + 1 < items.endIndex {
            if displayOrder(items[index + 1], items[index]) { return false }
            index += 1
        }
        return true
    }

    /// The visible todos per scope, in the store's order (creation time, then record name).
    func todosByScope() -> [DatabaseScope: [TodoItem]] { visibleTodos }

    /// Reloads the outbox counts only.
    func reloadCounts() async throws {
        pendingCount = try await store.pendingCount()
        failedCount = try await store.failedCount()
    }

    /// Who is asking, for the permission table.
    public var permissionContext: PermissionContext {
        PermissionContext(isSignedIn: client.authToken != nil && connection != .signedOut, userRecordName: userRecordName)
    }

    // MARK: Push and timers

    func startListeningForPushes() {
        listensForPushes = true
        guard pushTask == nil, client.authToken != nil else { return }
        let channel = PushChannel(client: client, pollTimeout: configuration.pushPollTimeout)
        pushChannel = channel
        let events = channel.events()
        pushTask = Task { [weak self] in
            var first = true
            for await event in events {
                guard let self else { return }
                switch event {
                case .connected:
                    // After a gap pushes may have been lost: ask the server. The first connect comes with the launch sync.
                    if !first { await self.requestSync(.networkBack) }
                    first = false
                case .notification(let push):
                    await self.handlePush(push)
                case .sessionEnded:
                    // Registering again was refused: a pass asks who is signed in, which renews or signs out.
                    await self.requestSync(.networkBack)
                }
            }
        }
    }

    func startPublicPollTimer() {
        guard pollTask == nil else { return }
        let interval = currentPublicPollInterval
        pollTask = Task { [weak self, clock] in
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                guard let self else { return }
                await self.requestSync(.publicPollTimer)
            }
        }
    }

    func goOffline(_ error: CloudError) {
        if connection != .signedOut { connection = .offline }
        lastError = "offline: \(error.reason)"
        guard probeTask == nil else { return }
        let interval = configuration.reachabilityProbeInterval
        probeTask = Task { [weak self, clock, client] in
            while !Task.isCancelled {
                do { try await clock.sleep(seconds: interval) } catch { return }
                if await client.isHealthy() {
                    await self?.networkIsBack()
                    return
                }
            }
        }
    }

    /// The reachability probe (or the push channel) found the cloud again: send what waits, fetch what was missed.
    public func networkIsBack() {
        probeTask = nil
        if connection == .offline { connection = .online }
        requestSync(.networkBack)
        publish()
    }

    /// Marks the device signed out (the token was refused or the user signed out); `ended`: the cloud ended the
    /// session (revoked, password changed, expired), not the user.
    public func signedOut(_ reason: String, ended: Bool = false) {
        connection = .signedOut
        sessionEnded = ended
        client.authToken = nil
        lastError = reason
        pushChannel?.stop()
        pushTask?.cancel()
        pushTask = nil
        pushChannel = nil
        publish()
    }
}
