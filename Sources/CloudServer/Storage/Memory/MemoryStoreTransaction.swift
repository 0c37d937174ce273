import CloudModel
import Foundation
import SQLiteDB

/// The transaction view of the memory store: its own copy of the state, committed whole by the store.
final class MemoryStoreTransaction: StoreTransaction {
    var state: MemoryCloudState
    /// The candidates of this transaction's latest `records/query`, copied once per request (see `QueryScratch.Cache`).
    private let queryScratch = QueryScratch.Cache()
    /// Whether this is a write transaction (a read refuses to change anything, as SQLite's read connections do).
    let writable: Bool

    init(_ state: MemoryCloudState, writable: Bool) {
        self.state = state
        self.writable = writable
    }

    /// Throws unless this transaction may write.
    func requireWritable() throws {
        guard writable else { throw ServerError(.internalError, "a read transaction cannot write") }
        queryScratch.drop()
    }

    func nextSequence(_ feed: FeedKey) throws -> Int64 {
        try requireWritable()
        state.sequence += 1
        return state.sequence
    }

    // MARK: Zones

    func zone(_ database: DatabaseKey, name: String) throws -> StoredZone? {
        state.zoneKeys[MemoryZoneAddress(database: database, name: name)].flatMap { state.zones[$0] }
    }

    func zones(_ database: DatabaseKey) throws -> [StoredZone] {
        state.zones.values.filter { $0.database == database }.sorted { $0.name < $1.name }
    }

    func createZone(_ database: DatabaseKey, name: String) throws -> StoredZone {
        try requireWritable()
        let address = MemoryZoneAddress(database: database, name: name)
        guard state.zoneKeys[address] == nil else { throw ServerError(.internalError, "zone '\(name)' exists already") }
        let zone = StoredZone(pk: state.nextZonePK, database: database, name: name, compactedSeq: 0)
        state.nextZonePK += 1
        state.zones[zone.pk] = zone
        state.zoneKeys[address] = zone.pk
        state.purgedZones.remove(address)
        return zone
    }

    func deleteZone(_ zone: StoredZone, purged: Bool) throws {
        try requireWritable()
        removeZone(zone.pk)
        if purged { state.purgedZones.insert(MemoryZoneAddress(database: zone.database, name: zone.name)) }
    }

    /// A zone with everything that hangs off it (records, shares, views, exit notes), as SQLite's cascade does.
    func removeZone(_ pk: Int64) {
        if let zone = state.zones.removeValue(forKey: pk) {
            state.zoneKeys[MemoryZoneAddress(database: zone.database, name: zone.name)] = nil
        }
        state.records[pk] = nil
        state.shares[pk] = nil
        state.participants[pk] = nil
        state.shareViews[pk] = nil
        state.rootExits[pk] = nil
    }

    func isPurged(_ database: DatabaseKey, name: String) throws -> Bool {
        state.purgedZones.contains(MemoryZoneAddress(database: database, name: name))
    }

    // MARK: Records

    func record(zonePK: Int64, name: String) throws -> StoredRecord? {
        state.records[zonePK]?[name]?.record
    }

    func putRecord(_ record: StoredRecord) throws {
        try requireWritable()
        // As SQLite's INSERT OR REPLACE: a row holding the same feed position goes too, and the root is recomputed.
        if let clash = state.records[record.zonePK]?.first(where: { $0.value.record.seq == record.seq && $0.key != record.recordName }) {
            state.records[record.zonePK]?[clash.key] = nil
        }
        state.records[record.zonePK, default: [:]][record.recordName] = MemoryRecord(record: record, root: nil)
    }

    func insertRecord(_ record: StoredRecord) throws -> Bool {
        try requireWritable()
        guard state.records[record.zonePK]?[record.recordName] == nil else { return false }
        state.records[record.zonePK, default: [:]][record.recordName] = MemoryRecord(record: record, root: nil)
        return true
    }

    func records(zonePK: Int64, names: [String]) throws -> [String: StoredRecord] {
        var found: [String: StoredRecord] = [:]
        guard let zone = state.records[zonePK] else { return found }
        for name in names { if let row = zone[name] { found[name] = row.record } }
        return found
    }

    func insertRecords(_ records: [StoredRecord]) throws -> [Bool] {
        try records.map { try insertRecord($0) }
    }

    func removeRecord(zonePK: Int64, name: String) throws {
        try requireWritable()
        state.records[zonePK]?[name] = nil
    }

    func changes(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool) throws -> [StoredRecord] {
        let rows = (state.records[zonePK] ?? [:]).values.lazy.map(\.record).filter { $0.seq > seq && (includeTombstones || !$0.deleted) }
        return Array(rows.sorted { $0.seq < $1.seq }.prefix(max(limit, 0)))
    }

