import CloudModel
import Foundation

/// What a participant sees of one owner zone: the roots of the shares they accepted there.
struct SharedView: Sendable {
    var zone: StoredZone
    var participant: String
    /// Accepted roots and the participant's permission on each.
    var roots: [String: ShareParticipantPermission]
    /// Tokens of this participant for this zone issued before this position expired.
    var epoch: Int64

    var rootNames: Set<String> { Set(roots.keys) }
}

/// Pushes a committed sharing-related write owes: databases (owner private, participants' shared) and zones; and the
/// owner zones whose shares (or shared records) it changed, for instances that cache which zones have shares.
struct ShareEffects: Sendable {
    var pushes: [DatabaseKey: Set<String>] = [:]
    var ownerZones: Set<Int64> = []

    mutating func push(_ database: DatabaseKey, zone: String) { pushes[database, default: []].insert(zone) }
}

/// How the database feed names a shared zone: `owner/zoneName` in the participant's `shared` rows of
/// `zone_changes` (neither part may contain a slash), so two owners' zones of one name stay apart.
enum SharedZoneName {
    static func encode(_ zoneID: ZoneID) -> String { "\(zoneID.ownerRecordName ?? "")/\(zoneID.zoneName)" }

    static func decode(_ name: String) -> ZoneID {
        guard let slash = name.firstIndex(of: "/") else { return ZoneID(zoneName: name) }
        return ZoneID(zoneName: String(name[name.index(after: slash)...]), ownerRecordName: String(name[..<slash]))
    }
}

/// What `records/modify` knows about a zone's sharing, asked once per zone and request.
enum ZoneShareState {
    /// No share in the zone: writes skip everything below.
    case unshared
    /// The owner writes a zone that has shares: roots are maintained, share rules apply.
    case owned
    /// A participant writes through the shared database.
    case participant(SharedView)
}

/// The sharing side of one `records/modify` batch: per-zone state, the roots it touched, what it owes.
struct ShareBatch {
    let database: DatabaseKey
    let user: String
    let stamp: RecordStamp
    var states: [Int64: ZoneShareState] = [:]
    /// Zones touched, with the roots whose participants must hear of it.
    var touched: [Int64: (zone: StoredZone, roots: Set<String>)] = [:]
    var effects = ShareEffects()

    init(database: DatabaseKey, stamp: RecordStamp) {
        self.database = database
        self.user = stamp.userRecordName
        self.stamp = stamp
    }

    mutating func touch(_ zone: StoredZone, _ roots: String?...) {
        var entry = touched[zone.pk] ?? (zone, [])
        for root in roots { if let root { entry.roots.insert(root) } }
        touched[zone.pk] = entry
    }
}

extension CloudService {
    // MARK: The shared database's zones

    /// The owner zone a participant names in the shared database, if they accepted a share in it.
    func resolveSharedZone(_ tx: any StoreTransaction, _ database: DatabaseKey, _ zoneID: ZoneID) async throws -> StoredZone {
        let notShared = ServerError(.zoneNotFound, "zone '\(zoneID.zoneName)' is not shared with you")
        guard !zoneID.isDefault, let owner = zoneID.ownerRecordName, owner != database.owner else { throw notShared }
        let ownerDatabase = DatabaseKey(container: database.container, scope: .private, owner: owner)
        guard let zone = try await tx.zone(ownerDatabase, name: zoneID.zoneName),
            !(try await tx.acceptedRoots(zonePK: zone.pk, participant: database.owner).isEmpty)
        else { throw notShared }
        return zone
    }

    /// A participant's view of an owner zone.
    func sharedView(_ tx: any StoreTransaction, _ zone: StoredZone, participant: String) async throws -> SharedView {
        SharedView(
            zone: zone, participant: participant, roots: try await tx.acceptedRoots(zonePK: zone.pk, participant: participant),
            epoch: try await tx.viewEpoch(zonePK: zone.pk, participant: participant))
    }

