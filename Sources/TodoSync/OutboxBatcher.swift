import CloudModel
import TodoStore

/// One `records/modify` request's worth of pending changes, all in one zone.
public struct OutboxBatch: Sendable, Hashable {
    public var zone: ZoneKey
    public var changes: [PendingChange]

    /// A batch of changes of one zone.
    public init(zone: ZoneKey, changes: [PendingChange]) {
        self.zone = zone
        self.changes = changes
    }

    /// The request: `create` for records new to the server, `replace` / `delete` with the last known change tag.
    ///
    /// It asks for no fields back (`desiredKeys: []`): the server stores the fields sent, and an acknowledgement
    /// needs only the system fields (name, change tag, created, modified), which always come back. A conflict's
    /// server record still carries every field.
    public var request: ModifyRecordsRequest {
        let operations = changes.map { change -> RecordOperation in
            switch change.action {
            case .save(let item):
                var record = item.record
                record.zoneID = zone.zoneID
                return RecordOperation(item.system.changeTag == nil ? .create : .replace, record)
            case .delete(let recordType, let tag):
                let record = Record(recordName: change.key.recordName, recordType: recordType, recordChangeTag: tag, zoneID: zone.zoneID)
                return RecordOperation(tag == nil ? .forceDelete : .delete, record)
            }
        }
        var request = ModifyRecordsRequest(operations: operations, zoneID: zone.zoneID, atomic: false)
        request.desiredKeys = []
        return request
    }
}

/// Cuts the outbox into requests: grouped by zone, in queue order, one entry per record, at most `limit` each.
public enum OutboxBatcher {
    /// Batches of at most `limit` (≤ 200) changes, one zone each, later entries of a record replacing earlier ones.
    public static func batches(_ changes: [PendingChange], limit: Int = CloudLimits.maxOperationsPerRequest) -> [OutboxBatch] {
        let limit = max(1, min(limit, CloudLimits.maxOperationsPerRequest))
        // One entry per record, in the order each was first seen, holding its latest change (one hash per change).
        var slot: [RecordKey: Int] = [:]
        slot.reserveCapacity(changes.count)
        var unique: [PendingChange] = []
        unique.reserveCapacity(changes.count)
        for change in changes {
            if let index = slot[change.key] {
                unique[index] = change
            } else {
                slot[change.key] = unique.count
                unique.append(change)
            }
        }
        // By zone, zones in order of first appearance (usually just the one).
        var zoneOrder: [ZoneKey] = []
        var byZone: [ZoneKey: [PendingChange]] = [:]
        if let first = unique.first?.key.zone, unique.allSatisfy({ $0.key.zone == first }) {
            zoneOrder = [first]
            byZone[first] = unique
        } else {
            for change in unique {
                let zone = change.key.zone
                if byZone[zone] == nil { zoneOrder.append(zone) }
                byZone[zone, default: []].append(change)
            }
        }
        var batches: [OutboxBatch] = []
        batches.reserveCapacity(unique.count / limit + zoneOrder.count)
        for zone in zoneOrder {
            let all = byZone.removeValue(forKey: zone) ?? []
            var start = 0
            while start < all.count {
                let end = min(start + limit, all.count)
                batches.append(OutboxBatch(zone: zone, changes: Array(all[start..<end])))
                start = end
            }
        }
        return batches
    }
}
