import CloudModel
import Foundation
import Synchronization
import TodoStore

/// Where each collection of a zone stands: per list (nil: todos in no list), the feed position of its latest todo
/// or list-record change and how many todos it holds; and the zone's head they were read at.
struct CalDAVZoneHeads: Sendable {
    struct Head: Sendable, Hashable {
        var seq: Int64 = 0
        var count: Int64 = 0
    }

    var zoneHead: Int64
    var lists: [String?: Head]

    /// The head of the collection of `list` (nil: the default collection).
    func collection(_ list: String?) -> Head { lists[list] ?? Head() }
}

/// Per-collection heads of the zones CalDAV clients sync, kept while their zone's head stays where it was.
///
/// Working them out is a count by the store (per list: how many todos, the latest change) and a read of the zone's list
/// records; a client polling an unchanged collection then costs one read of the zone's head. The values are a function
/// of the stored records alone, so every instance of a fleet gives the same tokens.
final class CalDAVHeads: Sendable {
    private let zones = Mutex<[Int64: CalDAVZoneHeads]>([:])
    /// Zones kept at most; past it all are dropped (each costs one read to learn again).
    private let capacity: Int

    init(capacity: Int = 1000) { self.capacity = capacity }

    /// The heads of `zone` as the transaction sees it.
    func heads(_ zone: StoredZone, _ tx: any StoreTransaction) async throws -> CalDAVZoneHeads {
        let zoneHead = try await tx.latestSequence(zonePK: zone.pk)
        if let known = zones.withLock({ $0[zone.pk] }), known.zoneHead == zoneHead { return known }
        var lists: [String?: CalDAVZoneHeads.Head] = [:]
        for head in try await tx.liveRecordHeads(zonePK: zone.pk, recordType: TodoSchema.todoType) {
            lists[head.parent] = .init(seq: head.seq, count: head.count)
        }
        // A list's own record counts too: a new empty list's changes are read from its making, a rename shows.
        for row in try await tx.liveRecords(zonePK: zone.pk, recordType: TodoSchema.listType, modifiedAfter: nil) {
            lists[row.recordName, default: .init()].seq = max(lists[row.recordName]?.seq ?? 0, row.seq)
        }
        let read = CalDAVZoneHeads(zoneHead: zoneHead, lists: lists)
        zones.withLock {
            if $0.count >= capacity { $0.removeAll() }
            $0[zone.pk] = read
        }
        return read
    }
}
