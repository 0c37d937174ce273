import CloudClient
import CloudModel
import Foundation
import TodoStore

/// One pass in progress: the steps still to come, and the cache's sync state, read once at the pass's start and kept
/// up to date with what the pass writes (flags, tokens, the last user), so no step reads it again.
struct PassProgress {
    var sequence: SyncSequence
    var state: SyncState
}

extension SyncState {
    /// The launch flags this state holds.
    var launchFlags: LaunchFlags {
        LaunchFlags(
            createdCustomZone: createdCustomZone, subscribedToPrivateChanges: subscribedToPrivateChanges,
            subscribedToSharedChanges: subscribedToSharedChanges)
    }
}

/// Runs one pass of the launch sequence (`SyncSequence` decides the steps, this performs them) and settles what its
/// errors mean: offline, signed out (renewing the sign-in once), the zone gone. Confined to the engine's actor.
final class PassRunner {
    private let store: TodoStore
    private let clock: any SyncClock
    private let configuration: SyncConfiguration
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let notices: NoticeLog
    private let time: CloudTime
    private let setup: PassSetup
    private let fetcher: FeedFetcher
    private let outbox: OutboxSender
    private let board: PublicBoard
    private let sharing: Sharing
    private let purger: TrashPurger
    private let session: SessionKeeper
    private let probe: ReachabilityProbe

    init(
        store: TodoStore, clock: any SyncClock, configuration: SyncConfiguration, status: EngineStatus, feed: ChangeFeed,
        notices: NoticeLog, time: CloudTime, setup: PassSetup, fetcher: FeedFetcher, outbox: OutboxSender, board: PublicBoard,
        sharing: Sharing, purger: TrashPurger, session: SessionKeeper, probe: ReachabilityProbe
    ) {
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.status = status
        self.feed = feed
        self.notices = notices
        self.time = time
        self.setup = setup
        self.fetcher = fetcher
        self.outbox = outbox
        self.board = board
        self.sharing = sharing
        self.purger = purger
        self.session = session
        self.probe = probe
    }

    /// One pass of the launch sequence for the reasons queued.
    nonisolated(nonsending) func run(_ reasons: Set<SyncReason>) async {
        let onlyBackground = reasons.isSubset(of: [.localEdit, .publicPollTimer, .push(nil), .push(.private), .push(.shared)])
        if status.connection == .offline && onlyBackground { return }  // the probe brings us back
        let state: SyncState
        do {
            state = try await store.syncState()
        } catch {
            status.lastError = "\(error)"
            feed.publish()
            return
        }
        let pollDue = board.isDue
        var pass = PassProgress(
            sequence: SyncSequence(reasons: reasons, flags: state.launchFlags, signedIn: status.permissionContext.isSignedIn, publicPollDue: pollDue),
            state: state)
        status.isSyncing = true
        status.progress = nil
        var failed = false
        feed.publish()
        // The outbox's first chunk is read while the first steps wait for the cloud, when this pass sends and something
        // waits; it serves unless the cache changed before the sending begins.
        // An import's entries, handed over as it committed them, are that chunk when nothing changed since.
        let changesAtStart = feed.cacheChanges
        let handedOff = outbox.takeHandOff(cacheChanges: changesAtStart)
        let prefetching = status.pendingCount > 0 && pass.sequence.remaining.contains(.sendOutbox) && handedOff == nil
        let reader = prefetching ? outbox.readerConnection() : nil
        let store = store
        async let firstChunk = OutboxSender.firstChunk(reader, store, wanted: prefetching)
        var chunkTaken = false
        var zoneRecoveries = 0
        var renewedSignIn = false
        while let step = pass.sequence.next() {
            do {
                if step == .sendOutbox {
                    var first: Result<[PendingChange], any Error>?
                    if !chunkTaken, feed.cacheChanges == changesAtStart {
                        if let handedOff { first = .success(handedOff) } else { first = await firstChunk }
                    }
                    chunkTaken = true
                    try await outbox.send(&pass, firstChunk: first)
                } else {
                    try await perform(step, &pass)
                }
                pass.sequence.completed(step)
                if step == .sendOutbox { await store.checkpointSoon() }
            } catch let error as CloudError {
                switch configuration.retryPolicy.response(to: error, attempt: configuration.retryPolicy.maximumAttempts, random: 0) {
                case .goOffline:
                    probe.wentOffline(error)
                    pass.sequence.abandon()
                    failed = true
                case .signedOut where !renewedSignIn && session.canRenew:
                    // The kept token was refused: sign in again (or learn why not), then run the pass from its start.
                    renewedSignIn = true
                    if await session.renew() {
                        pass.sequence = SyncSequence(
                            reasons: reasons, flags: pass.state.launchFlags, signedIn: true, publicPollDue: pollDue, accountCheckDue: true)
                    } else {
                        pass.sequence.accountUnavailable()
                    }
                case .signedOut where status.client.authToken == nil && status.connection == .signedOut:
                    pass.sequence.accountUnavailable()  // signed out already: the words saying why and what to do stay
                case .signedOut:
                    session.signedOut("signed out: \(error.reason)", ended: status.client.authToken != nil)
                    pass.sequence.accountUnavailable()
                case .recreateZone where zoneRecoveries < 2:
                    zoneRecoveries += 1
                    do {
                        if error.code == .userDeletedZone {
                            try await setup.purgeZoneDeletedByUser(&pass)
                        } else {
                            try await setup.recoverMissingZone(&pass)
                        }
                    } catch {
                        status.lastError = "\(error)"
                        failed = true
                    }
                default:
                    status.lastError = CloudCalls.words(for: error)
                    failed = true
                }
            } catch is CancellationError {
                pass.sequence.abandon()
                failed = true
            } catch {
                status.lastError = "\(error)"
                failed = true
            }
        }
        if !failed { await sharing.refreshInvitationsAfterPass(reasons) }
        if !failed && status.connection == .online && !Task.isCancelled {
            // After the fetch, so a todo another device already expired arrives trashed and is not expired again.
            _ = try? await purger.expiry.expire()
            await purger.purgeIfDue()
        }
        // Cancelled (the app is quitting): the counts are not read again; whoever opens the cache next reads them.
        if !Task.isCancelled { try? await status.reloadCounts(store) }
        if !failed && status.connection == .online {
            status.lastSyncAt = clock.now()
            try? await store.setLastSyncAt(clock.nowMilliseconds())
            if status.failedCount == 0 { status.lastError = nil }  // transient trouble (busy, offline) is over
        }
        if let words = notices.takeWords() { status.lastError = words }
        await time.save(store)
        await notices.persist(store)
        status.isSyncing = false
        status.progress = nil
        status.completedPasses += 1
        feed.publish()
    }

    /// Performs one step of the sequence (sending has its own path, for the chunk read ahead).
    private nonisolated(nonsending) func perform(_ step: SyncSequence.Step, _ pass: inout PassProgress) async throws {
        switch step {
        case .checkAccount: try await setup.checkAccount(&pass)
        case .createZone: try await setup.createTodosZone(&pass)
        case .saveSubscriptions(let p, let s): try await setup.saveSubscriptions(private: p, shared: s, &pass)
        case .fetchChanges(let scope): try await fetcher.fetchChanges(scope, &pass)
        case .sendOutbox: try await outbox.send(&pass, firstChunk: nil)
        case .pollPublicBoard: try await board.poll(&pass)
        }
    }
}