    /// The participant's view when `database` is the shared database, nil otherwise.
    func viewIfShared(_ tx: any StoreTransaction, _ database: DatabaseKey, _ zone: StoredZone?) async throws -> SharedView? {
        guard database.scope == .shared, let zone else { return nil }
        return try await sharedView(tx, zone, participant: database.owner)
    }

    /// Whether a participant may see a record: its root is one of theirs, or its zone is shared whole with them.
    func isVisible(_ tx: any StoreTransaction, _ view: SharedView, recordName: String) async throws -> Bool {
        if view.wholeZone != nil { return try await tx.recordLink(zonePK: view.zone.pk, name: recordName) != nil }
        guard let root = try await tx.recordLink(zonePK: view.zone.pk, name: recordName)?.root else { return false }
        return view.roots[root] != nil
    }

    /// Whether a record may be seen through `view`: always without one (the owner's own database).
    func isVisible(_ tx: any StoreTransaction, _ view: SharedView?, recordName: String) async throws -> Bool {
        guard let view else { return true }
        return try await isVisible(tx, view, recordName: recordName)
    }

    /// `zones/list` on the shared database: owner zones the caller accepted a share in.
    func listSharedZones(_ database: DatabaseKey) async throws -> ServiceResponse {
        let zones = try await store.read { tx -> [ZoneResult] in
            try await tx.sharedZones(container: database.container, participant: database.owner).asyncMap { zone in
                .zone(try await self.sharedZoneJSON(tx, try await self.sharedView(tx, zone, participant: database.owner)))
            }
        }
        return try .encode(ZonesResponse(zones: zones))
    }

    /// A shared zone as `zones/list` and `zones/lookup` answer it, with the participant's current token.
    func sharedZoneJSON(_ tx: any StoreTransaction, _ view: SharedView) async throws -> Zone {
        Zone(zoneID: view.zone.zoneID, syncToken: try await sharedToken(tx, view, after: 0), atomic: true)
    }

    /// One page of a zone's feed as a participant sees it; a token of an older view expires.
    func sharedZonePage(
        _ tx: any StoreTransaction, _ view: SharedView, _ query: ZoneChangesQuery, limit: Int, byteLimit: Int = CloudLimits.maxResponseBytes
    ) async throws -> ZonePage {
        let zone = view.zone
        var after: Int64 = 0
        var floor: Int64
        if let token = query.syncToken {
            let parsed = try FeedToken.parseSharedZone(token)
            guard parsed.pk == zone.pk, parsed.position.isValid(horizon: zone.compactedSeq), parsed.epoch == view.epoch else {
                throw ServerError(
                    .changeTokenExpired,
                    "the change token of shared zone '\(zone.name)' expired (what is shared with you changed); fetch it again from scratch")
            }
            after = parsed.position.seq
            floor = parsed.position.floor
        } else {
            floor = try await tx.latestSequence(zonePK: zone.pk)
        }
        // From scratch there is nothing to delete on the device: tombstones are left out.
        var rows =
            if let roots = view.narrowingRoots {
                try await tx.visibleChanges(zonePK: zone.pk, after: after, limit: limit + 1, includeTombstones: query.syncToken != nil, roots: roots)
            } else {
                try await tx.changes(zonePK: zone.pk, after: after, limit: limit + 1, includeTombstones: query.syncToken != nil)
            }
        let cut = Self.keepFitting(&rows, byteLimit: byteLimit)
        let moreComing = cut || rows.count > limit
        if rows.count > limit { rows.removeLast(rows.count - limit) }
        let token = moreComing
            ? FeedToken.sharedZone(pk: zone.pk, epoch: view.epoch, FeedPosition(seq: rows[rows.count - 1].seq, floor: floor))
            : try await sharedToken(tx, view, after: after)
        return ZonePage(zoneID: zone.zoneID, records: rows, token: token, moreComing: moreComing)
    }

    /// The token of a participant's view positioned at the zone's newest change.
    func sharedToken(_ tx: any StoreTransaction, _ view: SharedView, after: Int64) async throws -> ChangeToken {
        FeedToken.sharedZone(pk: view.zone.pk, epoch: view.epoch, FeedPosition(seq: max(after, try await tx.latestSequence(zonePK: view.zone.pk))))
    }

