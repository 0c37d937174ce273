import CloudClient
import CloudModel
import Foundation
import TodoStore

extension SyncEngine {
    /// The merge the store runs on a conflicting save: `ConflictMerge` with this device's and the server's edit stamps.
    nonisolated var fieldMerge: FieldMerge {
        let deviceID = configuration.deviceID
        return { base, local, server in
            ConflictMerge.merge(
                base: base, local: local.fields,
                localEdit: EditStamp(timestamp: local.localEditedAt ?? 0, deviceID: deviceID),
                server: server.fields ?? [:],
                serverEdit: EditStamp(timestamp: server.modified?.timestamp ?? 0, deviceID: server.modified?.deviceID ?? ""))
        }
    }

    /// Sends the outbox in batches of at most 200 per zone until it is empty or nothing more can be done now.
    func sendOutbox(_ sequence: inout SyncSequence) async throws {
        var conflicts: [RecordKey: Int] = [:]
        var idleRounds = 0
        while true {
            let pending = try await store.pendingChanges(limit: CloudLimits.maxOperationsPerRequest * 5)
            if pending.isEmpty { return }
            var progressed = false
            var zoneMissing = false
            var wait: Double?
            for batch in OutboxBatcher.batches(pending) {
                if batch.zone.scope != .private && batch.zone.scope != .public && batch.zone.scope != .shared { continue }
                let request = batch.request
                let results: [RecordResult]
                do {
                    results = try await withRetries { try await client.modifyRecords(batch.zone.scope, request) }
                } catch let error as CloudError where error.code == .zoneNotFound || error.code == .userDeletedZone {
                    if batch.zone == .privateTodos {
                        zoneMissing = true
                        break
                    }
                    for change in batch.changes { try await store.markFailed(change.key, revision: change.revision, reason: error.reason) }
                    progressed = true
                    continue
                } catch let error as CloudError where error.isFatal {
                    // The whole request was refused (too large, bad): refuse its items one by one only if alone.
                    let words = Self.words(for: error)
                    lastError = words
                    for change in batch.changes { try await store.markFailed(change.key, revision: change.revision, reason: words) }
                    progressed = true
                    continue
                }
                var confirmed: [SentChange] = []
                var stop: CloudError?
                for (change, result) in zip(batch.changes, results) {
                    switch result {
                    case .record(let saved):
                        confirmed.append(
                            SentChange(key: change.key, revision: change.revision, result: change.isDelete ? .deleted : .saved(saved)))
                        progressed = true
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
                            try await store.resolveConflict(change.key, serverRecord: server, merge: fieldMerge)
                            progressed = true
                        case .reupload:
                            if change.isDelete {
                                try await store.confirmDeleted(change.key, revision: change.revision)
                            } else {
                                try await store.forgetServerVersion(change.key)
                            }
                            progressed = true
                        case .recreateZone:
                            if change.key.zone == .privateTodos { zoneMissing = true } else {
                                try await store.markFailed(change.key, revision: change.revision, reason: error.reason)
                            }
                        case .retry(let delay):
                            wait = max(wait ?? 0, delay)
                        case .goOffline, .signedOut:
                            stop = error
                        case .fatal(let words):
                            lastError = "\(change.key.recordName.prefix(8)): \(words)"
                            try await store.markFailed(change.key, revision: change.revision, reason: words)
                            progressed = true
                        case .refetchFromScratch:
                            try await store.markFailed(change.key, revision: change.revision, reason: error.reason)
                            progressed = true
                        }
                    }
                }
                try await store.confirm(confirmed)  // the whole batch in one transaction
                if let stop { throw stop }
                if zoneMissing { break }
            }
            if zoneMissing {
                try await recoverMissingZone(&sequence)
                return
            }
            invalidate(pending.map(\.key))
            try await reloadCounts()
            publish()
            if let wait {
                idleRounds += 1
                guard idleRounds <= configuration.retryPolicy.maximumAttempts else {
                    lastError = "the cloud is busy; changes stay queued"
                    return
                }
                retryWaits.append(wait)
                try await clock.sleep(seconds: wait)
            } else if !progressed {
                return
            }
        }
    }
}
