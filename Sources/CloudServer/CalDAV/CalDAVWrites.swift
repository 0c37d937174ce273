import CloudModel
import Foundation
import TodoStore

/// Why a CalDAV write was refused, as an HTTP status and a sentence (and a precondition element, where one applies).
struct CalDAVFailure: Error, Sendable {
    var status: Int
    var reason: String
    /// `<d:error>` child, e.g. `<c:supported-calendar-component/>`.
    var condition: String?

    init(_ status: Int, _ reason: String, condition: String? = nil) {
        self.status = status
        self.reason = reason
        self.condition = condition
    }
}

extension CloudService {
    /// Saves and deletes records of one collection's zone through `records/modify`, the path every device's writes
    /// take (rules, shares, the change feed, push to every other device), atomically. Saves of records with a
    /// change tag replace that version (412 if it changed meanwhile); those without create (412 if the name exists).
    @discardableResult
    func calDAVWrite(
        _ account: CalDAVAccount, _ collection: CalDAVCollection, saving: [TodoItem], deleting: [(name: String, tag: String?)] = []
    ) async throws -> [Record] {
        if collection.zone == nil { try await calDAVEnsureZone(account) }
        var operations: [RecordOperation] = []
        for item in saving {
            var record = item.record
            record.zoneID = collection.zoneID
            operations.append(RecordOperation(item.system.changeTag == nil ? .create : .replace, record))
        }
        for (name, tag) in deleting {
            operations.append(RecordOperation(tag == nil ? .forceDelete : .delete, Record(recordName: name, recordChangeTag: tag, zoneID: collection.zoneID)))
        }
        let request = ModifyRecordsRequest(operations: operations, zoneID: collection.zoneID, atomic: true)
        let body = try JSONWriter.encoder.encode(request)
        let answer: ServiceResponse
        do {
            answer = try await modifyRecords(body: body, collection.database, account.caller)
        } catch let error as ServerError {
            throw Self.calDAVFailure(error)
        }
        let results = try RecordsResponse(bytes: answer.body).records
        if let failure = results.compactMap(\.error).first(where: { $0.serverErrorCode != .atomicError }) ?? results.compactMap(\.error).first {
            throw Self.calDAVFailure(failure)
        }
        return results.compactMap(\.record)
    }

    /// The account's `Todos` zone, made as a device makes it on its first sync.
    func calDAVEnsureZone(_ account: CalDAVAccount) async throws {
        let request = ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: TodoSchema.zoneName))])
        _ = try await modifyZones(request, account.privateDatabase, account.caller)
    }

    /// A refusal of the record path as CalDAV answers it.
    static func calDAVFailure(_ error: ServerError) -> CalDAVFailure {
        switch error.serverErrorCode {
        case .conflict, .exists:
            CalDAVFailure(412, "the resource changed meanwhile (or already exists): fetch it again")
        case .accessDenied:
            CalDAVFailure(403, "read-only: \(error.reason)", condition: "<d:need-privileges/>")
        case .limitExceeded:
            CalDAVFailure(413, error.reason)
        case .notFound, .zoneNotFound:
            CalDAVFailure(404, error.reason)
        case .throttled, .tryAgainLater:
            CalDAVFailure(503, error.reason)
        case .quotaExceeded:
            CalDAVFailure(507, error.reason)
        default:
            CalDAVFailure(400, error.reason)
        }
    }
}
