import CloudModel
import Foundation
import TodoStore

/// A collection's sync token (RFC 6578) and CTag: the zone's row and the head of its change feed, as a URI.
struct CalDAVSyncToken: Sendable, Hashable {
    var zonePK: Int64
    var seq: Int64

    static let prefix = "http://cloudtodo.dev/ns/sync/"

    var uri: String { "\(Self.prefix)\(zonePK)-\(seq)" }

    init(zonePK: Int64, seq: Int64) {
        self.zonePK = zonePK
        self.seq = seq
    }

    /// The token a client sent back; nil when it is none of ours.
    init?(uri: String) {
        let text = uri.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: "-")
        guard parts.count == 2, let pk = Int64(parts[0]), let seq = Int64(parts[1]), seq >= 0 else { return nil }
        self.init(zonePK: pk, seq: seq)
    }
}

/// What changed in a collection after a token.
struct CalDAVChanges: Sendable {
    var changed: [TodoItem]
    /// Record names that left the collection (deleted, trashed, moved out) or may have: reported 404.
    var removed: [String]
    var token: CalDAVSyncToken
}

/// A sync token the collection can no longer answer from (another zone, or compacted past): the client starts over.
struct CalDAVTokenExpired: Error {}

extension CloudService {
    /// The collection's current token (also its CTag): the head of its zone's feed.
    func calDAVToken(_ collection: CalDAVCollection, _ tx: any StoreTransaction) async throws -> CalDAVSyncToken {
        guard let zone = collection.zone else { return CalDAVSyncToken(zonePK: 0, seq: 0) }
        return CalDAVSyncToken(zonePK: zone.pk, seq: try await tx.latestSequence(zonePK: zone.pk))
    }

    /// The changes of a collection after `token`, read from its zone's change feed; nil `token`: every member.
    /// Every record of the zone changed after the token is looked at once: an unchanged zone costs one read of its head.
    func calDAVChanges(_ collection: CalDAVCollection, after token: CalDAVSyncToken?, _ tx: any StoreTransaction) async throws -> CalDAVChanges {
        let head = try await calDAVToken(collection, tx)
        guard let token else {
            return CalDAVChanges(changed: try await calDAVMembers(collection, tx), removed: [], token: head)
        }
        guard let zone = collection.zone, token.zonePK == zone.pk, token.seq >= zone.compactedSeq, token.seq <= head.seq else {
            if collection.zone == nil, token.zonePK == 0 { return CalDAVChanges(changed: [], removed: [], token: head) }
            throw CalDAVTokenExpired()
        }
        guard token.seq < head.seq else { return CalDAVChanges(changed: [], removed: [], token: head) }
        var changed: [String: TodoItem] = [:]
        var removed = Set<String>()
        var after = token.seq
        while true {
            // A participant reads the owner's zone as a share shows it: records under the list, and tombstones of
            // those that left it; never the names of the owner's other records.
            let rows: [StoredRecord]
            if collection.database.scope == .shared, let list = collection.id.listName {
                rows = try await tx.visibleChanges(zonePK: zone.pk, after: after, limit: 1000, includeTombstones: true, roots: [list])
            } else {
                rows = try await tx.changes(zonePK: zone.pk, after: after, limit: 1000, includeTombstones: true)
            }
            for row in rows where row.seq <= head.seq {
                if row.deleted {
                    removed.insert(row.recordName)
                    changed[row.recordName] = nil
                } else if row.recordType == TodoSchema.todoType {
                    let item = TodoItem(record: try row.record(zoneID: collection.zoneID), scope: collection.database.scope)
                    if collection.holds(row), !item.isTrashed {
                        changed[row.recordName] = item
                        removed.remove(row.recordName)
                    } else {
                        // Moved to another list or trashed: gone from here (a record never here is reported too,
                        // which clients take as nothing to delete).
                        removed.insert(row.recordName)
                        changed[row.recordName] = nil
                    }
                }
            }
            guard rows.count == 1000, let last = rows.last, last.seq < head.seq else { break }
            after = last.seq
        }
        return CalDAVChanges(changed: changed.values.sorted { $0.key.recordName < $1.key.recordName }, removed: removed.sorted(), token: head)
    }
}