    func liveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?) throws -> [StoredRecord] {
        (state.records[zonePK] ?? [:]).values.map(\.record).filter {
            $0.recordType == recordType && !$0.deleted && $0.modified.timestamp > (modifiedAfter ?? Int64.min)
        }
    }

    func liveRecordHeads(zonePK: Int64, recordType: String) throws -> [(parent: String?, count: Int64, seq: Int64)] {
        var heads: [String?: (count: Int64, seq: Int64)] = [:]
        for record in try liveRecords(zonePK: zonePK, recordType: recordType, modifiedAfter: nil) {
            let head = heads[record.parent] ?? (0, 0)
            heads[record.parent] = (head.count + 1, max(head.seq, record.seq))
        }
        return heads.map { (parent: $0.key, count: $0.value.count, seq: $0.value.seq) }
    }

    func queryRecords(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) async throws -> [(record: StoredRecord?, key: [SQLValue])] {
        if let roots, roots.isEmpty { return [] }
        let candidates = (state.records[zonePK] ?? [:]).values.filter { row in
            row.record.recordType == recordType && !row.record.deleted && (roots.map { row.root.map($0.contains) ?? false } ?? true)
        }
        return try await queryScratch.scratch(zonePK: zonePK, recordType: recordType, roots: roots) { candidates.map { ($0.record, $0.root) } }
            .query(zonePK: zonePK, recordType: recordType, plan: plan, after: position, roots: roots, limit: limit)
    }

    func latestSequence(zonePK: Int64) throws -> Int64 {
        // Compacted tombstones left the rows but not the feed's history: the head never goes back below them.
        let highest = (state.records[zonePK] ?? [:]).values.map(\.record.seq).max() ?? 0
        return max(highest, state.zones[zonePK]?.compactedSeq ?? 0)
    }

    // MARK: Database change feed

    func noteZoneChange(_ database: DatabaseKey, zoneName: String, kind: ZoneChangeKind, seq: Int64, now: Int64) throws {
        try requireWritable()
        state.zoneChanges[database, default: [:]][zoneName] = MemoryZoneChange(kind: kind, seq: seq, changedAt: now)
    }

    func databaseChanges(_ database: DatabaseKey, after seq: Int64, limit: Int) throws -> [(zoneName: String, kind: ZoneChangeKind, seq: Int64)] {
        let entries = (state.zoneChanges[database] ?? [:]).filter { $0.value.seq > seq }.sorted { $0.value.seq < $1.value.seq }
        return entries.prefix(max(limit, 0)).map { (zoneName: $0.key, kind: $0.value.kind, seq: $0.value.seq) }
    }

    func latestDatabaseSequence(_ database: DatabaseKey) throws -> Int64 {
        let latest = (state.zoneChanges[database] ?? [:]).values.map(\.seq).max() ?? 0
        return max(latest, try databaseHorizon(database))
    }

    func databaseHorizon(_ database: DatabaseKey) throws -> Int64 {
        max(state.databaseCompacted, state.databaseHorizons[database] ?? 0)
    }

    // MARK: Subscriptions

    func subscriptions(_ database: DatabaseKey) throws -> [Subscription] {
        (state.subscriptions[database] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
    }

    func putSubscription(_ database: DatabaseKey, _ subscription: Subscription) throws {
        try requireWritable()
        state.subscriptions[database, default: [:]][subscription.subscriptionID] = subscription
    }

    func deleteSubscription(_ database: DatabaseKey, id: String) throws -> Bool {
        try requireWritable()
        return state.subscriptions[database]?.removeValue(forKey: id) != nil
    }

    func subscriptions(container: String, scope: DatabaseScope) throws -> [(owner: String, subscription: Subscription)] {
        state.subscriptions.filter { $0.key.container == container && $0.key.scope == scope }
            .flatMap { database, byID in byID.values.map { (owner: database.owner, subscription: $0) } }
    }

    // MARK: Compaction

    func compact(before: Int64) throws {
        try requireWritable()
        for (pk, rows) in state.records {
            let old = rows.values.filter { $0.record.deleted && $0.record.modified.timestamp < before }
            guard let highest = old.map(\.record.seq).max() else { continue }
            raiseHorizon(of: pk, to: highest)
            for row in old { state.records[pk]?[row.record.recordName] = nil }
        }
        for (database, entries) in state.zoneChanges {
            let old = entries.filter { $0.value.kind != .changed && $0.value.changedAt < before }
            guard let highest = old.values.map(\.seq).max() else { continue }
            state.databaseHorizons[database] = max(state.databaseHorizons[database] ?? 0, highest)
            for name in old.keys { state.zoneChanges[database]?[name] = nil }
        }
        for (pk, exits) in state.rootExits {
            let old = exits.filter { $0.value.changedAt < before }
            guard let highest = old.values.map(\.seq).max() else { continue }
            raiseHorizon(of: pk, to: highest)
            for key in old.keys { state.rootExits[pk]?[key] = nil }
        }
    }

    /// Moves a zone's expiry horizon up to `seq` (never down).
    private func raiseHorizon(of pk: Int64, to seq: Int64) {
        guard var zone = state.zones[pk] else { return }
        zone.compactedSeq = max(zone.compactedSeq, seq)
        state.zones[pk] = zone
    }
}