    // MARK: Feeds and pushes

    /// Notes a change of an owner zone in the owner's private database feed.
    func noteOwnerZone(_ tx: any StoreTransaction, _ zone: StoredZone, now: Int64, _ effects: inout ShareEffects) async throws {
        try await tx.noteZoneChange(zone.database, zoneName: zone.name, kind: .changed, seq: try await tx.nextSequence(.database(zone.database)), now: now)
        effects.push(zone.database, zone: zone.name)
        effects.ownerZones.insert(zone.pk)
    }

    /// The shared database of a participant.
    func sharedDatabase(of participant: String, _ zone: StoredZone) -> DatabaseKey {
        DatabaseKey(container: zone.database.container, scope: .shared, owner: participant)
    }

    /// Notes a change (or the end) of an owner zone in a participant's shared database feed.
    func noteParticipantZone(
        _ tx: any StoreTransaction, _ zone: StoredZone, _ participant: String, kind: ZoneChangeKind, now: Int64,
        _ effects: inout ShareEffects
    ) async throws {
        let database = sharedDatabase(of: participant, zone)
        try await tx.noteZoneChange(database, zoneName: SharedZoneName.encode(zone.zoneID), kind: kind, seq: try await tx.nextSequence(.database(database)), now: now)
        effects.push(database, zone: zone.name)
    }

    /// A participant's set of roots in a zone changed: their older tokens expire, and the zone is
    /// reported changed, or deleted when no accepted share is left.
    func participantViewChanged(
        _ tx: any StoreTransaction, _ zone: StoredZone, _ participant: String, now: Int64, _ effects: inout ShareEffects
    ) async throws {
        try await tx.setViewEpoch(zonePK: zone.pk, participant: participant, epoch: try await tx.nextSequence(.zone(pk: zone.pk)))
        let remaining = try await tx.acceptedRoots(zonePK: zone.pk, participant: participant)
        try await noteParticipantZone(tx, zone, participant, kind: remaining.isEmpty ? .deleted : .changed, now: now, &effects)
    }

    // MARK: Roots

    /// The root of a record hanging from `parent`: the top of the parent chain (at most 16 steps up),
    /// or the first name in it that no record has yet.
    func computeRoot(_ tx: any StoreTransaction, zonePK: Int64, name: String, parent: String?) async throws -> String {
        guard var next = parent else { return name }
        var current = name
        var seen: Set<String> = [name]
        for _ in 0..<ShareSchema.maxHierarchyDepth {
            guard seen.insert(next).inserted else { return current }  // a cycle: stop where it closes
            current = next
            guard let up = try await tx.recordLink(zonePK: zonePK, name: next)?.parent else { return current }
            next = up
        }
        return current
    }

    /// Fills in the root of every record of a zone (when it gets its first share).
    func computeAllRoots(_ tx: any StoreTransaction, zonePK: Int64) async throws {
        let links = try await tx.allLinks(zonePK: zonePK)
        var parents: [String: String?] = [:]
        parents.reserveCapacity(links.count)
        for link in links { parents[link.name] = link.parent }
        for link in links {
            var current = link.name
            var next = link.parent
            var seen: Set<String> = [link.name]
            var steps = 0
            while let up = next, steps < ShareSchema.maxHierarchyDepth, seen.insert(up).inserted {
                current = up
                next = parents[up] ?? nil
                steps += 1
            }
            try await tx.setRoot(zonePK: zonePK, name: link.name, root: current)
        }
    }

