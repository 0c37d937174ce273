import CloudModel
import Foundation
import TodoPlanning
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
        // Room for a todo with notes, tags and dates at once: 320 bytes a change made the body grow (and be copied)
        // twice a request sending 10,000.
        var body = ModifyRecordsRequestWriter(reserving: 1024 * changes.count + 128)
        let zoneID = zone.zoneID
        // By index, each change read where it lies: `for change in changes` copied every change and its todo (a
        // retain and a release of each of its strings), 2 % of the device's instructions sending 10,000.
        for index in changes.indices {
            switch changes[index].action {
            case .save(let item):
                let system = RecordSystemFields(
                    recordName: changes[index].key.recordName, recordType: item.recordType, recordChangeTag: item.system.changeTag,
                    zoneID: zoneID, parent: item.parent?.recordName)
                body.operation(item.system.changeTag == nil ? .create : .replace, system) { Self.writeFields(of: item, into: &$0) }
            case .delete(let recordType, let tag):
                let system = RecordSystemFields(
                    recordName: changes[index].key.recordName, recordType: recordType, recordChangeTag: tag, zoneID: zoneID)
                body.operation(tag == nil ? .forceDelete : .delete, system)
            }
        }
        return Data(body.finish(zoneID: zoneID, atomic: false, desiredKeys: []))
    }

    /// `item.fields` as `JSONWriter.fields` writes them (keys sorted); without kept unknown fields, the known ones
    /// are written in name order directly, with no dictionary built and sorted per record (tags, notes and dates
    /// included: a todo with tags took the slow path, 9 % of the device's CPU sending 10,000).
    private static func writeFields(of item: TodoItem, into writer: inout JSONWriter) {
        guard item.extraFields.isEmpty else {
            writer.fields(item.fields)
            return
        }
        // In name order: allDay, annotations, depends, dueDate, editStamps, isCompleted, isTrashed, list, lostEdits,
        // notes, occurrence, priority, repeat, repeatFrom, scheduled, series, start, tags, title, until, wait.
        writer.sortedFields { fields in
            if item.dueDate != nil { fields.field(Keys.allDay, .int64(item.dueAllDay ? 1 : 0)) }
            if !item.annotations.isEmpty { fields.field(Keys.annotations, .list(.string, item.annotations.map { .string($0.wire) })) }
            if !item.depends.isEmpty { fields.field(Keys.depends, .list(.string, item.depends.map(FieldValue.string))) }
            if let dueDate = item.dueDate { fields.field(Keys.dueDate, .timestamp(dueDate)) }
            if let stamps = item.editStamps { fields.field(Keys.editStamps, .string(stamps)) }
            fields.field(Keys.isCompleted, .int64(item.isCompleted ? 1 : 0))
            fields.field(Keys.isTrashed, .int64(item.isTrashed ? 1 : 0))
            if let list = item.list { fields.field(Keys.list, .reference(list)) }
            if let lost = item.lostEdits { fields.field(Keys.lostEdits, .string(lost)) }
            fields.field(Keys.notes, .string(item.notes))
            if item.occurrence != 1 { fields.field(Keys.occurrence, .int64(Int64(item.occurrence))) }
            fields.field(Keys.priority, .int64(Int64(item.priority)))
            if let rule = item.repeatRule { fields.field(Keys.repeatRule, .string(rule)) }
            if item.repeatFromCompletion { fields.field(Keys.repeatFrom, .string(TodoItem.fromCompletion)) }
            if let scheduled = item.scheduled { fields.field(Keys.scheduled, .timestamp(scheduled)) }
            if let series = item.series { fields.field(Keys.series, .string(series)) }
            if let start = item.start { fields.field(Keys.start, .timestamp(start)) }
            if !item.tags.isEmpty { fields.field(Keys.tags, .list(.string, item.tags.map(FieldValue.string))) }
            fields.field(Keys.title, .string(item.title))
            if let until = item.until { fields.field(Keys.until, .timestamp(until)) }
            if let wait = item.wait { fields.field(Keys.wait, .timestamp(wait)) }
        }
    }

    /// The known fields' names, spelled as JSON once.
    private enum Keys {
        static let allDay = FieldKey(TodoItem.Field.allDay)
        static let annotations = FieldKey(TodoItem.Field.annotations)
        static let depends = FieldKey(TodoItem.Field.depends)
        static let dueDate = FieldKey(TodoItem.Field.dueDate)
        static let editStamps = FieldKey(FieldStamps.fieldName)
        static let isCompleted = FieldKey(TodoItem.Field.isCompleted)
        static let isTrashed = FieldKey(TodoItem.Field.isTrashed)
        static let list = FieldKey(TodoItem.Field.list)
        static let lostEdits = FieldKey(LostEdit.fieldName)
        static let notes = FieldKey(TodoItem.Field.notes)
        static let occurrence = FieldKey(TodoItem.Field.occurrence)
        static let priority = FieldKey(TodoItem.Field.priority)
        static let repeatRule = FieldKey(TodoItem.Field.repeat)
        static let repeatFrom = FieldKey(TodoItem.Field.repeatFrom)
        static let scheduled = FieldKey(TodoItem.Field.scheduled)
        static let series = FieldKey(TodoItem.Field.series)
        static let start = FieldKey(TodoItem.Field.start)
        static let tags = FieldKey(TodoItem.Field.tags)
        static let title = FieldKey(TodoItem.Field.title)
        static let until = FieldKey(TodoItem.Field.until)
        static let wait = FieldKey(TodoItem.Field.wait)
    }
}

extension RecordKey {
    /// Whether the record is in `zone`, compared part by part (no `ZoneKey` made).
    fileprivate func isIn(_ zone: ZoneKey) -> Bool {
        zoneName == zone.zoneName && zoneOwner == zone.zoneOwner && scope == zone.scope
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
        // By index, the zone's parts compared where they lie: `allSatisfy` copied every change whole to look at it.
        if distinctRecords, let zone = changes.first?.key.zone, changes.indices.allSatisfy({ changes[$0].key.isIn(zone) }) {
            // A chunk of one batch (the usual case) is that batch: its list shared, not copied change by change.
            if changes.count <= limit { return [OutboxBatch(zone: zone, changes: changes)] }
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
