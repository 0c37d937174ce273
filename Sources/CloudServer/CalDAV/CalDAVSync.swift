import CloudModel
import Foundation
import TodoStore

/// A collection's sync token (RFC 6578), also its CTag: the zone's row, the feed position of the latest change of a
/// todo in the collection (or of its list record), and how many todos it holds, as a URI.
///
/// It is the collection's own: a change to another list's todo leaves it as it was. Every change that touches the
/// collection moves it: an edit, a new or moved-in todo (a later position), a todo deleted or moved out (one fewer).
struct CalDAVSyncToken: Sendable, Hashable {
    var zonePK: Int64
    var seq: Int64
    /// The todo records (trashed ones too) in the collection; -1 in a token of the former zone-wide form.
    var count: Int64

    static let prefix = "http://cloudtodo.dev/ns/sync/"

    var uri: String { "\(Self.prefix)\(zonePK)-\(seq)-\(count)" }

    init(zonePK: Int64, seq: Int64, count: Int64) {
        self.zonePK = zonePK
        self.seq = seq
        self.count = count
    }

    /// The token a client sent back; nil when it is none of ours.
    init?(uri: String) {
        let text = uri.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let pk = Int64(parts[0]), let seq = Int64(parts[1]), seq >= 0 else { return nil }
        // A zone-wide token still names a feed position: the changes after it are found as before.
        let count = parts.count == 3 ? Int64(parts[2]) : -1
        guard let count, count >= -1 else { return nil }
        self.init(zonePK: pk, seq: seq, count: count)
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
    /// The collection's current token (also its CTag).
    func calDAVToken(_ collection: CalDAVCollection, _ heads: CalDAVHeads, _ tx: any StoreTransaction) async throws -> CalDAVSyncToken {
        guard let zone = collection.zone else { return CalDAVSyncToken(zonePK: 0, seq: 0, count: 0) }
        let head = try await heads.heads(zone, tx).collection(collection.id.listName)
        return CalDAVSyncToken(zonePK: zone.pk, seq: head.seq, count: head.count)
    }

    /// The changes of a collection after `token`, read from its zone's change feed; nil `token`: every member.
    /// An unchanged collection costs a read of its zone's head (and, when another list changed meanwhile, a read of
    /// the zone's todos on the first request after that change). A todo changed in another list after the token is
    /// reported gone too (clients drop what they do not have): the feed does not say which list a todo left.
    func calDAVChanges(
        _ collection: CalDAVCollection, after token: CalDAVSyncToken?, _ heads: CalDAVHeads, _ tx: any StoreTransaction
    ) async throws -> CalDAVChanges {
        let current = try await calDAVToken(collection, heads, tx)
        guard let token else {
            return CalDAVChanges(changed: try await calDAVMembers(collection, tx), removed: [], token: current)
        }
        guard let zone = collection.zone else {
            if token.zonePK == 0 { return CalDAVChanges(changed: [], removed: [], token: current) }
            throw CalDAVTokenExpired()
        }
        // An unchanged collection's token stays good however old it is (compaction took nothing of it).
        if token == current { return CalDAVChanges(changed: [], removed: [], token: current) }
        let zoneHead = try await heads.heads(zone, tx).zoneHead
        guard token.zonePK == zone.pk, token.seq >= zone.compactedSeq, token.seq <= zoneHead else { throw CalDAVTokenExpired() }
        if collection.database.scope != .shared, let changes = try await calDAVArrivals(collection, zone, after: token, current, tx) {
            return changes
        }
        var changed: [String: TodoItem] = [:]
        var removed = Set<String>()
        var after = token.seq
        while after < zoneHead {
            // A participant reads the owner's zone as a share shows it: records under the list, and tombstones of
            // those that left it; never the names of the owner's other records.
            let rows: [StoredRecord]
            if collection.database.scope == .shared, let list = collection.id.listName {
                rows = try await tx.visibleChanges(zonePK: zone.pk, after: after, limit: 1000, includeTombstones: true, roots: [list])
            } else {
                rows = try await tx.changes(zonePK: zone.pk, after: after, limit: 1000, includeTombstones: true)
            }
            for row in rows where row.seq <= zoneHead {
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
            guard rows.count == 1000, let last = rows.last else { break }
            after = last.seq
        }
        return CalDAVChanges(changed: changed.values.sorted { $0.key.recordName < $1.key.recordName }, removed: removed.sorted(), token: current)
    }

    /// The changes after `token` when no todo that was in the collection then has changed since (its todos of then
    /// are all still there, untouched): only arrivals, and no todo of another list is named. Nil otherwise.
    private func calDAVArrivals(
        _ collection: CalDAVCollection, _ zone: StoredZone, after token: CalDAVSyncToken, _ current: CalDAVSyncToken, _ tx: any StoreTransaction
    ) async throws -> CalDAVChanges? {
        guard token.count >= 0 else { return nil }
        let rows = try await tx.liveRecords(zonePK: zone.pk, recordType: TodoSchema.todoType, modifiedAfter: nil).filter(collection.holds)
        guard rows.count(where: { $0.seq <= token.seq }) == token.count else { return nil }
        var changed: [TodoItem] = []
        var removed: [String] = []
        for row in rows where row.seq > token.seq {
            let item = TodoItem(record: try row.record(zoneID: collection.zoneID), scope: collection.database.scope)
            if item.isTrashed { removed.append(row.recordName) } else { changed.append(item) }
        }
        return CalDAVChanges(changed: changed.sorted { $0.key.recordName < $1.key.recordName }, removed: removed.sorted(), token: current)
    }
}
