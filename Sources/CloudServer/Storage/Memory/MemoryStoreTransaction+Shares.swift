import CloudModel
import Foundation

/// Shares, participants, computed roots and participants' views, in memory.
extension MemoryStoreTransaction {
    // MARK: Shares

    func zoneHasShares(zonePK: Int64) throws -> Bool {
        !(state.shares[zonePK]?.isEmpty ?? true)
    }

    func share(zonePK: Int64, recordName: String) throws -> ShareRow? {
        state.shares[zonePK]?[recordName].map { ShareRow(zonePK: zonePK, recordName: recordName, rootRecordName: $0) }
    }

    func share(zonePK: Int64, root: String) throws -> ShareRow? {
        state.shares[zonePK]?.first { $0.value == root }.map { ShareRow(zonePK: zonePK, recordName: $0.key, rootRecordName: root) }
    }

    func insertShare(_ share: ShareRow) throws {
        try requireWritable()
        guard try self.share(zonePK: share.zonePK, recordName: share.recordName) == nil,
            try self.share(zonePK: share.zonePK, root: share.rootRecordName) == nil
        else { throw ServerError(.internalError, "a share of that record exists already") }
        state.shares[share.zonePK, default: [:]][share.recordName] = share.rootRecordName
    }

    func deleteShare(zonePK: Int64, recordName: String) throws {
        try requireWritable()
        state.shares[zonePK]?[recordName] = nil
        state.participants[zonePK]?[recordName] = nil
    }

    func participants(zonePK: Int64, shareRecordName: String) throws -> [ParticipantRow] {
        state.participants[zonePK]?[shareRecordName] ?? []
    }

    func setParticipants(zonePK: Int64, shareRecordName: String, _ participants: [ParticipantRow]) throws {
        try requireWritable()
        // One row per user, as SQLite's key (zone, share, user) allows.
        var seen = Set<String>()
        state.participants[zonePK, default: [:]][shareRecordName] = participants.filter { seen.insert($0.userRecordName).inserted }
    }

    /// Every share of the zones `include` picks, with its zone.
    private func shares(in include: (StoredZone) -> Bool) -> [(zone: StoredZone, share: ShareRow)] {
        state.shares.flatMap { pk, byName -> [(zone: StoredZone, share: ShareRow)] in
            guard let zone = state.zones[pk], include(zone) else { return [] }
            return byName.map { (zone, ShareRow(zonePK: pk, recordName: $0.key, rootRecordName: $0.value)) }
        }
    }

    func ownedShares(container: String, owner: String) throws -> [(zone: StoredZone, share: ShareRow)] {
        shares { $0.database.container == container && $0.database.scope == .private && $0.database.owner == owner }
            .sorted { ($0.zone.name, $0.share.rootRecordName) < ($1.zone.name, $1.share.rootRecordName) }
    }

    func sharesListing(container: String, participant: String) throws -> [(zone: StoredZone, share: ShareRow)] {
        shares { $0.database.container == container }
            .filter { listing in
                (state.participants[listing.zone.pk]?[listing.share.recordName] ?? []).contains { $0.userRecordName == participant }
            }
            .sorted {
                ($0.zone.database.owner, $0.zone.name, $0.share.rootRecordName) < ($1.zone.database.owner, $1.zone.name, $1.share.rootRecordName)
            }
    }

    func sharedZones(container: String, participant: String) throws -> [StoredZone] {
        state.participants.compactMap { pk, byShare -> StoredZone? in
            guard let zone = state.zones[pk], zone.database.container == container,
                byShare.contains(where: { share, rows in
                    state.shares[pk]?[share] != nil && rows.contains { $0.userRecordName == participant && $0.accepted }
                })
            else { return nil }
            return zone
        }.sorted { ($0.database.owner, $0.name) < ($1.database.owner, $1.name) }
    }

    func acceptedRoots(zonePK: Int64, participant: String) throws -> [String: ShareParticipantPermission] {
        var roots: [String: ShareParticipantPermission] = [:]
        for (share, rows) in state.participants[zonePK] ?? [:] {
            guard let root = state.shares[zonePK]?[share], let row = rows.first(where: { $0.userRecordName == participant && $0.accepted })
            else { continue }
            roots[root] = row.permission
        }
        return roots
    }

