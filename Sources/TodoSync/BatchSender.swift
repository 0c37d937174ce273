import CloudClient
import CloudModel
import Foundation
import TodoStore

/// What the cloud answered to one batch: a result per change, in order, and when each request went and came back
/// (the cloud's clock, read from the saved records' times).
struct BatchAnswer: Sendable {
    /// One per request sent: device times around it and its results.
    struct Timing: Sendable {
        var sent: Int64
        var received: Int64
        var results: [RecordResult]
    }

    var results: [RecordResult]
    var timings: [Timing]
}

/// Sends one batch of the outbox (`records/modify`); runs off the engine's actor, beside the other batches in flight.
struct BatchSender: Sendable {
    let calls: CloudCalls

    /// Sends one batch, waiting and retrying on throttling as the policy says; one result per change, in order.
    ///
    /// No record holds others hostage: a batch whose body would pass the cloud's request limit, or that the cloud
    /// refuses whole (too large, bad), is sent again as two halves, down to single records; a single record the cloud
    /// cannot take comes back as that record's own failure, so the rest of its batch is sent and confirmed.
    func send(_ batch: OutboxBatch) async throws -> BatchAnswer {
        let body = batch.requestBody
        if body.count > CloudLimits.maxRequestBytes {
            if batch.changes.count > 1 { return try await sendHalves(of: batch) }
            return BatchAnswer(results: [.failure(ServerError(.limitExceeded, Self.oversizeReason(bytes: body.count)))], timings: [])
        }
        do {
            let (calls, clock) = (calls, calls.clock)
            return try await calls.withRetries {
                let sent = clock.nowMilliseconds()
                let results = try await calls.client.modifyRecords(batch.zone.scope, body: body)
                return BatchAnswer(results: results, timings: [.init(sent: sent, received: clock.nowMilliseconds(), results: results)])
            }
        } catch let error as CloudError where Self.refusesRecords(error) {
            if batch.changes.count > 1 { return try await sendHalves(of: batch) }
            let code: ServerErrorCode = error.code == .limitExceeded ? .limitExceeded : .badRequest
            return BatchAnswer(results: [.failure(ServerError(code, error.reason))], timings: [])
        }
    }

    /// The two halves of `batch` sent one after the other, their results in the batch's order.
    private func sendHalves(of batch: OutboxBatch) async throws -> BatchAnswer {
        let middle = batch.changes.count / 2
        var answer = try await send(OutboxBatch(zone: batch.zone, changes: Array(batch.changes[..<middle])))
        let second = try await send(OutboxBatch(zone: batch.zone, changes: Array(batch.changes[middle...])))
        answer.results += second.results
        answer.timings += second.timings
        return answer
    }

    /// Whether a whole request's refusal may be one record's fault (too large, bad), not the account's or the zone's.
    private static func refusesRecords(_ error: CloudError) -> Bool {
        error.code == .limitExceeded || error.code == .badRequest || error.code == .referenceViolation
    }

    /// Why a record too large to send stays on this device.
    static func oversizeReason(bytes: Int) -> String {
        "it is \(bytes / 1_048_576) MB written out; the cloud takes at most 1 MB a record (\(CloudLimits.maxRequestBytes / 1_048_576) MB a request): shorten its notes or title"
    }
}
