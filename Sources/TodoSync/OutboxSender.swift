import CloudClient
import CloudModel
import Foundation
import TodoStore

/// The send side of a pass: the outbox in rounds of batches, several in flight, their answers taken in launch order
/// and their confirmations committed in groups beside the batches still travelling. Confined to the engine's actor;
/// the requests, the outbox reads and the commits run as children of one task group per round.
final class OutboxSender {
    /// How many `records/modify` requests may be in flight at once (the server parses them while it writes another,
    /// and has the next ones while this device confirms the last).
    static let maximumBatchesInFlight = 4

    /// Outbox rows read at a time (ten full requests).
    static let outboxChunk = CloudLimits.maxOperationsPerRequest * 10

    /// Outbox rows read first: enough for the first window of requests, so they leave before a whole chunk is read.
    static let firstOutboxChunk = CloudLimits.maxOperationsPerRequest * maximumBatchesInFlight

    /// Confirmations gathered before they are committed together (ten full requests' worth).
    ///
    /// Records and outbox entries are keyed by random names, so each commit rewrites pages spread over the whole
    /// cache: one commit for ten answers writes each page once where ten commits would write it up to ten times.
    /// A crash before the commit only sends those changes again, which the cloud settles (create → conflict with an
    /// equal record → cleared), as after a crash between an answer and its own commit.
    static let acknowledgementGroup = CloudLimits.maxOperationsPerRequest * 10

    private let store: TodoStore
    private let clock: any SyncClock
    private let maximumAttempts: Int
    private let sender: BatchSender
    private let status: EngineStatus
    private let feed: ChangeFeed
    private let time: CloudTime
    private let answers: OutboxAnswers
    private let setup: PassSetup
    private let fetcher: FeedFetcher
    /// The outbox's own read connection, opened on first use and kept until the engine stops (nil: none could be
    /// opened, or the cache is in memory; the store's connection reads then).
    private var reader: OutboxReader?
    private var readerOpened = false
    /// The entries an import just queued into an empty outbox, as a read would find them, and the change feed's count
    /// when they were committed: the next pass sends them without reading them back (`takeHandOff`).
    private var handedOff: (changes: [PendingChange], cacheChanges: Int)?
    /// How many handed-off imports a pass sent without reading them back (the tests watch it).
    private(set) var handOffsTaken = 0

    init(
        store: TodoStore, clock: any SyncClock, calls: CloudCalls, configuration: SyncConfiguration, status: EngineStatus,
        feed: ChangeFeed, time: CloudTime, answers: OutboxAnswers, setup: PassSetup, fetcher: FeedFetcher
    ) {
        self.store = store
        self.clock = clock
        maximumAttempts = configuration.retryPolicy.maximumAttempts
        sender = BatchSender(calls: calls)
        self.status = status
        self.feed = feed
        self.time = time
        self.answers = answers
        self.setup = setup
        self.fetcher = fetcher
    }

    /// The connection the outbox is read on, beside the commits of the answers: opened once, reused by every pass.
    func readerConnection() -> OutboxReader? {
        if !readerOpened {
            readerOpened = true
            reader = try? store.outboxReader()
        }
        return reader
    }

    /// Closes the read connection (the engine stops); the next pass opens another.
    nonisolated(nonsending) func closeReader() async {
        let open = reader
        reader = nil
        readerOpened = false
        await open?.close()
    }

    /// Keeps `changes`, the whole outbox as an import just committed it (when the cache had made `cacheChanges`
    /// changes), for the next pass: the outbox of a large import is its largest read.
    func handOff(_ changes: [PendingChange], cacheChanges: Int) {
        handedOff = changes.isEmpty ? nil : (changes, cacheChanges)
    }

    /// The handed-off entries, if the cache has not changed since they were committed (`cacheChanges` is the feed's
    /// count now); forgotten either way.
    func takeHandOff(cacheChanges: Int) -> [PendingChange]? {
        defer { handedOff = nil }
        guard let handedOff, handedOff.cacheChanges == cacheChanges else { return nil }
        handOffsTaken += 1
        return handedOff.changes
    }

    /// Reads outbox entries on `reader`, else on the store's own connection.
    static func read(_ reader: OutboxReader?, _ store: TodoStore, limit: Int, after: Int64?) async throws -> [PendingChange] {
        if let reader { return try await reader.pendingChanges(limit: limit, after: after) }
        return try await store.pendingChanges(limit: limit, after: after)
    }

    /// The outbox's first chunk as a result, when `wanted` (a pass reads it while its first steps wait for the cloud).
    static func firstChunk(_ reader: OutboxReader?, _ store: TodoStore, wanted: Bool) async -> Result<[PendingChange], any Error>? {
        guard wanted else { return nil }
        return await attempt { try await read(reader, store, limit: firstOutboxChunk, after: nil) }
    }

