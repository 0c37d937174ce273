import CloudModel
import Foundation
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

    /// `request` as the JSON body the cloud gets, written straight from the outbox rows: no `Record`s, field
    /// dictionaries or sorting on the way (the same request, field for field, as `CloudClient` writes for `request`).
    public var requestBody: Data {
        var zoneWriter = JSONWriter(reserving: 64)
        zoneWriter.zoneID(zone.zoneID)
        let zoneJSON = zoneWriter.bytes
        var writer = JSONWriter(reserving: 320 * changes.count + 2 * zoneJSON.count + 64)
        writer.raw("{\"operations\":[")
        for (index, change) in changes.enumerated() {
            writer.separator(index)
            writer.raw("{\"operationType\":")
            switch change.action {
            case .save(let item):
                writer.raw(item.system.changeTag == nil ? "\"create\"" : "\"replace\"")
                writer.raw(",\"record\":{\"recordName\":")
                writer.string(change.key.recordName)
                writer.raw(",\"recordType\":")
                writer.string(item.recordType)
                if let tag = item.system.changeTag {
                    writer.raw(",\"recordChangeTag\":")
                    writer.string(tag)
                }
                writer.raw(",\"fields\":")
                Self.writeFields(of: item, into: &writer)
                writer.raw(",\"zoneID\":")
                writer.raw(zoneJSON)
                if let parent = item.parent {
                    writer.raw(",\"parent\":{\"recordName\":")
                    writer.string(parent.recordName)
                    writer.raw("}")
                }
            case .delete(let recordType, let tag):
                writer.raw(tag == nil ? "\"forceDelete\"" : "\"delete\"")
                writer.raw(",\"record\":{\"recordName\":")
                writer.string(change.key.recordName)
                writer.raw(",\"recordType\":")
                writer.string(recordType)
                if let tag {
                    writer.raw(",\"recordChangeTag\":")
                    writer.string(tag)
                }
                writer.raw(",\"zoneID\":")
                writer.raw(zoneJSON)
            }
            writer.raw("}}")
        }
        writer.raw("],\"zoneID\":")
        writer.raw(zoneJSON)
        writer.raw(",\"atomic\":false,\"desiredKeys\":[]}")
        return Data(writer.bytes)
    }

    /// `item.fields` as `JSONWriter.fields` writes them (keys sorted); without kept unknown fields, the known ones
    /// are written in name order directly.
    private static func writeFields(of item: TodoItem, into writer: inout JSONWriter) {
        guard item.extraFields.isEmpty, item.tags.isEmpty, item.annotations.isEmpty, item.repeatRule == nil, item.series == nil,
            item.occurrence == 1
        else {
            writer.fields(item.fields)
            return
        }
        // In name order: allDay, dueDate, editStamps, isCompleted, isTrashed, list, lostEdits, notes, priority, title.
        writer.raw("{")
        if let dueDate = item.dueDate {
            writer.raw("\"allDay\":")
            writer.field(.int64(item.dueAllDay ? 1 : 0))
            writer.raw(",\"dueDate\":")
            writer.field(.timestamp(dueDate))
            writer.raw(",")
        }
        if let stamps = item.editStamps {
            writer.raw("\"editStamps\":")
            writer.field(.string(stamps))
            writer.raw(",")
        }
        writer.raw("\"isCompleted\":")
        writer.field(.int64(item.isCompleted ? 1 : 0))
        writer.raw(",\"isTrashed\":")
        writer.field(.int64(item.isTrashed ? 1 : 0))
        if let list = item.list {
            writer.raw(",\"list\":")
            writer.field(.reference(list))
        }
        if let lost = item.lostEdits {
            writer.raw(",\"lostEdits\":")
            writer.field(.string(lost))
        }
        writer.raw(",\"notes\":")
        writer.field(.string(item.notes))
        writer.raw(",\"priority\":")
        writer.field(.int64(Int64(item.priority)))
        writer.raw(",\"title\":")
        writer.field(.string(item.title))
        writer.raw("}")
    }
}

/// Cuts the outbox into requests: grouped by zone, in queue order, one entry per record, at most `limit` each.
public enum OutboxBatcher {
    /// Batches of at most `limit` (≤ 200) changes, one zone each, later entries of a record replacing earlier ones.
    ///
    /// `distinctRecords` says the caller knows each record is named once (rows read from the outbox, which holds
    /// one entry per record): the changes are then cut as they are, without looking for repeats.
    public static func batches(
        _ changes: [PendingChange], limit: Int = CloudLimits.maxOperationsPerRequest, distinctRecords: Bool = false
    ) -> [OutboxBatch] {
        let limit = max(1, min(limit, CloudLimits.maxOperationsPerRequest))
        if distinctRecords, let zone = changes.first?.key.zone, changes.allSatisfy({ $0.key.zone == zone }) {
            return stride(from: 0, to: changes.count, by: limit).map { start in
                OutboxBatch(zone: zone, changes: Array(changes[start..<min(start + limit, changes.count)]))
            }
        }
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
