import CloudModel
import Foundation

/// The writes of one `records/modify` transaction, grouped so a store with round trips pays few of them: creates in
/// the owner's private database are inserted together (`insertRecords`), and the rows the other operations check
/// against are read a window at a time (`records(zonePK:names:)`). Outcomes are those of applying each operation in
/// order: a create waits in the group only while no later operation names its record.
final class RecordWriteBatch {
    /// How many operations ahead one read of rows looks.
    static let lookaheadWindow = 200

    private let service: CloudService
    private let tx: any StoreTransaction
    private let feed: OperationFeed
    private let database: DatabaseKey
    private let stamp: RecordStamp
    private let schema: SchemaSession
    /// The zone of operations that name none.
    private let zoneFromRequest: ZoneID?
    var shareBatch: ShareBatch
    /// One per operation, in order; nil until decided.
    private(set) var outcomes: [ItemOutcome?]
    /// Zones written, by name.
    private(set) var touchedZones = Set<String>()
    /// Creates inserted at the next flush: their records, where each came from (kept apart: reading one member of a
    /// list of tuples copied the whole tuple, operation and read included, 3 % of the cloud taking 10,000), and names.
    private var pendingRecords: [StoredRecord] = []
    private var pendingPlaces: [(index: Int, zone: StoredZone)] = []
    private var pendingSources: [(operation: RecordOperation, read: OperationFeed.Read)] = []
    private var pendingNames = Set<String>()
    /// Rows read ahead for one zone (nil: no row); an entry is used once and dropped when its record is written.
    private var rows: (zonePK: Int64, byName: [String: StoredRecord?])?

    init(
        service: CloudService, tx: any StoreTransaction, feed: OperationFeed, database: DatabaseKey, stamp: RecordStamp,
        schema: SchemaSession, zoneFromRequest: ZoneID?
    ) {
        self.service = service
        self.tx = tx
        self.feed = feed
        self.database = database
        self.stamp = stamp
        self.schema = schema
        self.zoneFromRequest = zoneFromRequest
        shareBatch = ShareBatch(database: database, stamp: stamp)
        outcomes = Array(repeating: nil, count: feed.count)
        // Room for a request's creates at once: grown from empty, the set was rebuilt eight times a request.
        pendingRecords.reserveCapacity(feed.count)
        pendingPlaces.reserveCapacity(feed.count)
        pendingSources.reserveCapacity(feed.count)
        pendingNames.reserveCapacity(feed.count)
    }

    /// Notes an operation that failed before it was applied (its zone, say).
    func fail(_ index: Int, _ error: ServerError) {
        outcomes[index] = .failed(error)
    }

    /// Applies operation `index` in `zone` (or groups it, for a create that can go in with others).
    func write(_ index: Int, _ operation: RecordOperation, _ read: OperationFeed.Read, in zone: StoredZone) async throws {
        let name = operation.record.recordName
        if pendingNames.contains(name) { try await flush() }
        if try await isGroupable(operation, zone) {
            do {
                var record = try await service.recordToSave(
                    operation, encodedFields: read.fields, fieldsJSON: read.fieldsJSON, existing: nil, zone: zone, stamp: stamp,
                    schema: schema)
                record.seq = try await tx.nextSequence(.zone(pk: zone.pk))
                record.changeTag = String(record.seq, radix: 36)
                pendingRecords.append(record)
                pendingPlaces.append((index, zone))
                pendingSources.append((operation, read))
                pendingNames.insert(name)
                rows?.byName[name] = nil  // a row read ahead for this name is not the one it will have
                return
            } catch is ServerError {
                // Invalid: the single path reports it as it would (after looking the row up).
            }
        }
        try await flush()
        try await applyOne(index, operation, read, in: zone, insertFirst: true)
    }