    /// The result of `body`, its error included.
    static func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// Sends the outbox in batches of at most 200 per zone until it is empty or nothing more can be done now.
    ///
    /// A round goes through the whole outbox in queue order, reading the next chunk while batches are in flight (by
    /// queue position, so nothing in flight is read again); up to `maximumBatchesInFlight` batches travel at once and
    /// their answers are taken in launch order, each after the next batch left. Confirmations are committed in
    /// groups of about `acknowledgementGroup` records, in launch order, beside the batches still travelling (once the
    /// outbox is read to its end, each answer's alone, so the last commit is small); the round ends only once every
    /// group is committed. A batch never names a record twice and a round never names it
    /// in two batches; what a round leaves (edited meanwhile, merged after a conflict, throttled) goes in the next.
    /// `firstChunk`: the first chunk, read during the pass's first steps.
    nonisolated(nonsending) func send(_ pass: inout PassProgress, firstChunk: Result<[PendingChange], any Error>?) async throws {
        var conflicts: [RecordKey: Int] = [:]
        var idleRounds = 0
        var readAhead = firstChunk
        while true {
            guard let round = await sendRound(readAhead: readAhead, conflicts: &conflicts) else { return }  // nothing to send
            readAhead = nil
            if let thrown = round.thrown { throw thrown }
            if round.zoneDeletedByUser {
                try await setup.purgeZoneDeletedByUser(&pass)
                return
            }
            if round.zoneMissing {
                try await setup.recoverMissingZone(&pass)
                return
            }
            for zone in round.revertedZones { try await fetcher.fetchZone(zone) }
            try await status.reloadCounts(store)
            feed.publish()
            if let wait = round.wait {
                idleRounds += 1
                guard idleRounds <= maximumAttempts else {
                    status.lastError = "the cloud is busy; changes stay queued"
                    return
                }
                status.retryWaits.append(wait)
                try await clock.sleep(seconds: wait)
            } else if !round.progressed {
                return
            }
        }
    }

    /// What a child of a round's task group hands back.
    private enum RoundEvent: Sendable {
        case answered(Int, Result<BatchAnswer, any Error>)
        case read(Result<[PendingChange], any Error>)
        case committed(Result<[[SentChange]], any Error>)
    }

