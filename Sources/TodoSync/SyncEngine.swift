import CloudClient
import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// The one owner of a device's sync state: runs the CloudKit local-cache workflow over a `TodoStore` and a `CloudClient`.
///
/// One method per sync event (launch, push, refresh, network back, local edit, poll timer). The engine is a façade
/// over parts that each do one job and share its actor (see docs/ARCHITECTURE.md, "The sync engine"): `PassScheduler`
/// and `PassRunner` (when and how a pass runs), `PassSetup`, `FeedFetcher`, `OutboxSender` and `PublicBoard` (its
/// steps), `ChangeFeed` (the reader side), `LocalEditor` and friends (the write side), `CloudTime`, `Sharing`,
/// `SessionKeeper`, and the background services, all children of one `BackgroundWork` that `stop()` ends.
public actor SyncEngine {
    /// The cloud client (its token says whether the device is signed in).
    public nonisolated let client: CloudClient
    /// The local cache.
    public nonisolated let store: TodoStore
    /// Seconds between public-board polls while its tab is on screen.
    public static let visiblePublicPollInterval: Double = 30

    private let clock: any SyncClock
    private let link = EngineLink()
    private let work = BackgroundWork()
    private let engineStatus: EngineStatus
    private let notices = NoticeLog()
    private let feed: ChangeFeed
    private let time: CloudTime
    private let scheduler: PassScheduler
    private let editor: LocalEditor
    private let repeats: RepeatingTodos
    private let importer: TodoImporter
    private let lostEdits: LostEditDesk
    private let purger: TrashPurger
    private let sharing: Sharing
    private let board: PublicBoard
    private let push: PushListener
    private let probe: ReachabilityProbe
    private let cacheWatch: CacheWatch
    private let session: SessionKeeper
    private let outbox: OutboxSender
    private let runner: PassRunner

    /// An engine over a client and a store, with an injected clock and random source.
    public init(
        client: CloudClient, store: TodoStore, configuration: SyncConfiguration, clock: any SyncClock = SystemClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.client = client
        self.store = store
        self.clock = clock
        let calls = CloudCalls(client: client, clock: clock, policy: configuration.retryPolicy, random: random, link: link)
        let status = EngineStatus(client: client, configuration: configuration)
        let feed = ChangeFeed(store: store, status: status, notices: notices, link: link)
        let time = CloudTime(deviceID: configuration.deviceID, clock: clock)
        let scheduler = PassScheduler(work: work, link: link)
        let editor = LocalEditor(store: store, clock: clock, status: status, feed: feed, time: time, scheduler: scheduler)
        let board = PublicBoard(store: store, clock: clock, calls: calls, configuration: configuration, feed: feed, work: work, link: link)
        let push = PushListener(client: client, pollTimeout: configuration.pushPollTimeout, work: work, link: link)
        let probe = ReachabilityProbe(
            client: client, clock: clock, interval: configuration.reachabilityProbeInterval, status: status, work: work, link: link)
        let session = SessionKeeper(client: client, status: status, feed: feed, push: push, scheduler: scheduler)
        let sharing = Sharing(store: store, calls: calls, status: status, feed: feed, scheduler: scheduler)
        let purger = TrashPurger(store: store, clock: clock, retention: configuration.trashRetention, time: time, editor: editor)
        let setup = PassSetup(store: store, clock: clock, calls: calls, status: status, feed: feed, notices: notices, time: time, board: board)
        let fetcher = FeedFetcher(
            store: store, clock: clock, calls: calls, configuration: configuration, status: status, feed: feed, notices: notices, time: time)
        let answers = OutboxAnswers(
            store: store, clock: clock, configuration: configuration, random: random, status: status, notices: notices, time: time)
        let outbox = OutboxSender(
            store: store, clock: clock, calls: calls, configuration: configuration, status: status, feed: feed, time: time, answers: answers,
            setup: setup, fetcher: fetcher)
        runner = PassRunner(
            store: store, clock: clock, configuration: configuration, status: status, feed: feed, notices: notices, time: time, setup: setup,
            fetcher: fetcher, outbox: outbox, board: board, sharing: sharing, purger: purger, session: session, probe: probe)
        repeats = RepeatingTodos(store: store, clock: clock, status: status, time: time, editor: editor)
        importer = TodoImporter(store: store, clock: clock, status: status, feed: feed, time: time, scheduler: scheduler, outbox: outbox)
        lostEdits = LostEditDesk(store: store, clock: clock, status: status, time: time, editor: editor)
        cacheWatch = CacheWatch(store: store, clock: clock, status: status, feed: feed, work: work, link: link)
        (self.engineStatus, self.feed, self.time, self.scheduler, self.editor) = (status, feed, time, scheduler, editor)
        (self.board, self.push, self.probe, self.session, self.sharing, self.purger, self.outbox) =
            (board, push, probe, session, sharing, purger, outbox)
        link.attach(self)
    }

    // MARK: Lifecycle

    /// Loads the cache, runs the launch sync, and (optionally) listens for pushes and polls the public board.
    public func start(listenForPushes: Bool = true) async {
        await loadFromStore()
        if listenForPushes {
            push.start()
            board.startTimer()
        }
        await sync(.launch)
    }

    /// Stops listening, polling and watching, cancels a running pass (a retry wait or a request in flight ends at
    /// once; what was confirmed stays confirmed, the rest waits in the outbox) and waits for it to end.
    public func stop() async {
        push.stop()
        board.stopTimer()
        scheduler.dropQueued()
        await work.stop()  // every job ends here: the pass, the timers, the probe, the watch
        probe.ended()
        cacheWatch.ended()
        scheduler.drained()
        await outbox.closeReader()
        feed.finishAll()
    }

    /// Reads the kept state (last user, last sync, outbox counts) before any network.
    public func loadFromStore() async {
        engineStatus.hasLoadedState = true
        do {
            let state = try await store.lastUserAndSync()
            engineStatus.userRecordName = state.user
            engineStatus.noteLastSync(state.syncedAt)
            try await time.load(store)
            try await engineStatus.reloadCounts(store)
        } catch {
            engineStatus.lastError = "\(error)"
        }
        feed.publish()
    }

    // MARK: Sync events

    /// Runs a sync pass for `reason` (coalesced with any pass already queued) and returns when it is done.
    public func sync(_ reason: SyncReason) async { await scheduler.sync(reason) }

    /// Queues a sync pass without waiting for it.
    public func requestSync(_ reason: SyncReason) { scheduler.request(reason) }

    /// Waits until no pass is running or queued.
    public func waitUntilIdle() async { await scheduler.waitUntilIdle() }

    /// A push arrived: fetch (the push says nothing about what changed).
    public func handlePush(_ notification: PushNotification) { requestSync(.push(notification.scope)) }

    /// The user asked for a refresh: also retries changes the cloud refused before.
    public func refresh() async {
        await checkCacheForOtherWriters()  // what another process wrote shows even if no watch runs
        try? await store.retryFailedChanges()
        await sync(.manualRefresh)
    }

    /// The reachability probe (or the push channel) found the cloud again: send what waits, fetch what was missed.
    public func networkIsBack() {
        probe.ended()
        if engineStatus.connection == .offline { engineStatus.connection = .online }
        requestSync(.networkBack)
        feed.publish()
    }

    /// Marks the device signed out (the token was refused or the user signed out); `ended`: the cloud ended the
    /// session (revoked, password changed, expired), not the user.
    public func signedOut(_ reason: String, ended: Bool = false) { session.signedOut(reason, ended: ended) }

    /// Sets what the engine does when the cloud refuses the session token: the kept token is used without a probe,
    /// and only a refusal of a real request asks `renewal` for a new one. Nil: the device is signed out.
    public func setSignInRenewal(_ renewal: SignInRenewal?) { session.setRenewal(renewal) }

    /// Signed in again with a fresh session token (the app's `L`, after the session ended): syncing resumes at once,
    /// the push channel listens again if it listened, and what waited in the outbox is sent. `renewal` replaces the
    /// one in use when given.
    public func resumeSession(token: String, renewal: SignInRenewal? = nil) { session.resume(token: token, renewal: renewal) }

    /// Runs the queued passes one after another until none is queued (the scheduler's job).
    func drainQueuedPasses() async {
        while let reasons = scheduler.next() { await runner.run(reasons) }
        scheduler.drained()
    }

    /// A retry wait begins: it shows on the status line and in `retryWaits`.
    func noteRetry(_ delay: Double, _ error: CloudError) {
        engineStatus.retryWaits.append(delay)
        engineStatus.lastError = "cloud busy (\(error.code.rawValue)); retrying in \(String(format: "%.1f", delay)) s"
        feed.publish()
    }

    // MARK: Observation

    /// The state now, with the todos read fresh from the store.
    public func snapshot() async -> SyncSnapshot {
        try? await feed.snapshots.refresh(user: engineStatus.userRecordName)
        var snapshot = feed.current()
        snapshot.todos = feed.snapshots.todosByScope
        return snapshot
    }

    /// The state now without the todos (left empty): connection, counts, last sync and last error, for a status line.
    ///
    /// Unlike `snapshot()` it reads no records, so a command that only reports costs no memory for 10,000 todos.
    public func status() -> SyncSnapshot { feed.current() }

    /// Who is asking, for the permission table.
    public var permissionContext: PermissionContext { engineStatus.permissionContext }

    /// Seconds the engine waited on the clock for retries (for status and tests).
    public var retryWaits: [Double] { engineStatus.retryWaits }

    /// Passes completed, for tests and status.
    public var completedPasses: Int { engineStatus.completedPasses }

    /// The notices this cache kept, newest last (also from earlier runs and other processes).
    public func recentNotices() async -> [SyncNotice] { await NoticeLog.recent(in: store) }

    /// Registers a reader that keeps its own rows (the terminal UI: one copy of 100,000 rows, not two).
    ///
    /// `wakeups` yields the state (its `todos` left empty) whenever anything changed; the reader then calls
    /// `takeChanges`. The reader stays registered while its wakeups stream is kept. When `current` is the context of
    /// rows the reader already holds (made by `visibleRows` from this device's cache, with nothing written since),
    /// its first take reports only what changed; otherwise it reads every scope again.
    public func changeReader(current: RowContext? = nil) async -> (reader: ChangeReader, wakeups: AsyncStream<SyncSnapshot>) {
        // Who asks (the last user) must be known before the first take compares it with `current`.
        if !engineStatus.hasLoadedState { await loadFromStore() }
        return feed.register(current: current)
    }

    /// Every shown record as a row (`makeRow` answers nil for records that are no rows), read one at a time from
    /// the store: for a first frame, before any network.
    public func visibleRows<Row: Sendable>(makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?) async throws -> VisibleChanges<Row> {
        try await feed.visibleRows(makeRow: makeRow)
    }

    /// What changed since the reader last took changes, as rows made by `makeRow` (nil: the record is no row); see
    /// `ChangeFeed.takeChanges`. Scopes read again come `chunk` records at a time.
    public func takeChanges<Row: Sendable>(
        _ reader: ChangeReader, chunk: Int = 10_000, makeRow: @escaping @Sendable (TodoItem, RowContext) -> Row?
    ) async throws -> VisibleChanges<Row> {
        try await feed.takeChanges(reader, chunk: chunk, makeRow: makeRow)
    }

    /// Marks records for a reader to read again, and wakes it (with no keys: only the state, e.g. invitations).
    public func reread(_ reader: ChangeReader, keys: [RecordKey]) { feed.reread(reader, keys: keys) }

    /// Starts polling the cache for other processes' commits every `interval` seconds (see `CacheWatch`).
    public func watchCacheForOtherWriters(every interval: Double = 0.2) async { await cacheWatch.watch(every: interval) }

    /// Looks at what other processes of this device wrote: the cache's `data_version` against the last one seen (a
    /// change means another process committed), and, signed out because the session ended, a session another
    /// process signed in since (`setKeptSessionReader`), which is taken up.
    public func checkCacheForOtherWriters() async {
        session.takeUpKeptSession()
        await cacheWatch.check()
    }

    /// Sets how the engine reads the session token this device keeps on disk, for taking up a session another
    /// process of the device signed in after this one's ended (`checkCacheForOtherWriters`).
    public func setKeptSessionReader(_ read: (@Sendable () -> String?)?) { session.setKeptTokenReader(read) }

    /// Says whether the public board's tab is on screen: while it is, the board is polled every
    /// `visiblePublicPollInterval` seconds, and becoming visible polls at once when the last poll is older than that.
    public func setPublicBoardVisible(_ visible: Bool) {
        if board.setVisible(visible) { requestSync(.publicPollTimer) }
    }

    // MARK: Edits

    /// Adds a todo (to the private `Todos` zone, or the public board); stored and queued at once, sent in the background.
    @discardableResult
    public func add(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, tags: [String] = [],
        repeat repeating: RepeatSetting? = nil, to scope: DatabaseScope = .private, recordName: String? = nil
    ) async throws -> TodoItem {
        try await editor.add(
            title: title, notes: notes, due: due, priority: priority, tags: tags, repeat: repeating, to: scope, recordName: recordName)
    }

    /// Edits fields of a todo, if the permission table allows.
    @discardableResult
    public func edit(_ key: RecordKey, _ edit: TodoEdit) async throws -> TodoItem { try await editor.edit(key, edit) }

    /// Trashes a record per docs/ARCHITECTURE.md, "Permissions": deletes it, marks it `isTrashed`, or refuses with a reason (returned).
    @discardableResult
    public func trash(_ key: RecordKey) async throws -> TrashAction { try await editor.trash(key) }

    /// Takes a record out of the trash (`isTrashed = 0`), if the permission table allows editing it.
    @discardableResult
    public func untrash(_ key: RecordKey) async throws -> TodoItem { try await editor.untrash(key) }

    /// Deletes a record, if the permission table allows deleting it.
    public func delete(_ key: RecordKey) async throws { try await editor.delete(key) }

    /// Whether the user may edit the record now.
    public func canUpdate(_ item: TodoItem) -> Bool { editor.canUpdate(item) }

    /// Whether the user may delete the record now.
    public func canDelete(_ item: TodoItem) -> Bool { editor.canDelete(item) }

    /// One record by key, as the cache has it.
    public func todo(_ key: RecordKey) async throws -> TodoItem? { try await editor.todo(key) }

    /// The todos an ID given on the command line names (`TodoStore.todos(matchingID:limit:)`), with their share permission.
    public func todos(matchingID id: String, limit: Int = 11) async throws -> [TodoItem] { try await editor.todos(matchingID: id, limit: limit) }

    /// Creates a `TodoList` in the private `Todos` zone; stored and queued at once.
    @discardableResult
    public func addList(title: String, recordName: String? = nil) async throws -> TodoItem {
        try await editor.addList(title: title, recordName: recordName)
    }

    /// Adds a todo to a list: in the list's own zone (a shared list lives in its owner's zone), parented to it.
    @discardableResult
    public func add(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, tags: [String] = [],
        repeat repeating: RepeatSetting? = nil, toList listKey: RecordKey, recordName: String? = nil
    ) async throws -> TodoItem {
        try await editor.add(
            title: title, notes: notes, due: due, priority: priority, tags: tags, repeat: repeating, toList: listKey, recordName: recordName)
    }

    /// Deletes a list and every todo in it, in one local transaction, if the permission table allows.
    /// Answers how many todos went with it.
    @discardableResult
    public func deleteList(_ listKey: RecordKey) async throws -> Int { try await editor.deleteList(listKey) }

    /// Moves a todo to another list (nil: to no list), within its zone or into another one.
    @discardableResult
    public func move(_ key: RecordKey, toList listKey: RecordKey?) async throws -> TodoItem { try await editor.move(key, toList: listKey) }

    /// The todos whose list is `listKey` (same zone, parented to it).
    public func todos(inList listKey: RecordKey) async throws -> [TodoItem] { try await editor.todos(inList: listKey) }

    /// The lists the device knows, per scope (private: own; shared: others' lists shared with this user).
    public func lists() async throws -> [TodoItem] { try await editor.lists() }

    /// Marks a todo done or not done; an occurrence of a repeating todo makes (or takes back) the next one.
    @discardableResult
    public func setCompleted(_ key: RecordKey, _ done: Bool = true) async throws -> TodoItem { try await repeats.setCompleted(key, done) }

    /// Skips an occurrence of a repeating todo: it goes to the trash and the next occurrence is made.
    @discardableResult
    public func skip(_ key: RecordKey) async throws -> TodoItem? { try await repeats.skip(key) }

    /// Takes a skip back: the occurrence leaves the trash, and the next occurrence the skip made goes while it is open.
    @discardableResult
    public func unskip(_ key: RecordKey) async throws -> TodoItem { try await repeats.unskip(key) }

    /// The record name of a series' occurrence: the series' name, `-`, its number (occurrence 1 is the series' own record).
    public static func occurrenceName(series: String, number: Int) -> String { RepeatingTodos.occurrenceName(series: series, number: number) }

    /// Adds many todos to the private `Todos` zone: stored and queued in ONE transaction (all or none), then shown;
    /// sent in the background when the engine sends automatically, else by the next `sync`. Answers the keys, in
    /// the order given. `progress` hears how many are stored so far.
    @discardableResult
    public func addTodos(_ todos: [NewTodo], progress: (@Sendable (Int) -> Void)? = nil) async throws -> [RecordKey] {
        try await importer.importTodos(todos, progress: progress).keys
    }

    /// `addTodos`, answering also how many were added, updated and unchanged. A todo the file completes that was an
    /// open occurrence here makes its next occurrence (as `todo done` does) unless the file or the cache holds it.
    public func importTodos(
        _ todos: [NewTodo], progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> (keys: [RecordKey], counts: ImportCounts) {
        try await importer.importTodos(todos, progress: progress)
    }

    /// How many imports a pass sent as the import handed them over, without reading the outbox (for the tests).
    var importHandOffsTaken: Int { outbox.handOffsTaken }

    /// Deletes for good the todos trashed more than `seconds` ago that have nothing waiting and that this device may
    /// delete; returns how many were deleted (queued).
    @discardableResult
    public func purgeTrash(olderThan seconds: Double) async throws -> Int { try await purger.purgeTrash(olderThan: seconds) }

    /// Trashes the todos past their `until` (as every pass that reaches the cloud does); returns how many (queued).
    @discardableResult
    public func expireTodos() async throws -> Int { try await purger.expiry.expire() }

    // MARK: Lost values

    /// The values that lost conflicts and were neither restored nor dismissed, newest first; only those this device
    /// has not announced yet when `unannounced`.
    public func conflicts(unannounced: Bool = false) async throws -> [ConflictNotice] { try await lostEdits.conflicts(unannounced: unannounced) }

    /// Notes that the user saw these notices (the command line printed them, the app showed them).
    public func markAnnounced(_ notices: [ConflictNotice]) async throws { try await lostEdits.markAnnounced(notices) }

    /// Puts a lost value back as a new edit (which is later than the one it lost to) and marks the loss resolved.
    @discardableResult
    public func restore(_ notice: ConflictNotice) async throws -> TodoItem { try await lostEdits.restore(notice) }

    /// Dismisses a notice without restoring the value (it is listed no more, on any device).
    public func dismiss(_ notice: ConflictNotice) async throws { try await lostEdits.dismiss(notice) }

    // MARK: Sharing

    /// Shares a list with an account (or changes their access), keeping everyone else on the share as they are.
    public func share(list listKey: RecordKey, with account: String, permission: SharePermission) async throws {
        try await sharing.share(list: listKey, with: account, permission: permission)
    }

    /// Takes one account off a list's share; the share ends when nobody is left.
    public func removeParticipant(list listKey: RecordKey, account: String) async throws {
        try await sharing.removeParticipant(list: listKey, account: account)
    }

    /// Stops sharing a list: every participant loses it.
    public func stopSharing(list listKey: RecordKey) async throws { try await sharing.stopSharing(list: listKey) }

    /// The lists the user shares with others, as the cloud has them.
    public func ownedShares() async throws -> [ShareInfo] { try await sharing.ownedShares() }

    /// Lists others share with the user, accepted and not; also refreshes the invitations the UI shows.
    public func sharedWithMe() async throws -> [SharedListInfo] { try await sharing.sharedWithMe() }

    /// Accepts an invitation; the list then arrives through the shared database.
    public func accept(_ reference: ShareReference) async throws { try await sharing.accept(reference) }

    /// Declines an invitation, or leaves an accepted share.
    public func leave(_ reference: ShareReference) async throws { try await sharing.leave(reference) }

    /// Leaves the share a shared list came through.
    public func leave(list listKey: RecordKey) async throws { try await sharing.leave(list: listKey) }
}