    func acceptedParticipants(zonePK: Int64, roots: Set<String>) throws -> Set<String> {
        var users = Set<String>()
        for (share, root) in state.shares[zonePK] ?? [:] where roots.contains(root) {
            for row in state.participants[zonePK]?[share] ?? [] where row.accepted { users.insert(row.userRecordName) }
        }
        return users
    }

    func participantsOfZone(zonePK: Int64) throws -> [String: Bool] {
        var result: [String: Bool] = [:]
        for rows in (state.participants[zonePK] ?? [:]).values {
            for row in rows { result[row.userRecordName] = (result[row.userRecordName] ?? false) || row.accepted }
        }
        return result
    }

    // MARK: Views

    func viewEpoch(zonePK: Int64, participant: String) throws -> Int64 {
        state.shareViews[zonePK]?[participant] ?? 0
    }

    func setViewEpoch(zonePK: Int64, participant: String, epoch: Int64) throws {
        try requireWritable()
        state.shareViews[zonePK, default: [:]][participant] = epoch
    }

    // MARK: Roots

    func recordLink(zonePK: Int64, name: String) throws -> RecordLink? {
        state.records[zonePK]?[name].map {
            RecordLink(parent: $0.record.parent, root: $0.root, recordType: $0.record.recordType, deleted: $0.record.deleted)
        }
    }

    func setRoot(zonePK: Int64, name: String, root: String) throws {
        try requireWritable()
        state.records[zonePK]?[name]?.root = root
    }

    func moveRecord(zonePK: Int64, name: String, root: String, seq: Int64) throws {
        try requireWritable()
        state.records[zonePK]?[name]?.root = root
        state.records[zonePK]?[name]?.record.seq = seq
    }

    func recordsUnder(zonePK: Int64, root: String) throws -> [(name: String, parent: String?)] {
        (state.records[zonePK] ?? [:]).values.filter { $0.root == root }.map { (name: $0.record.recordName, parent: $0.record.parent) }
    }

    func allLinks(zonePK: Int64) throws -> [(name: String, parent: String?, recordType: String)] {
        (state.records[zonePK] ?? [:]).values.map { (name: $0.record.recordName, parent: $0.record.parent, recordType: $0.record.recordType) }
    }

    func noteRootExit(zonePK: Int64, name: String, oldRoot: String, seq: Int64, now: Int64) throws {
        try requireWritable()
        state.rootExits[zonePK, default: [:]][MemoryRootExit.Key(name: name, oldRoot: oldRoot)] = MemoryRootExit(seq: seq, changedAt: now)
    }

    // MARK: Participants' reads

    func visibleChanges(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool, roots: Set<String>) throws
        -> [StoredRecord]
    {
        guard !roots.isEmpty else { return [] }
        let zone = state.records[zonePK] ?? [:]
        let rows = zone.values.filter { row in
            row.root.map(roots.contains) == true && row.record.seq > seq && (includeTombstones || !row.record.deleted)
        }.map(\.record).sorted { $0.seq < $1.seq }.prefix(max(limit, 0))
        guard includeTombstones else { return Array(rows) }
        // Records that moved out of the participant's roots (and are not back in one): tombstones.
        var exits: [String: Int64] = [:]
        for (key, exit) in state.rootExits[zonePK] ?? [:] where exit.seq > seq && roots.contains(key.oldRoot) {
            if zone[key.name]?.root.map(roots.contains) == true { continue }
            exits[key.name] = max(exits[key.name] ?? .min, exit.seq)
        }
        let firstExits = exits.sorted { $0.value < $1.value }.prefix(max(limit, 0)).map { (name: $0.key, seq: $0.value) }
        return StoredRecord.participantPage(Array(rows), exits: Array(firstExits), zonePK: zonePK, limit: limit)
    }

    func visibleLiveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?, roots: Set<String>) throws -> [StoredRecord] {
        guard !roots.isEmpty else { return [] }
        return (state.records[zonePK] ?? [:]).values.filter { row in
            row.root.map(roots.contains) == true && row.record.recordType == recordType && !row.record.deleted
                && row.record.modified.timestamp > (modifiedAfter ?? Int64.min)
        }.map(\.record)
    }
}
