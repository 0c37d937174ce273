import CloudClient
import CloudModel
import Foundation
import TodoStore

/// Takes the cloud's answer to each batch: confirmations gathered for the round's next group commit, conflicts merged
/// (and sent again next round), refusals kept with their reason, edits the cloud refused for good undone.
/// Confined to the engine's actor.
final class OutboxAnswers {
    private let store: TodoStore
    private let clock: any SyncClock
    private let policy: RetryPolicy
    private let random: @Sendable () -> Double
    private let status: EngineStatus
    private let notices: NoticeLog
    private let time: CloudTime
    private let merge: FieldMerge

    init(
        store: TodoStore, clock: any SyncClock, configuration: SyncConfiguration, random: @escaping @Sendable () -> Double,
        status: EngineStatus, notices: NoticeLog, time: CloudTime
    ) {
        self.store = store
        self.clock = clock
        policy = configuration.retryPolicy
        self.random = random
        self.status = status
        self.notices = notices
        self.time = time
        merge = ConflictMerge.fieldMerge(deviceID: configuration.deviceID)
    }

    /// A record as a message names it: its title (inert, cut short) and short ID, or the ID alone for a deletion.
    static func messageName(of change: PendingChange) -> String {
        guard case .save(let item) = change.action, !item.title.isEmpty else { return RecordNames.shortID(change.key.recordName) }
        let title = String(item.title.unicodeScalars.prefix(60).filter { $0.properties.generalCategory != .control && $0.value != 0x7F })
        return "'\(title)\(item.title.unicodeScalars.count > 60 ? "…" : "")' (\(RecordNames.shortID(change.key.recordName)))"
    }

    /// Applies the cloud's answer to one batch: confirmations gathered for the next group commit, conflicts merged,
    /// refusals kept.
    nonisolated(nonsending) func handle(
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
            let words = CloudCalls.words(for: error)
            status.lastError = batch.changes.count == 1 ? "\(Self.messageName(of: batch.changes[0])): \(words)" : words
            for change in batch.changes { try await store.markFailed(change.key, revision: change.revision, reason: words) }
            round.progressed = true
            return
        case .failure(let error):
            throw error
        }
        var confirmed: [SentChange] = []
        confirmed.reserveCapacity(batch.changes.count)
        var stop: CloudError?
        // By index: iterating the two arrays copied each change and each result first (a retain of every string of
        // the todo), 2.4 % of the device's CPU sending 100,000; the usual case reads them where they lie.
        for index in 0..<min(batch.changes.count, results.count) {
            switch results[index] {
            case .record(let saved):
                confirmed.append(SentChange(batch.changes, at: index, result: batch.changes[index].isDelete ? .deleted : .saved(saved)))
                round.progressed = true
            case .failure(let serverError):
                let change = batch.changes[index]
                let error = CloudError(serverError)
                switch policy.response(to: error, attempt: 0, random: random()) {
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
                    time.observeCloudTime(server.modified?.timestamp)
                    try await store.resolveConflict(change.key, serverRecord: server, merge: merge)
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
                    let words = "Your change to '\(title)' was reverted: the cloud refused it (\(error.reason))"
                    notices.report(SyncNotice(.reverted, words), at: clock.nowMilliseconds())
                    round.progressed = true
                case .fatal(let words):
                    status.lastError = "\(Self.messageName(of: change)): \(words)"
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

    /// Whether more batches may be launched this round.
    var keepsSending: Bool { !zoneMissing && thrown == nil }

    /// Whether more of the outbox may be read this round (not once the cloud asked to wait).
    var keepsReading: Bool { keepsSending && wait == nil }
}
