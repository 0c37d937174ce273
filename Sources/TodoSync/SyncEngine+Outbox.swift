import CloudClient
import CloudModel
import Foundation
import TodoStore

extension SyncEngine {
    /// The merge the store runs on a conflicting save: `ConflictMerge` by the fields' edit stamps, the server's no later
    /// than the cloud stored them (fields without a stamp count as edited when their version was saved).
    nonisolated var fieldMerge: FieldMerge {
        let deviceID = configuration.deviceID
        return { base, local, server in
            let stored = server.modified?.timestamp
            return ConflictMerge.merge(
                base: base,
                local: ConflictMerge.Side(fields: local.fields, fallback: EditStamp(timestamp: local.localEditedAt ?? 0, deviceID: deviceID)),
                server: ConflictMerge.Side(
                    fields: server.fields ?? [:], fallback: EditStamp(timestamp: stored ?? 0, deviceID: server.modified?.deviceID ?? ""),
                    bound: stored),
                recordName: local.key.recordName
            ).fields
        }
    }

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

    /// Sends one batch, waiting and retrying on throttling as the policy says; one result per change, in order.
    ///
    /// No record holds others hostage: a batch whose body would pass the cloud's request limit, or that the cloud
    /// refuses whole (too large, bad), is sent again as two halves, down to single records; a single record the cloud
    /// cannot take comes back as that record's own failure, so the rest of its batch is sent and confirmed.
    func sendBatch(_ batch: OutboxBatch) async throws -> [RecordResult] {
        let body = await Self.encode(batch)
        if body.count > CloudLimits.maxRequestBytes {
            if batch.changes.count > 1 { return try await sendHalves(of: batch) }
            return [.failure(ServerError(.limitExceeded, Self.oversizeReason(bytes: body.count)))]
        }
        do {
            return try await withRetries {
                let sent = clock.nowMilliseconds()
                let results = try await client.modifyRecords(batch.zone.scope, body: body)
                noteSaveTimes(results, sent: sent, received: clock.nowMilliseconds())  // the cloud's clock, to the millisecond
                return results
            }
        } catch let error as CloudError where Self.refusesRecords(error) {
            if batch.changes.count > 1 { return try await sendHalves(of: batch) }
            return [.failure(ServerError(error.code == .limitExceeded ? .limitExceeded : .badRequest, error.reason))]
        }
    }

    /// The two halves of `batch` sent one after the other, their results in the batch's order.
    private func sendHalves(of batch: OutboxBatch) async throws -> [RecordResult] {
        let middle = batch.changes.count / 2
        var results = try await sendBatch(OutboxBatch(zone: batch.zone, changes: Array(batch.changes[..<middle])))
        results += try await sendBatch(OutboxBatch(zone: batch.zone, changes: Array(batch.changes[middle...])))
        return results
    }

    /// Whether a whole request's refusal may be one record's fault (too large, bad), not the account's or the zone's.
    private static func refusesRecords(_ error: CloudError) -> Bool {
        error.code == .limitExceeded || error.code == .badRequest || error.code == .referenceViolation
    }

    /// Why a record too large to send stays on this device.
    static func oversizeReason(bytes: Int) -> String {
        "it is \(bytes / 1_048_576) MB written out; the cloud takes at most 1 MB a record (\(CloudLimits.maxRequestBytes / 1_048_576) MB a request): shorten its notes or title"
    }

    /// A record as a message names it: its title (inert, cut short) and short ID, or the ID alone for a deletion.
    func messageName(of change: PendingChange) -> String {
        guard case .save(let item) = change.action, !item.title.isEmpty else { return RecordNames.shortID(change.key.recordName) }
        let title = String(item.title.unicodeScalars.prefix(60).filter { $0.properties.generalCategory != .control && $0.value != 0x7F })
        return "'\(title)\(item.title.unicodeScalars.count > 60 ? "…" : "")' (\(RecordNames.shortID(change.key.recordName)))"
    }

    /// A batch's request body, written off the engine's actor (beside the engine's own work).
    private nonisolated static func encode(_ batch: OutboxBatch) async -> Data { batch.requestBody }

