import CloudModel
import Foundation
import SQLiteDB

/// The outcome of one `records/modify` operation.
enum ItemOutcome: Sendable {
    case saved(StoredRecord, ZoneID, event: FiresOn)
    case deleted(String, ZoneID)
    case failed(ServerError)

    var failed: Bool { if case .failed = self { true } else { false } }
}

/// An atomic batch that failed: nothing was written; these are the per-item outcomes to report.
struct AtomicFailure: Error {
    var outcomes: [ItemOutcome]
}

extension CloudService {
    /// `records/modify`: applies operations with change-tag checks, atomically in custom zones.
    /// The feed hands the transaction each operation, its fields as canonical JSON (its `record.fields` is then nil)
    /// and, when read ahead, that JSON written out; a malformed operation ends it with `OperationFeed.ReadFailure`.
    /// A saved record is answered with the fields its operation's `desiredKeys` (else the request's) name, all when
    /// neither is given; system fields always come back, and a conflict's `serverRecord` always has every field.
    func modifyRecords(_ feed: OperationFeed, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        guard feed.count > 0 else { throw ServerError(.badRequest, "operations is empty") }
        guard feed.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(
                .limitExceeded,
                "\(feed.count) operations in one request; the limit is \(CloudLimits.maxOperationsPerRequest)")
        }
        let now = RecordStamp(timestamp: nowMillis, userRecordName: user, deviceID: caller.deviceID)
        let zoneFromRequest = feed.header.zoneID
        let atomicRequested = feed.header.atomic
        let count = feed.count
        let outcomes: [ItemOutcome]
        feed.startReadingAhead()
        defer { feed.stop() }
        do {
            outcomes = try await write(notifying: { tx in
                let schema = SchemaSession(
                    container: database.container, tx: tx, assets: AssetValues(container: database.container, user: user, origin: caller.origin, grants: self.capabilityGrants))
                let batch = RecordWriteBatch(
                    service: self, tx: tx, feed: feed, database: database, stamp: now, schema: schema, zoneFromRequest: zoneFromRequest)
                var atomicZones = Set<Int64>()
                var zones: [ZoneID: Result<StoredZone, ServerError>] = [:]
                var lastZone: (id: ZoneID, zone: StoredZone)?
                for index in 0..<count {
                    let read = try feed.operation(index)
                    var operation = read.operation
                    if operation.operationType == .create, operation.record.recordName.isEmpty {
                        // A create without a name gets one from the cloud, as CloudKit assigns it; the answer says it.
                        operation.record.recordName = UUID().uuidString
                    }
                    let zoneID = zoneFromRequest ?? operation.record.zoneID ?? .default
                    let zone: StoredZone
                    do {
                        if let lastZone, lastZone.id == zoneID {
                            zone = lastZone.zone  // the usual batch: every operation in one zone
                        } else if let cached = zones[zoneID] {
                            zone = try cached.get()
                        } else {
                            do {
                                guard let found = try await self.resolveZone(tx, database, zoneID, create: true) else {
                                    throw ServerError(.zoneNotFound, "zone '\(zoneID.zoneName)' not found")
                                }
                                zones[zoneID] = .success(found)
                                zone = found
                            } catch let error as ServerError {
                                zones[zoneID] = .failure(error)
                                throw error
                            }
                        }
                    } catch var error as ServerError {
                        error.recordName = operation.record.recordName
                        batch.fail(index, error)
                        continue
                    }
                    lastZone = (zoneID, zone)
                    if database.scope != .public && !zone.zoneID.isDefault && (atomicRequested ?? true) {
                        atomicZones.insert(zone.pk)
                    }
                    try await batch.write(index, operation, read, in: zone)
                }
                try await batch.flush()
                let outcomes = batch.outcomes.map { $0 ?? .failed(ServerError(.internalError, "an operation was not applied")) }
                if !atomicZones.isEmpty, outcomes.contains(where: \.failed) {
                    throw AtomicFailure(outcomes: outcomes)
                }
                // The default zone has no change feed; custom zones announce themselves in the database feed.
                for name in batch.touchedZones where database.scope == .private && name != ZoneID.defaultZoneName {
                    try await tx.noteZoneChange(database, zoneName: name, kind: .changed, seq: try await tx.nextSequence(.database(database)), now: now.timestamp)
                }
                let effects = try await self.finishSharing(batch.shareBatch, tx: tx)
                return (outcomes, Self.recordNotices(outcomes, database: database, writer: caller) + Self.shareNotices(effects, writer: caller))
            })
        } catch let failure as AtomicFailure {
            let operations = feed.operations
            let reported = failure.outcomes.enumerated().map { index, outcome -> ItemOutcome in
                if outcome.failed { return outcome }
                var error = ServerError(.atomicError, "not written: another operation of this atomic batch failed")
                error.recordName = operations[index].record.recordName
                return .failed(error)
            }
            return try respond(reported, feed.header, operations)
        }
        return try respond(outcomes, feed.header, feed.operations)
    }

    private func respond(_ outcomes: [ItemOutcome], _ request: ModifyRecordsRequest, _ operations: [RecordOperation]) throws
        -> ServiceResponse
    {
        let requestKeys = request.desiredKeys.map(Set.init)
        // A saved record echoes its fields (those asked for) plus 450-odd bytes of system fields: reserve that, so
        // the buffer is not regrown.
        var capacity = 16
        // By index, each outcome read where it lies: iterating copied each (its record's strings retained and
        // released) twice a record, 5 M instructions of the cloud taking 10,000.
        for index in outcomes.indices {
            if case .saved(let record, _, _) = outcomes[index] { capacity += (requestKeys?.isEmpty == true ? 2 : record.fieldsJSON.count) + 512 }
        }
        var answer = RecordsResponseWriter(reserving: max(capacity, outcomes.count * 300))
        for index in outcomes.indices {
            switch outcomes[index] {
            case .saved(let record, let zoneID, _):
                let keys = operations[index].desiredKeys.map(Set.init) ?? requestKeys
                try answer.record(record, zoneID: zoneID, desiredKeys: keys)
            case .deleted(let name, let zoneID): answer.record(RecordSystemFields(recordName: name, deleted: true, zoneID: zoneID), fields: .absent)
            case .failed(let error): try answer.failure(error)
            }
        }
        let response = ServiceResponse(status: 200, body: answer.finish())
        return request.numbersAsStrings == true ? try response.numbersAsStrings() : response
    }

    /// Applies one operation inside the write transaction; `encodedFields` stand for `operation.record.fields`, and
    /// `fieldsJSON`, when given, is their `json()`. `insertFirst`: a private create tries its insert before any lookup;
    /// `known`: the record's row as read already (nil inside: none), else it is looked up.
    func apply(
        _ operation: RecordOperation, encodedFields: EncodedFields?, fieldsJSON: Data?, in zone: StoredZone, database: DatabaseKey,
        stamp: RecordStamp, schema: SchemaSession, tx: any StoreTransaction, insertFirst: Bool = true, known: StoredRecord?? = nil
    ) async throws -> ItemOutcome {
        let incoming = operation.record
        let name = incoming.recordName
        guard Validation.isRecordName(name) else { throw ServerError(.badRequest, "recordName must be 1 to 255 bytes without control characters") }
        // A create in the owner's private database almost always names a record that has no row yet: with no row
        // there is nothing to check against, so the insert goes first and the row is looked up only when it turns
        // out to be there (or when the record is invalid, so the error is the one the lookup path reports).
        // Checks that depend on an existing row belong below; anything every save needs belongs in recordToSave.
        if insertFirst, operation.operationType == .create, database.scope == .private,
            var record = try? await recordToSave(
                operation, encodedFields: encodedFields, fieldsJSON: fieldsJSON, existing: nil, zone: zone, stamp: stamp, schema: schema)
        {
            record.seq = try await tx.nextSequence(.zone(pk: zone.pk))
            record.changeTag = String(record.seq, radix: 36)
            if try await tx.insertRecord(record) { return .saved(record, zone.zoneID, event: .create) }
        }
        let found: StoredRecord?
        if let known { found = known } else { found = try await tx.record(zonePK: zone.pk, name: name) }
        let existing = found.flatMap { $0.deleted ? nil : $0 }
        let type = operation.operationType

        if let existing, database.scope == .public, existing.created.userRecordName != stamp.userRecordName {
            throw ServerError(.accessDenied, "only the creator of '\(name)' may change it on the public board")
        }
        if type == .create, let existing {
            var error = ServerError(.exists, "record '\(name)' already exists")
            error.serverRecord = try existing.record(zoneID: zone.zoneID)
            throw error
        }
        if type == .update || type == .replace || type == .delete {
            guard let existing else { throw ServerError(.notFound, "record '\(name)' not found") }
            if incoming.recordChangeTag != existing.changeTag {
                var error = ServerError(
                    .conflict, "record '\(name)' changed on the server (tag \(existing.changeTag)); merge and retry")
                error.serverRecord = try existing.record(zoneID: zone.zoneID)
                throw error
            }
        }
        let seq = try await tx.nextSequence(.zone(pk: zone.pk))
        if type.isDelete {
            guard let existing else {
                if type == .forceDelete { return .deleted(name, zone.zoneID) }
                throw ServerError(.notFound, "record '\(name)' not found")
            }
            if database.scope == .public {
                try await tx.removeRecord(zonePK: zone.pk, name: name)  // no change feed, no tombstone
            } else {
                var tombstone = existing
                tombstone.deleted = true
                tombstone.seq = seq
                tombstone.changeTag = String(seq, radix: 36)
                tombstone.modified = stamp
                tombstone.fieldsJSON = Data("{}".utf8)
                try await tx.putRecord(tombstone)
            }
            return .deleted(name, zone.zoneID)
        }

        var record = try await recordToSave(
            operation, encodedFields: encodedFields, fieldsJSON: fieldsJSON, existing: existing, zone: zone, stamp: stamp, schema: schema)
        record.seq = seq
        record.changeTag = String(seq, radix: 36)
        if found == nil {
            // Only a row added since the lookup could make this fail; none can be inside this transaction.
            guard try await tx.insertRecord(record) else { throw ServerError(.internalError, "record '\(name)' appeared while it was saved") }
        } else {
            try await tx.putRecord(record)
        }
        return .saved(record, zone.zoneID, event: existing == nil ? .create : .update)
    }

    /// The record a save writes, checked (type, field names, size) but without its sequence and change tag yet.
    func recordToSave(
        _ operation: RecordOperation, encodedFields: EncodedFields?, fieldsJSON: Data?, existing: StoredRecord?, zone: StoredZone,
        stamp: RecordStamp, schema: SchemaSession
    ) async throws -> StoredRecord {
        let incoming = operation.record
        let name = incoming.recordName
        let type = operation.operationType
        guard let recordType = incoming.recordType ?? existing?.recordType, !recordType.isEmpty, recordType.utf8.count <= 255
        else { throw ServerError(.badRequest, "recordType is required to save '\(name)'") }
        var fields = EncodedFields()
        if let existing, type == .update || type == .forceUpdate {
            fields = EncodedFields(try existing.decodedFields())
        }
        var changes = encodedFields ?? incoming.fields.map { EncodedFields($0) } ?? EncodedFields()
        let isFieldName = { (key: String) in Validation.isName(key, maxLength: 255, extra: "_", letterFirst: true) }
        if !changes.allNames(isFieldName), let key = changes.names.first(where: { !isFieldName($0) }) {
            throw ServerError(.badRequest, "invalid field name '\(key.prefix(64))'")
        }
        // The container's schema types the values (and, in development, learns new fields).
        let conformed = try await schema.conform(changes, recordType: recordType)
        changes = conformed.fields
        let json: Data
        if fields.isEmpty, let fieldsJSON, encodedFields != nil, !conformed.retyped {
            json = fieldsJSON  // the fields sent are the fields stored, and were written out already
        } else {
            if fields.isEmpty { fields = changes } else { fields.merge(changes) }  // later values win; null values remove
            json = Data(fields.json())
        }
        guard json.count <= CloudLimits.maxRecordBytes else {
            throw ServerError(
                .limitExceeded, "record '\(name)' is \(json.count) bytes; the limit is \(CloudLimits.maxRecordBytes) (1 MB)")
        }
        return StoredRecord(
            zonePK: zone.pk, recordName: name, recordType: recordType, changeTag: "", seq: 0,
            deleted: false, created: existing?.created ?? stamp, modified: stamp,
            parent: incoming.parent?.recordName ?? (type == .update || type == .forceUpdate ? existing?.parent : nil),
            fieldsJSON: json)
    }

    /// `records/lookup`: live records by name; `NOT_FOUND` per missing item.
    func lookupRecords(_ request: LookupRecordsRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        guard request.records.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.limitExceeded, "at most \(CloudLimits.maxOperationsPerRequest) records per lookup")
        }
        let desired = request.desiredKeys.map(Set.init)
        let zoneID = request.zoneID
        let items = request.records
        let body = try await store.read { tx -> [UInt8] in
            let zone = try await self.resolveZone(tx, database, zoneID, create: false)
            let view = try await self.viewIfShared(tx, database, zone)
            // Every row asked for in one call (one round trip on a networked store).
            var rows: [String: StoredRecord] = [:]
            if let zone { rows = try await tx.records(zonePK: zone.pk, names: items.map(\.recordName)) }
            var answer = RecordsResponseWriter(reserving: items.count * 300)
            for item in items {
                if answer.byteCount > CloudLimits.maxResponseBytes {
                    // The answer is full: the rest are asked for again in another request.
                    var error = ServerError(
                        .limitExceeded, "the answer reached \(CloudLimits.maxResponseBytes / 1_048_576) MB; look '\(item.recordName)' up again")
                    error.recordName = item.recordName
                    try answer.failure(error)
                } else if let zone, let record = rows[item.recordName], !record.deleted,
                    try await self.isVisible(tx, view, recordName: record.recordName)
                {
                    try answer.record(record, zoneID: zone.zoneID, desiredKeys: item.desiredKeys.map(Set.init) ?? desired)
                } else {
                    var error = ServerError(.notFound, "record '\(item.recordName)' not found")
                    error.recordName = item.recordName
                    try answer.failure(error)
                }
            }
            return answer.finish()
        }
        let response = ServiceResponse(status: 200, body: body)
        return request.numbersAsStrings == true ? try response.numbersAsStrings() : response
    }

    /// Rows read at once when a query filters on fields.
    static let queryChunk = 256
    /// Rows such a query looks at in one request at most; past it, the page ends (maybe short) with a marker.
    static let queryScanBudget = 4096
}