    /// One round through the outbox; nil when the outbox was empty.
    ///
    /// The group's body handles every answer (the change feed, the round, the clock offset: the engine actor's alone),
    /// so it runs on the caller's actor, named as a parameter and captured: a body closure written in a
    /// `nonisolated(nonsending)` function ran on the shared pool after its first await, beside the engine's other
    /// work (a whole run crashed in the feed's key set; `ChangeFeed` now checks its actor in debug builds).
    private func sendRound(
        readAhead: Result<[PendingChange], any Error>?, conflicts: inout [RecordKey: Int], isolation: isolated (any Actor)? = #isolation
    ) async -> OutboxRound? {
        let (store, sender, reader) = (store, sender, readerConnection())
        return await withTaskGroup(of: RoundEvent.self, isolation: isolation) { group -> OutboxRound? in
            _ = isolation  // captured: the body is isolated to it
            var round = OutboxRound()
            var readAhead = readAhead
            var queued: [OutboxBatch] = []
            var position: Int64?
            var exhausted = false
            var chunks = 0
            // A window of requests in flight, answered and confirmed in launch order; answers that came early wait here.
            var inFlight: [(index: Int, batch: OutboxBatch)] = []
            var launched = 0
            var answered: [Int: Result<BatchAnswer, any Error>] = [:]
            // The next chunk of the outbox, read while batches travel: its limit while it is read, then its result.
            var readingLimit: Int?
            var chunkRead: Result<[PendingChange], any Error>?
            // Group commits: one at a time, in launch order; the first failure ends the commits of this round.
            var committing = false
            var commitsWaiting: [[[SentChange]]] = []
            var commitFailure: (any Error)?

            func launch() {
                while round.keepsSending && inFlight.count < Self.maximumBatchesInFlight && !queued.isEmpty {
                    let batch = queued.removeFirst()
                    let index = launched
                    launched += 1
                    inFlight.append((index, batch))
                    group.addTask { .answered(index, await Self.attempt { try await sender.send(batch) }) }
                }
            }
            func startCommit() {
                guard !committing, commitFailure == nil, !commitsWaiting.isEmpty else { return }
                committing = true
                let batches = commitsWaiting.removeFirst()
                // A commit the store began finishes even when the pass is cancelled: what was confirmed stays confirmed.
                group.addTask { .committed(await Self.attempt { try await store.confirm(batches: batches) }.map { batches }) }
            }
            // Starts committing the confirmations gathered so far (one transaction), after the group before it.
            func commitConfirmations() {
                guard round.unconfirmedCount > 0 else { return }
                commitsWaiting.append(round.unconfirmed)
                round.unconfirmed = []
                round.unconfirmedCount = 0
                startCommit()
            }
            // Takes what the children hand back until `done`; commits are settled as they end.
            // On the caller's actor, named: a local function is not isolated by what it captures.
            func take(on actor: isolated (any Actor)?, until done: () -> Bool) async {
                while !done(), let event = await group.next() {
                    switch event {
                    case .answered(let index, let outcome): answered[index] = outcome
                    case .read(let result): chunkRead = result
                    case .committed(.success(let batches)):
                        committing = false
                        // Invalidated again once committed, so readers see them no longer pending.
                        for changes in batches { feed.invalidate(changes.indices.lazy.map { changes[$0].key }) }
                        startCommit()
                    case .committed(.failure(let error)):
                        committing = false
                        commitFailure = error
                        commitsWaiting.removeAll()  // their changes stay queued
                    }
                }
            }

            while true {
                if readingLimit == nil, !exhausted, round.keepsReading {
                    let limit = chunks == 0 ? Self.firstOutboxChunk : Self.outboxChunk
                    let after = position
                    readingLimit = limit
                    if let ahead = readAhead, chunks == 0 {
                        chunkRead = ahead
                    } else {
                        group.addTask { .read(await Self.attempt { try await Self.read(reader, store, limit: limit, after: after) }) }
                    }
                    readAhead = nil
                }
                // A chunk is taken in once the batches queued no longer fill the window (it was read meanwhile).
                if let limit = readingLimit, queued.count < Self.maximumBatchesInFlight {
                    await take(on: isolation) { chunkRead != nil }
                    readingLimit = nil
                    guard let result = chunkRead else { break }
                    chunkRead = nil
                    switch result {
                    case .failure(let error):
                        // The batches already in flight are still answered and confirmed (or kept for a retry) below;
                        // the error ends the round once they are.
                        if round.thrown == nil { round.thrown = error }
                        exhausted = true
                        continue
                    case .success(let chunk):
                        if round.keepsReading {
                            if chunk.isEmpty && chunks == 0 { return nil }  // nothing to send
                            exhausted = chunk.count < limit
                            position = chunk.last?.sequence ?? position
                            queued += OutboxBatcher.batches(chunk, distinctRecords: true)  // the outbox has one entry per record
                            if chunks > 0, feed.hasReaders {
                                // Progress for whoever watches ("N pending"); the round's end reloads the counts anyway.
                                try? await status.reloadCounts(store)
                                feed.publish()
                            }
                            chunks += 1
                            continue  // the next read begins before the window is filled
                        }
                        exhausted = true  // the cloud asked to wait: the rest waits for the next round
                    }
                }
                launch()
                guard !inFlight.isEmpty else { break }
                let (index, batch) = inFlight.removeFirst()
                await take(on: isolation) { answered[index] != nil }
                let outcome = answered.removeValue(forKey: index) ?? .failure(CancellationError())
                launch()  // the window is refilled before this batch is confirmed, so the cloud is not kept waiting
                if case .success(let answer) = outcome {
                    // The cloud's clock, to the millisecond, from the saved records' times.
                    for timing in answer.timings { time.noteSaveTimes(timing.results, sent: timing.sent, received: timing.received) }
                }
                do {
                    try await answers.handle(outcome.map(\.results), of: batch, &round, &conflicts)
                } catch {
                    if round.thrown == nil { round.thrown = error }
                }
                // The keys read where they lie: mapping the changes copied each one whole first.
                feed.invalidate(batch.changes.indices.lazy.map { batch.changes[$0].key })
                // Once nothing more will be queued, each answer commits at once: the round's end then waits for one
                // batch's commit, not for a whole group's.
                if round.unconfirmedCount >= Self.acknowledgementGroup || (exhausted && queued.isEmpty) {
                    commitConfirmations()
                }
                if Task.isCancelled, round.thrown == nil { round.thrown = CancellationError() }
            }
            // Commits what is gathered and waits for every group: the first failure is thrown (its changes stay queued).
            commitConfirmations()
            await take(on: isolation) { !committing }
            if let commitFailure, round.thrown == nil { round.thrown = commitFailure }
            group.cancelAll()  // a chunk still being read is not needed
            return round
        }
    }
}
