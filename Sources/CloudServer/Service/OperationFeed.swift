import CloudModel
import Foundation

/// The operations of one `records/modify` request, handed to its write transaction in order.
///
/// A large request is read ahead: a helper task reads operation after operation while the transaction applies the
/// ones before, so the request's reading and its SQLite work run side by side on two cores. The transaction reads
/// an operation itself when the helper has not come to it (and so never waits for a helper that is not running).
final class OperationFeed: @unchecked Sendable {
    /// One operation as read: the operation, its fields as canonical JSON, and that JSON written out as stored.
    struct Read: Sendable {
        var operation: RecordOperation
        var fields: EncodedFields?
        var fieldsJSON: Data?
    }

    /// Reading an operation failed: the request is malformed (reading it whole tells how).
    struct ReadFailure: Error {
        var underlying: any Error
    }

    /// Requests this large are read ahead; smaller ones are not worth a helper.
    static let readAheadThreshold = 32

    /// The request's members besides its operations.
    let header: ModifyRecordsRequest
    /// How many operations it has.
    let count: Int
    private let body: ModifyRecordsBody?
    private let condition = NSCondition()
    private var slots: [Result<Read, any Error>?]
    /// Operations `0..<claimed` are read, or being read, by the helper or the transaction.
    private var claimed: Int
    private var stopped = false

    /// Operations already read (a small request, or one read whole); their fields are written out here, before the
    /// write transaction (which other requests' writes wait for) begins.
    init(request: ModifyRecordsRequest, fields: [EncodedFields?]?) {
        var header = request
        header.operations = []
        self.header = header
        count = request.operations.count
        body = nil
        slots = request.operations.indices.map { index in
            let encoded = fields.flatMap { index < $0.count ? $0[index] : nil }
            return .success(Read(operation: request.operations[index], fields: encoded, fieldsJSON: encoded.map { Data($0.json()) }))
        }
        claimed = count
    }

    /// Operations read from `body` as they are needed, ahead of the transaction once `startReadingAhead` is called.
    init(body: ModifyRecordsBody) {
        header = body.header
        count = body.count
        self.body = body
        slots = Array(repeating: nil, count: body.count)
        claimed = 0
    }

    /// Starts the helper that reads operations ahead of the transaction.
    func startReadingAhead() {
        guard body != nil else { return }
        Task.detached { [self] in
            while let index = claimNext() { deliver(index, read(index)) }
        }
    }

    /// Operation `index`, asked for in order 0, 1, 2, …; a malformed one throws `ReadFailure`.
    func operation(_ index: Int) throws -> Read {
        condition.lock()
        if claimed <= index {
            // Not begun by the helper: read it here.
            claimed = index + 1
            condition.unlock()
            let result = read(index)
            deliver(index, result)
            return try result.get()
        }
        while slots[index] == nil { condition.wait() }
        let result = slots[index]!
        condition.unlock()
        return try result.get()
    }

    /// Stops the helper (the transaction failed); operations it is reading are finished, no new ones begun.
    func stop() { condition.withLock { stopped = true } }

    /// Every operation, once each was asked for.
    var operations: [RecordOperation] {
        condition.withLock { slots.map { slot in (try? slot?.get())?.operation ?? RecordOperation(.create, Record(recordName: "")) } }
    }

    private func claimNext() -> Int? {
        condition.withLock {
            guard !stopped, claimed < count else { return nil }
            claimed += 1
            return claimed - 1
        }
    }

    private func deliver(_ index: Int, _ result: Result<Read, any Error>) {
        condition.withLock {
            slots[index] = result
            condition.broadcast()
        }
    }

    private func read(_ index: Int) -> Result<Read, any Error> {
        guard let body else { return .failure(ReadFailure(underlying: ServerError(.internalError, "operation \(index) was never read"))) }
        do {
            let (operation, fields) = try body.operation(index)
            return .success(Read(operation: operation, fields: fields, fieldsJSON: fields.map { Data($0.json()) }))
        } catch {
            return .failure(ReadFailure(underlying: error))
        }
    }
}