    /// Sends the outbox in batches of at most 200 per zone until it is empty or nothing more can be done now.
    ///
    /// A round goes through the whole outbox in queue order, reading the next chunk while batches are in flight (by
    /// queue position, so nothing in flight is read again); up to `maximumBatchesInFlight` batches travel at once and
    /// their answers are taken in launch order, each after the next batch left. Confirmations are committed in
    /// groups of about `acknowledgementGroup` records, in launch order, beside the batches still travelling (once the
    /// outbox is read to its end, each answer's alone, so the last commit is small); the round ends only once every
    /// group is committed. A batch never names a record twice and a round never names it
    /// in two batches; what a round leaves (edited meanwhile, merged after a conflict, throttled) goes in the next.
    func sendOutbox(_ sequence: inout SyncSequence) async throws {
        var conflicts: [RecordKey: Int] = [:]
        var idleRounds = 0
        let prefetch = outboxPrefetch
        outboxPrefetch = nil
        // The outbox is read on a connection of its own, beside the commits of the answers (the store's, failing that).
        let reader = prefetch.map(\.reader) ?? (try? store.outboxReader())
        let store = store
        @Sendable func read(limit: Int, after: Int64?) async throws -> [PendingChange] {
            try await Self.readOutbox(reader, store, limit: limit, after: after)
        }
        // The first chunk read during the pass's first steps serves unless the cache changed since it was read.
        var readAhead = prefetch?.chunk
        if let ahead = readAhead, prefetch?.cacheChanges != cacheChanges {
            ahead.cancel()
            readAhead = nil
        }
        while true {
            var round = OutboxRound()
            var queued: [OutboxBatch] = []
            var position: Int64?
            var exhausted = false
            var chunks = 0
            // A window of requests in flight, answered and confirmed in launch order.
            var inFlight: [(batch: OutboxBatch, task: Task<[RecordResult], any Error>)] = []
            // The next chunk of the outbox, read while batches travel.
            var reading: (task: Task<[PendingChange], any Error>, limit: Int)?
            func launch() {
                while round.keepsSending && inFlight.count < Self.maximumBatchesInFlight && !queued.isEmpty {
                    let batch = queued.removeFirst()
                    inFlight.append((batch, Task { try await self.sendBatch(batch) }))
                }
            }
            while true {
                if reading == nil, !exhausted, round.keepsReading {
                    let limit = chunks == 0 ? Self.firstOutboxChunk : Self.outboxChunk
                    let after = position
                    if let ahead = readAhead, chunks == 0 {
                        reading = (ahead, limit)
                    } else {
                        reading = (Task { try await read(limit: limit, after: after) }, limit)
                    }
                    readAhead = nil
                }
                // A chunk is taken in once the batches queued no longer fill the window (it was read meanwhile).
                if let (task, limit) = reading, queued.count < Self.maximumBatchesInFlight {
                    reading = nil
                    let chunk: [PendingChange]
                    do {
                        chunk = try await task.value
                    } catch {
                        // The batches already in flight are still answered and confirmed (or kept for a retry) below;
                        // the error ends the round once they are.
                        if round.thrown == nil { round.thrown = error }
                        exhausted = true
                        continue
                    }
                    if round.keepsReading {
                        if chunk.isEmpty && chunks == 0 { return }  // nothing to send
                        exhausted = chunk.count < limit
                        position = chunk.last?.sequence ?? position
                        queued += OutboxBatcher.batches(chunk, distinctRecords: true)  // the outbox has one entry per record
                        if chunks > 0, !readers.isEmpty {
                            // Progress for whoever watches ("N pending"); the round's end reloads the counts anyway.
                            try? await reloadCounts()
                            publish()
                        }
                        chunks += 1
                        continue  // the next read begins before the window is filled
                    }
                    exhausted = true  // the cloud asked to wait: the rest waits for the next round
                }
                launch()
                guard !inFlight.isEmpty else { break }
                let (batch, task) = inFlight.removeFirst()
                let outcome = await withTaskCancellationHandler {
                    await task.result
                } onCancel: {
                    task.cancel()
                }
                launch()  // the window is refilled before this batch is confirmed, so the cloud is not kept waiting
                do {
                    try await handle(outcome, of: batch, &round, &conflicts)
                } catch {
                    if round.thrown == nil { round.thrown = error }
                }
                invalidate(batch.changes.lazy.map(\.key))
                // Once nothing more will be queued, each answer commits at once: the round's end then waits for one
                // batch's commit, not for a whole group's.
                if round.unconfirmedCount >= Self.acknowledgementGroup || (exhausted && queued.isEmpty) {
                    commitConfirmations(&round)
                }
                if Task.isCancelled, round.thrown == nil { round.thrown = CancellationError() }
            }
            reading?.task.cancel()
            do {
                try await settleConfirmations(&round)
            } catch {
                if round.thrown == nil { round.thrown = error }
            }
            if let thrown = round.thrown { throw thrown }
            if round.zoneDeletedByUser {
                try await purgeZoneDeletedByUser(&sequence)
                return
            }
            if round.zoneMissing {
                try await recoverMissingZone(&sequence)
                return
            }
            for zone in round.revertedZones { try await fetchZone(zone, &sequence) }
            try await reloadCounts()
            publish()
            if let wait = round.wait {
                idleRounds += 1
                guard idleRounds <= configuration.retryPolicy.maximumAttempts else {
                    lastError = "the cloud is busy; changes stay queued"
                    return
                }
                retryWaits.append(wait)
                try await clock.sleep(seconds: wait)
            } else if !round.progressed {
                return
            }
        }
    }