    /// Re-roots the records below `name` after it moved from `formerRoot` to `newRoot`: they get the new
    /// root and a new feed position (so participants of the new root fetch them), and participants of
    /// the old one a tombstone.
    private func moveDescendants(
        _ tx: any StoreTransaction, _ zone: StoredZone, of name: String, from formerRoot: String, to newRoot: String,
        formerIsShared: Bool, now: Int64
    ) async throws -> Bool {
        let candidates = try await tx.recordsUnder(zonePK: zone.pk, root: formerRoot)
        guard candidates.count > 1 || candidates.first?.name != name else { return false }
        var parents: [String: String] = [:]
        for candidate in candidates { if let parent = candidate.parent { parents[candidate.name] = parent } }
        var moved = false
        for candidate in candidates where candidate.name != name {
            var cursor = candidate.parent
            var steps = 0
            while let step = cursor, step != name, steps < ShareSchema.maxHierarchyDepth {
                cursor = parents[step]
                steps += 1
            }
            guard cursor == name else { continue }
            let seq = try await tx.nextSequence(.zone(pk: zone.pk))
            try await tx.moveRecord(zonePK: zone.pk, name: candidate.name, root: newRoot, seq: seq)
            if formerIsShared { try await tx.noteRootExit(zonePK: zone.pk, name: candidate.name, oldRoot: formerRoot, seq: seq, now: now) }
            moved = true
        }
        return moved
    }

    // MARK: records/modify hooks

    /// Runs one `records/modify` operation with the sharing rules around it: `apply` does the write.
    /// Zones without shares cost one cached lookup per batch.
    func applySharing(
        _ operation: RecordOperation, in zone: StoredZone, batch: inout ShareBatch, tx: any StoreTransaction,
        apply: () async throws -> ItemOutcome
    ) async throws -> ItemOutcome {
        let state = try await shareState(zone, batch: &batch, tx: tx)
        let incoming = operation.record
        if case .unshared = state {
            if incoming.recordType == ShareSchema.recordType { throw Self.useSharesModify }
            return try await apply()
        }
        let name = incoming.recordName
        let found = try await tx.recordLink(zonePK: zone.pk, name: name)
        let live = found.flatMap { $0.deleted ? nil : $0 }
        var oldRoot = live?.root
        if oldRoot == nil, let live { oldRoot = try await computeRoot(tx, zonePK: zone.pk, name: name, parent: live.parent) }
        let type = operation.operationType
        let newParent = incoming.parent?.recordName ?? (type == .update || type == .forceUpdate ? live?.parent : nil)

        switch state {
        case .unshared:
            break
        case .owned:
            if live?.recordType == ShareSchema.recordType || incoming.recordType == ShareSchema.recordType {
                if type.isDelete, live?.recordType == ShareSchema.recordType,
                    let outcome = try await deleteShareRecord(tx, zone, name: name, batch: &batch)
                {
                    return outcome
                }
                throw Self.useSharesModify
            }
            if !type.isDelete, newParent != nil, let live, live.parent == nil, let share = try await tx.share(zonePK: zone.pk, root: name) {
                throw ServerError(
                    .badRequest, "'\(name)' is the root of share '\(share.recordName)': revoke the share before giving it a parent")
            }
        case .participant(let view):
            try await checkParticipantWrite(tx, operation, live: live, oldRoot: oldRoot, newParent: newParent, view: view)
        }

        let outcome = try await apply()
        switch outcome {
        case .saved(let record, _, _):
            let newRoot = try await computeRoot(tx, zonePK: zone.pk, name: name, parent: record.parent)
            try await tx.setRoot(zonePK: zone.pk, name: name, root: newRoot)
            batch.touch(zone, newRoot, oldRoot)
            if let oldRoot, oldRoot != newRoot, try await tx.share(zonePK: zone.pk, root: oldRoot) != nil {
                try await tx.noteRootExit(zonePK: zone.pk, name: name, oldRoot: oldRoot, seq: record.seq, now: batch.stamp.timestamp)
            }
            // Records below it hang from its old root (or, if it is new, from its name).
            let formerRoot = live == nil ? name : oldRoot
            if let formerRoot, formerRoot != newRoot {
                let formerIsShared = try await tx.share(zonePK: zone.pk, root: formerRoot) != nil
                if try await moveDescendants(
                    tx, zone, of: name, from: formerRoot, to: newRoot, formerIsShared: formerIsShared, now: batch.stamp.timestamp)
                {
                    batch.touch(zone, formerRoot)
                }
            }
        case .deleted:
            guard let oldRoot else { break }
            // The tombstone stays under its root, so the root's participants hear of the delete.
            try await tx.setRoot(zonePK: zone.pk, name: name, root: oldRoot)
            batch.touch(zone, oldRoot)
            if let share = try await tx.share(zonePK: zone.pk, root: name) {
                try await revokeShare(tx, zone, share, stamp: batch.stamp, &batch.effects)
            }
        case .failed:
            break
        }
        return outcome
    }

