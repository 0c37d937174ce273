import CloudModel
import Foundation

/// Shares saved as CloudKit JS saves them: a `cloudkit.share` record in a `records/modify` of the private database,
/// beside the root record whose `share` names it. They become the shares `shares/modify` makes, under the record name
/// the client chose (the device's own shares are named `share-<root>`), so the device's sharing and this one are one thing.
extension CloudService {
    /// `records/modify`, with share records taken out and saved as shares when the body has any.
    func modifyRecordsOrShares(body: Data, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        // A byte search, only where share records can be saved: every other write goes on as before.
        if database.scope == .private, Self.mentionsShareType(body),
            let response = try await saveShareRecords(body, database, caller)
        {
            return response
        }
        return try await modifyRecords(body: body, database, caller)
    }

    private static let shareTypeBytes = Array(#""cloudkit.share""#.utf8)
    /// The name CloudKit gives the share record of a zone-wide share.
    static let zoneShareName = ZoneShare.name

    /// Whether `body` holds the share type's bytes, found from its `.` (rare in a todo's JSON, unlike `"`).
    static func mentionsShareType(_ body: Data) -> Bool {
        ByteSearch.contains(shareTypeBytes, anchor: 9, in: body)
    }

    /// nil when no operation saves a `cloudkit.share` record (the words were only in a value).
    private func saveShareRecords(_ body: Data, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse? {
        guard case .object(var request) = try JSONParser.parse(body), case .array(let operations)? = request["operations"] else { return nil }
        let isShare = { (operation: JSONValue) -> Bool in
            guard case .object(let o) = operation, case .object(let record)? = o["record"], case .string(let type)? = record["recordType"] else { return false }
            return type == "cloudkit.share"
        }
        let shares = operations.filter(isShare)
        guard !shares.isEmpty else { return nil }
        let zoneID = try request["zoneID"].map { try JSONDecoder().decode(ZoneID.self, from: Data(JSONWriter.bytes(of: $0))) } ?? .default
        // The roots: records whose `share` names a share record of this request (the key is dropped before saving).
        var rootOf: [String: String] = [:]
        var others: [JSONValue] = []
        for operation in operations where !isShare(operation) {
            guard case .object(var o) = operation, case .object(var record)? = o["record"] else {
                others.append(operation)
                continue
            }
            if case .object(let share)? = record["share"], case .string(let shareName)? = share["recordName"], case .string(let root)? = record["recordName"] {
                rootOf[shareName] = root
                record["share"] = nil
                o["record"] = .object(record)
            }
            others.append(.object(o))
        }
        var answers: [JSONValue] = []
        if !others.isEmpty {
            request["operations"] = .array(others)
            let saved = try await modifyRecords(body: Data(JSONWriter.bytes(of: .object(request))), database, caller)
            guard saved.status == 200, case .object(let answer) = try JSONParser.parse(saved.body), case .array(let records)? = answer["records"] else { return saved }
            answers = records
        }
        let user = try caller.requireUser()
        var shareOperations: [ModifySharesRequest.Operation] = []
        var failures: [Int: ServerError] = [:]
        for (index, operation) in shares.enumerated() {
            guard case .object(let o) = operation, case .object(let record)? = o["record"] else { continue }
            let name: String? = if case .string(let n)? = record["recordName"] { n } else { nil }
            if let permission = record["publicPermission"], permission != .string("NONE") {
                // Anyone holding the URL could join such a share; here a share opens only to those it names.
                var error = ServerError(
                    .badRequest,
                    "publicPermission \(Self.describe(permission)) is not supported: a share of this cloud is open only to the participants it names (publicPermission NONE)")
                error.recordName = name
                failures[index] = error
                continue
            }
            if name == Self.zoneShareName {
                // A share of the whole zone it is saved in.
                let participants = try await shareParticipants(record["participants"], owner: user)
                shareOperations.append(.init(.save, zoneID: zoneID, rootRecordName: ZoneShare.name, participants: participants))
                continue
            }
            var root = name.flatMap { rootOf[$0] }
            if root == nil, case .object(let fields)? = record["fields"], case .object(let field)? = fields["rootRecord"], case .object(let value)? = field["value"],
                case .string(let r)? = value["recordName"]
            {
                root = r
            }
            guard let root else {
                failures[index] = ServerError(.badRequest, "a cloudkit.share record is saved with its root record, whose \"share\" names it")
                continue
            }
            let participants = try await shareParticipants(record["participants"], owner: user)
            shareOperations.append(.init(.save, zoneID: zoneID, rootRecordName: root, participants: participants, shareRecordName: name))
        }
        var shareAnswers: [JSONValue] = []
        if !shareOperations.isEmpty {
            let saved = try await modifyShares(ModifySharesRequest(operations: shareOperations), database, caller)
            guard saved.status == 200, case .object(let answer) = try JSONParser.parse(saved.body), case .array(let items)? = answer["shares"] else { return saved }
            shareAnswers = items.map { item in
                guard case .object(var share) = item, share["serverErrorCode"] == nil else { return item }
                share["recordName"] = share["shareRecordName"]
                share["recordType"] = .string("cloudkit.share")
                share["publicPermission"] = .string("NONE")
                if share["shareRecordName"] == .string(ZoneShare.name) { share["rootRecordName"] = nil }  // it roots no record
                return .object(share)
            }
        }
        // In the order of the request: the records saved, each share record as the share it became.
        var records: [JSONValue] = []
        var (nextRecord, nextShare) = (0, 0)
        var shareIndex = 0
        for operation in operations {
            if isShare(operation) {
                if let failure = failures[shareIndex] {
                    records.append((try? JSONParser.parse(Array(try JSONWriter.encoder.encode(failure)))) ?? .null)
                } else if nextShare < shareAnswers.count {
                    records.append(shareAnswers[nextShare])
                    nextShare += 1
                }
                shareIndex += 1
            } else if nextRecord < answers.count {
                records.append(answers[nextRecord])
                nextRecord += 1
            }
        }
        return ServiceResponse(status: 200, body: JSONWriter.bytes(of: .object(["records": .array(records)])))
    }

    /// A share record's `participants` as accounts: each by `userIdentity.lookupInfo` (or its own keys)
    /// `emailAddress` (an account name), `accountName` or `userRecordName`, with its `permission`.
    private func shareParticipants(_ value: JSONValue?, owner: String) async throws -> [ModifySharesRequest.Participant] {
        guard case .array(let items)? = value else { return [] }
        let ownerAccount = try await store.read { try await $0.user(recordName: owner)?.account }
        var participants: [ModifySharesRequest.Participant] = []
        for item in items {
            guard case .object(let entry) = item else { continue }
            var lookup = entry
            if case .object(let identity)? = entry["userIdentity"] {
                lookup = identity
                if case .object(let info)? = identity["lookupInfo"] { lookup.merge(info) { $1 } }
            }
            let permission: ShareParticipantPermission = if case .string("READ_WRITE")? = entry["permission"] { .readWrite } else { .readOnly }
            let account: String?
            if case .string(let name)? = lookup["emailAddress"] ?? lookup["accountName"] {
                account = name
            } else if case .string(let recordName)? = lookup["userRecordName"] {
                account = try await store.read { try await $0.user(recordName: recordName)?.account }
            } else {
                account = nil
            }
            guard let account else { throw ServerError(.badRequest, "each participant names a user (emailAddress or userRecordName) the cloud knows") }
            if account == ownerAccount { continue }  // CloudKit JS lists the owner among the participants
            participants.append(.init(account: account, permission: permission))
        }
        return participants
    }
}

extension CloudService {
    /// A JSON value in a reason, short.
    fileprivate static func describe(_ value: JSONValue) -> String {
        String(decoding: JSONWriter.bytes(of: value).prefix(64), as: UTF8.self)
    }
}

extension JSONWriter {
    /// The bytes of a JSON value.
    static func bytes(of value: JSONValue) -> [UInt8] {
        var writer = JSONWriter(reserving: 256)
        writer.json(value)
        return writer.bytes
    }
}