    /// Starts reading the outbox's first chunk (on a reader connection of its own) when this pass will send and
    /// something waits: the read then runs while the account check and the fetches wait for the cloud.
    func startOutboxPrefetch(_ sequence: SyncSequence) {
        outboxPrefetch?.chunk.cancel()
        outboxPrefetch = nil
        guard pendingCount > 0, sequence.remaining.contains(.sendOutbox) else { return }
        let reader = try? store.outboxReader()
        let store = store
        outboxPrefetch = OutboxPrefetch(
            reader: reader, chunk: Task { try await Self.readOutbox(reader, store, limit: Self.firstOutboxChunk, after: nil) },
            cacheChanges: cacheChanges)
    }

    /// Reads outbox entries on `reader`, else on the store's own connection.
    private static func readOutbox(_ reader: OutboxReader?, _ store: TodoStore, limit: Int, after: Int64?) async throws -> [PendingChange] {
        if let reader { return try await reader.pendingChanges(limit: limit, after: after) }
        return try await store.pendingChanges(limit: limit, after: after)
    }

    /// Starts committing the confirmations gathered so far (one transaction), after the group before it; the round's
    /// work goes on meanwhile. The keys are invalidated again once committed, so readers see them no longer pending.
    private func commitConfirmations(_ round: inout OutboxRound) {
        guard round.unconfirmedCount > 0 else { return }
        let batches = round.unconfirmed
        round.unconfirmed = []
        round.unconfirmedCount = 0
        let previous = round.confirming
        let store = store
        round.confirming = Task {
            try await previous?.value
            try await store.confirm(batches: batches)
            for changes in batches { self.invalidate(changes.lazy.map(\.key)) }
        }
    }

    /// Commits what is gathered and waits for every group: the first failure is thrown (its changes stay queued).
    private func settleConfirmations(_ round: inout OutboxRound) async throws {
        commitConfirmations(&round)
        guard let last = round.confirming else { return }
        round.confirming = nil
        try await last.value
    }