    /// What a batch knows of a zone's sharing, asked of the store once per zone and batch.
    func shareState(_ zone: StoredZone, batch: inout ShareBatch, tx: any StoreTransaction) async throws -> ZoneShareState {
        if let known = batch.states[zone.pk] { return known }
        let state: ZoneShareState
        switch batch.database.scope {
        case .shared: state = .participant(try await sharedView(tx, zone, participant: batch.user))
        case .private: state = try await tx.zoneHasShares(zonePK: zone.pk) ? .owned : .unshared
        case .public: state = .unshared
        }
        batch.states[zone.pk] = state
        return state
    }

    static var useSharesModify: ServerError {
        ServerError(.badRequest, "share records are written by the cloud: use shares/modify")
    }

    /// The participant rules: nothing outside their roots exists; read-only shares refuse every write;
    /// the root and the share record are the owner's; records stay inside the shared hierarchy.
    private func checkParticipantWrite(
        _ tx: any StoreTransaction, _ operation: RecordOperation, live: RecordLink?, oldRoot: String?, newParent: String?,
        view: SharedView
    ) async throws {
        let name = operation.record.recordName
        let type = operation.operationType
        let readOnly = ServerError(.accessDenied, "shared with you read-only: only the owner can change '\(name)'")
        if let permission = view.wholeZone { return try checkWholeZoneWrite(operation, live: live, permission: permission) }
        // Only read-only shares in this zone: every write is refused, whatever it names.
        if view.roots.values.allSatisfy({ $0 == .readOnly }) { throw readOnly }
        if let live {
            guard let oldRoot, let permission = view.roots[oldRoot] else {
                throw ServerError(.notFound, "record '\(name)' not found")
            }
            guard permission == .readWrite else { throw readOnly }
            if live.recordType == ShareSchema.recordType || name == oldRoot {
                throw ServerError(.accessDenied, "only the owner can change or delete '\(name)' (the shared list or its share)")
            }
        }
        if operation.record.recordType == ShareSchema.recordType { throw Self.useSharesModify }
        if type.isDelete { return }
        if live == nil, type == .update || type == .replace {
            throw ServerError(.notFound, "record '\(name)' not found")
        }
        guard let newParent else {
            throw ServerError(
                .accessDenied,
                live == nil
                    ? "a record you add to a shared list needs a parent inside it"
                    : "'\(name)' cannot be moved out of the list shared with you")
        }
        let newRoot = try await computeRoot(tx, zonePK: view.zone.pk, name: name, parent: newParent)
        guard let permission = view.roots[newRoot] else {
            throw ServerError(.accessDenied, "the parent '\(newParent)' is not in a list shared with you")
        }
        guard permission == .readWrite else { throw readOnly }
    }

    /// Notes a committed batch's changes in the feeds of the owner (for participants' writes) and of
    /// every participant of a touched root; answers the pushes owed.
    func finishSharing(_ batch: ShareBatch, tx: any StoreTransaction) async throws -> ShareEffects {
        var effects = batch.effects
        let now = batch.stamp.timestamp
        for (pk, entry) in batch.touched {
            if batch.database.scope == .shared { try await noteOwnerZone(tx, entry.zone, now: now, &effects) }
            // Participants of the zone's zone-wide share hear of every write in it.
            for participant in try await tx.acceptedParticipants(zonePK: pk, roots: entry.roots.union([ZoneShare.name])) {
                try await noteParticipantZone(tx, entry.zone, participant, kind: .changed, now: now, &effects)
            }
        }
        return effects
    }
}