    /// Inserts the grouped creates; those whose name has a row already go the single path (EXISTS, or a create over
    /// a tombstone), their rows read in one call.
    func flush() async throws {
        guard !pendingRecords.isEmpty else { return }
        let (records, places, sources) = (pendingRecords, pendingPlaces, pendingSources)
        pendingRecords.removeAll(keepingCapacity: true)
        pendingPlaces.removeAll(keepingCapacity: true)
        pendingSources.removeAll(keepingCapacity: true)
        pendingNames.removeAll(keepingCapacity: true)
        let inserted = try await tx.insertRecords(records)
        guard inserted.count == records.count else {
            throw ServerError(.internalError, "the store answered \(inserted.count) inserts for \(records.count)")
        }
        var refused: [Int] = []
        for position in records.indices {
            if inserted[position] {
                outcomes[places[position].index] = .saved(records[position], places[position].zone.zoneID, event: .create)
                touchedZones.insert(places[position].zone.name)
            } else {
                refused.append(position)
            }
        }
        guard let first = refused.first else { return }
        let zone = places[first].zone
        let found = try await tx.records(zonePK: zone.pk, names: refused.map { records[$0].recordName })
        rows = (zone.pk, Dictionary(uniqueKeysWithValues: refused.map { (records[$0].recordName, found[records[$0].recordName]) }))
        for position in refused {
            try await applyOne(places[position].index, sources[position].operation, sources[position].read, in: places[position].zone, insertFirst: false)
        }
    }

    /// A create the group may take: the owner's private database, a zone without shares, not a share record.
    private func isGroupable(_ operation: RecordOperation, _ zone: StoredZone) async throws -> Bool {
        guard operation.operationType == .create, database.scope == .private,
            operation.record.recordType != ShareSchema.recordType, Validation.isRecordName(operation.record.recordName)
        else { return false }
        if case .unshared = try await service.shareState(zone, batch: &shareBatch, tx: tx) { return true }
        return false
    }

    /// One operation with the sharing rules around it; its row read ahead with the next ones of its zone when the
    /// zone has no shares (share rules write other rows than the operation's).
    private func applyOne(
        _ index: Int, _ operation: RecordOperation, _ read: OperationFeed.Read, in zone: StoredZone, insertFirst: Bool
    ) async throws {
        let name = operation.record.recordName
        do {
            var known: StoredRecord??
            if case .unshared = try await service.shareState(zone, batch: &shareBatch, tx: tx) {
                if !insertFirst || operation.operationType != .create || database.scope != .private {
                    known = try await readAhead(name, from: index, in: zone)
                }
            }
            let outcome = try await service.applySharing(operation, in: zone, batch: &shareBatch, tx: tx) {
                try await self.service.apply(
                    operation, encodedFields: read.fields, fieldsJSON: read.fieldsJSON, in: zone, database: self.database,
                    stamp: self.stamp, schema: self.schema, tx: self.tx, insertFirst: insertFirst, known: known)
            }
            if !outcome.failed { touchedZones.insert(zone.name) }
            outcomes[index] = outcome
        } catch var error as ServerError {
            error.recordName = name
            outcomes[index] = .failed(error)
        }
        rows?.byName[name] = nil
    }

    /// The row of `name` (nil inside: none), read with those of the next operations of its zone unless read already.
    private func readAhead(_ name: String, from index: Int, in zone: StoredZone) async throws -> StoredRecord?? {
        if rows?.zonePK == zone.pk, let known = rows?.byName[name] {
            rows?.byName[name] = nil
            return known
        }
        var names = [name]
        // Operations are asked for in order, as the feed wants; each is read once and kept by the feed.
        for next in (index + 1)..<min(index + Self.lookaheadWindow, feed.count) {
            let operation = try feed.operation(next).operation
            // Names of other zones only cost a place in the query: rows are read from this zone.
            guard (zoneFromRequest ?? operation.record.zoneID ?? .default).zoneName == zone.name, !operation.record.recordName.isEmpty
            else { continue }
            names.append(operation.record.recordName)
        }
        let found = try await tx.records(zonePK: zone.pk, names: names)
        var byName: [String: StoredRecord?] = [:]
        for other in names.dropFirst() { byName[other] = found[other] }
        byName[name] = nil
        rows = (zone.pk, byName)
        return .some(found[name])
    }
}