    /// Applies the cloud's answer to one batch: confirmations gathered for the next group commit, conflicts merged,
    /// refusals kept.
    private func handle(
        _ outcome: Result<[RecordResult], any Error>, of batch: OutboxBatch, _ round: inout OutboxRound,
        _ conflicts: inout [RecordKey: Int]
    ) async throws {
        let results: [RecordResult]
        switch outcome {
        case .success(let answer):
            results = answer
        case .failure(let error as CloudError) where error.code == .zoneNotFound || error.code == .userDeletedZone:
            if batch.zone == .privateTodos {
                round.zoneMissing = true
                if error.code == .userDeletedZone { round.zoneDeletedByUser = true }
                return
            }
            for change in batch.changes { try await store.markFailed(change.key, revision: change.revision, reason: error.reason) }
            round.progressed = true
            return
        case .failure(let error as CloudError) where error.isFatal:
            // The whole request was refused (too large, bad): its items are kept, marked refused.
            let words = Self.words(for: error)
            lastError = batch.changes.count == 1 ? "\(messageName(of: batch.changes[0])): \(words)" : words
            for change in batch.changes { try await store.markFailed(change.key, revision: change.revision, reason: words) }
            round.progressed = true
            return
        case .failure(let error):
            throw error
        }
        var confirmed: [SentChange] = []
        var stop: CloudError?
        for (change, result) in zip(batch.changes, results) {
            switch result {
            case .record(let saved):
                confirmed.append(SentChange(change, result: change.isDelete ? .deleted : .saved(saved)))
                round.progressed = true
            case .failure(let serverError):
                let error = CloudError(serverError)
                switch configuration.retryPolicy.response(to: error, attempt: 0, random: random()) {
                case .mergeAndResend:
                    guard let server = error.serverRecord else {
                        try await store.markFailed(change.key, revision: change.revision, reason: "conflict without the server's record")
                        continue
                    }
                    conflicts[change.key, default: 0] += 1
                    if conflicts[change.key, default: 0] > 8 {
                        try await store.markFailed(change.key, revision: change.revision, reason: "keeps conflicting; try again later")
                        continue
                    }
                    observeCloudTime(server.modified?.timestamp)
                    try await store.resolveConflict(change.key, serverRecord: server, merge: fieldMerge)
                    round.progressed = true
                case .reupload:
                    if change.isDelete {
                        try await store.confirmDeleted(change.key, revision: change.revision)
                    } else {
                        try await store.forgetServerVersion(change.key)
                    }
                    round.progressed = true
                case .recreateZone:
                    if change.key.zone == .privateTodos {
                        round.zoneMissing = true
                        if error.code == .userDeletedZone { round.zoneDeletedByUser = true }
                    } else {
                        try await store.markFailed(change.key, revision: change.revision, reason: error.reason)
                    }
                case .retry(let delay):
                    round.wait = max(round.wait ?? 0, delay)
                case .goOffline, .signedOut:
                    stop = error
                case .fatal where change.key.scope == .shared && error.code == .permissionFailure:
                    // The owner lowered (or removed) this user's access meanwhile: undo the edit here, never resend it.
                    let title = try await store.todo(change.key)?.title ?? change.key.recordName
                    try await store.discardPendingChange(change.key)
                    try await store.restartZoneFetch(change.key.zone)
                    round.revertedZones.insert(change.key.zone)
                    report(SyncNotice(.reverted, "Your change to '\(title)' was reverted: the cloud refused it (\(error.reason))"))
                    round.progressed = true
                case .fatal(let words):
                    lastError = "\(messageName(of: change)): \(words)"
                    try await store.markFailed(change.key, revision: change.revision, reason: words)
                    round.progressed = true
                case .refetchFromScratch:
                    try await store.markFailed(change.key, revision: change.revision, reason: error.reason)
                    round.progressed = true
                }
            }
        }
        // Committed with its group (see `acknowledgementGroup`).
        round.unconfirmed.append(confirmed)
        round.unconfirmedCount += confirmed.count
        if let stop { throw stop }
    }
}

/// What one round of sending the outbox came to.
struct OutboxRound {
    var progressed = false
    var zoneMissing = false
    /// The user deleted their data (`USER_DELETED_ZONE`): purge here too, never re-upload.
    var zoneDeletedByUser = false
    /// Shared zones whose refused edits were undone; fetched again from scratch to restore the owner's version.
    var revertedZones: Set<ZoneKey> = []
    /// The longest retry delay an item asked for.
    var wait: Double?
    /// The first error that ends the pass (offline, signed out, retries exhausted, cancelled).
    var thrown: (any Error)?
    /// Confirmations not yet handed to a commit, batch by batch in launch order.
    var unconfirmed: [[SentChange]] = []
    /// How many confirmations `unconfirmed` holds.
    var unconfirmedCount = 0
    /// The latest group commit; each waits for the one before, so groups commit in launch order.
    var confirming: Task<Void, any Error>?

    /// Whether more batches may be launched this round.
    var keepsSending: Bool { !zoneMissing && thrown == nil }

    /// Whether more of the outbox may be read this round (not once the cloud asked to wait).
    var keepsReading: Bool { keepsSending && wait == nil }
}

/// The outbox's first chunk read ahead by a pass (`startOutboxPrefetch`), with what it was read on.
struct OutboxPrefetch {
    var reader: OutboxReader?
    var chunk: Task<[PendingChange], any Error>
    /// `SyncEngine.cacheChanges` when the read began: if it moved, the chunk is read again.
    var cacheChanges: Int
}
