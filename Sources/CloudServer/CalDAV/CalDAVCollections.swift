import CloudModel
import Foundation
import TodoStore

/// Which calendar collection a path segment names: the todos in no list, one of the account's lists, or a list
/// another account shares with it.
enum CalDAVCollectionID: Hashable, Sendable {
    case inbox
    case own(list: String)
    case shared(owner: String, list: String)

    /// The segment of the default collection.
    static let inboxSegment = "todos"

    /// The path segment (decoded).
    var segment: String {
        switch self {
        case .inbox: Self.inboxSegment
        case .own(let list): list
        case .shared(let owner, let list): "shared~\(owner)~\(list)"
        }
    }

    /// The collection a decoded segment names.
    init(segment: String) {
        if segment == Self.inboxSegment {
            self = .inbox
        } else if segment.hasPrefix("shared~"), let tilde = segment.dropFirst(7).firstIndex(of: "~") {
            self = .shared(owner: String(segment[segment.index(segment.startIndex, offsetBy: 7)..<tilde]), list: String(segment[segment.index(after: tilde)...]))
        } else {
            self = .own(list: segment)
        }
    }

    /// The list record's name, nil for the default collection.
    var listName: String? {
        switch self {
        case .inbox: nil
        case .own(let list), .shared(_, let list): list
        }
    }
}

/// One calendar collection as the account sees it.
struct CalDAVCollection: Sendable {
    var id: CalDAVCollectionID
    var title: String
    /// `#RRGGBB`: the list's `color` field, else one derived from its name.
    var color: String
    /// Apple's `calendar-order`, where a client set one.
    var order: Int64?
    var readOnly: Bool
    /// The zone holding its todos; nil when the account has never synced (no `Todos` zone yet).
    var zone: StoredZone?
    /// The list record (nil for the default collection).
    var list: TodoItem?
    /// Where its writes go: the caller's private database, or their shared database for another owner's list.
    var database: DatabaseKey
    var zoneID: ZoneID

    /// Whether a todo record belongs here.
    func holds(_ record: StoredRecord) -> Bool {
        record.recordType == TodoSchema.todoType && record.parent == id.listName
    }
}

/// The caller as CalDAV sees them: account name, user, the caller (with the app password's device) and container.
struct CalDAVAccount: Sendable {
    var account: String
    var user: String
    var caller: Caller
    var container: String

    var privateDatabase: DatabaseKey { DatabaseKey(container: container, scope: .private, owner: user) }
    var sharedDatabase: DatabaseKey { DatabaseKey(container: container, scope: .shared, owner: user) }
}

extension CloudService {
    /// The record field a list's colour is kept in (set through `calendar-color`).
    static let listColorField = "color"
    /// The record field a list's place among the collections is kept in (set through Apple's `calendar-order`).
    static let listOrderField = "calendarOrder"

    /// Every collection the account can see: the default one, its lists, and lists shared with it that it accepted.
    func calDAVCollections(_ account: CalDAVAccount, _ tx: any StoreTransaction) async throws -> [CalDAVCollection] {
        let zone = try await tx.zone(account.privateDatabase, name: TodoSchema.zoneName)
        let own = ZoneID(zoneName: TodoSchema.zoneName, ownerRecordName: account.user)
        var collections = [
            CalDAVCollection(
                id: .inbox, title: "Todos", color: "#4A90D9", order: nil, readOnly: false, zone: zone, list: nil, database: account.privateDatabase,
                zoneID: own)
        ]
        if let zone {
            let lists = try await tx.liveRecords(zonePK: zone.pk, recordType: TodoSchema.listType, modifiedAfter: nil)
            for row in lists where row.parent == nil {
                let item = TodoItem(record: try row.record(zoneID: own), scope: .private)
                guard !item.isTrashed else { continue }
                collections.append(Self.collection(.own(list: row.recordName), item, readOnly: false, zone: zone, account.privateDatabase, own))
            }
        }
        for shared in try await tx.sharedZones(container: account.container, participant: account.user) {
            let roots = try await tx.acceptedRoots(zonePK: shared.pk, participant: account.user)
            let zoneID = shared.zoneID
            for (name, row) in try await tx.records(zonePK: shared.pk, names: roots.keys.sorted()) where !row.deleted && row.recordType == TodoSchema.listType {
                let item = TodoItem(record: try row.record(zoneID: zoneID), scope: .shared)
                guard !item.isTrashed else { continue }
                collections.append(
                    Self.collection(
                        .shared(owner: shared.database.owner, list: name), item, readOnly: roots[name] != .readWrite, zone: shared,
                        account.sharedDatabase, zoneID))
            }
        }
        return collections
    }

    private static func collection(
        _ id: CalDAVCollectionID, _ list: TodoItem, readOnly: Bool, zone: StoredZone, _ database: DatabaseKey, _ zoneID: ZoneID
    ) -> CalDAVCollection {
        var color = listColor(list.key.recordName)
        if case .string(let stored)? = list.extraFields[listColorField], let known = CalDAVColor.normalized(stored) { color = known }
        var order: Int64?
        if case .int64(let stored)? = list.extraFields[listOrderField] { order = stored }
        return CalDAVCollection(
            id: id, title: list.title.isEmpty ? "List" : list.title, color: color, order: order, readOnly: readOnly, zone: zone, list: list, database: database,
            zoneID: zoneID)
    }

    /// A stable colour for a list without one.
    static func listColor(_ name: String) -> String {
        let palette = ["#D94A4A", "#D9904A", "#C9B037", "#5AAE4F", "#3FA7A0", "#4A7FD9", "#8A5AD9", "#C94AA8"]
        let sum = name.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }
        return palette[sum % palette.count]
    }

    /// The collection a segment names, if the account can see it.
    func calDAVCollection(_ account: CalDAVAccount, _ id: CalDAVCollectionID, _ tx: any StoreTransaction) async throws -> CalDAVCollection? {
        try await calDAVCollections(account, tx).first { $0.id == id }
    }

    /// The live, untrashed todos of a collection.
    func calDAVMembers(_ collection: CalDAVCollection, _ tx: any StoreTransaction) async throws -> [TodoItem] {
        guard let zone = collection.zone else { return [] }
        let rows = try await tx.liveRecords(zonePK: zone.pk, recordType: TodoSchema.todoType, modifiedAfter: nil)
        var items: [TodoItem] = []
        items.reserveCapacity(rows.count)
        for row in rows where collection.holds(row) {
            let item = TodoItem(record: try row.record(zoneID: collection.zoneID), scope: collection.database.scope)
            if !item.isTrashed { items.append(item) }
        }
        return items
    }

    /// One todo of a collection by record name; nil when it is not there (or trashed).
    func calDAVMember(_ collection: CalDAVCollection, name: String, _ tx: any StoreTransaction) async throws -> TodoItem? {
        guard let zone = collection.zone, let row = try await tx.record(zonePK: zone.pk, name: name), !row.deleted, collection.holds(row) else {
            return nil
        }
        let item = TodoItem(record: try row.record(zoneID: collection.zoneID), scope: collection.database.scope)
        return item.isTrashed ? nil : item
    }
}
