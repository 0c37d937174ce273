import CloudModel
import Foundation
import SQLiteDB

/// Keys of the `sync_state` table.
enum SyncStateKey {
    static let createdCustomZone = "createdCustomZone"
    static let subscribedToPrivateChanges = "subscribedToPrivateChanges"
    static let subscribedToSharedChanges = "subscribedToSharedChanges"
    static let lastPublicPoll = "lastPublicPoll"
    static let lastKnownUser = "lastKnownUser"
    static let lastSyncAt = "lastSyncAt"
    static let lastTrashPurge = "lastTrashPurge"
    static func databaseToken(_ scope: DatabaseScope) -> String { "databaseToken.\(scope.rawValue)" }
}

/// The sync bookkeeping the device keeps beside its records.
public struct SyncState: Sendable, Hashable {
    /// The database change token per scope.
    public var databaseTokens: [DatabaseScope: ChangeToken]
    /// Zone change tokens.
    public var zoneTokens: [ZoneKey: ChangeToken]
    public var createdCustomZone: Bool
    public var subscribedToPrivateChanges: Bool
    public var subscribedToSharedChanges: Bool
    /// The modification time (ms) up to which the public board was polled.
    public var lastPublicPoll: Int64?
    /// The user record name the cache belongs to.
    public var lastKnownUser: String?
    /// When the last complete sync finished (ms).
    public var lastSyncAt: Int64?

    /// An empty state: nothing fetched, nothing created.
    public init() {
        databaseTokens = [:]
        zoneTokens = [:]
        createdCustomZone = false
        subscribedToPrivateChanges = false
        subscribedToSharedChanges = false
    }
}

/// A flag of the launch sequence the cache remembers.
public enum SyncFlag: String, Sendable, Hashable, CaseIterable {
    case createdCustomZone
    case subscribedToPrivateChanges
    case subscribedToSharedChanges
}

extension TodoStore {
    static func setState(_ key: String, _ value: String?, db: SQLiteDatabase) throws {
        if let value {
            try db.run(
                "INSERT INTO sync_state (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(value)])
        } else {
            try db.run("DELETE FROM sync_state WHERE key = ?1", [.text(key)])
        }
    }

    static func storeZoneToken(_ token: ChangeToken, for zone: ZoneKey, db: SQLiteDatabase) throws {
        try db.run(
            """
            INSERT INTO zone_tokens (scope, zone_owner, zone_name, token) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (scope, zone_owner, zone_name) DO UPDATE SET token = excluded.token
            """, zoneArguments(zone) + [.text(token.rawValue)])
    }

    /// Of what the sync engine remembers, what it shows before any pass: the last user and the last sync. A command
    /// that only reads the cache needs no more; reading the whole state made its first tables of tokens, 6 % of the
    /// instructions of `todo list +home` over 1,000 todos.
    public func lastUserAndSync() throws -> (user: String?, syncedAt: Int64?) {
        try read { db in
            var found: (user: String?, syncedAt: Int64?) = (nil, nil)
            let keys: [SQLValue] = [.text(SyncStateKey.lastKnownUser), .text(SyncStateKey.lastSyncAt)]
            _ = try db.query("SELECT key, value FROM sync_state WHERE key IN (?1, ?2)", keys) { row in
                if row.text(0) == SyncStateKey.lastKnownUser { found.user = row.text(1) } else { found.syncedAt = Int64(row.text(1)) }
            }
            return found
        }
    }

    /// Everything the sync engine remembers between runs.
    public func syncState() throws -> SyncState {
        counters.syncStateRead()
        return try read { db in
            var state = SyncState()
            let values = try db.query("SELECT key, value FROM sync_state") { ($0.text(0), $0.text(1)) }
            for (key, value) in values {
                switch key {
                case SyncStateKey.createdCustomZone: state.createdCustomZone = value == "1"
                case SyncStateKey.subscribedToPrivateChanges: state.subscribedToPrivateChanges = value == "1"
                case SyncStateKey.subscribedToSharedChanges: state.subscribedToSharedChanges = value == "1"
                case SyncStateKey.lastPublicPoll: state.lastPublicPoll = Int64(value)
                case SyncStateKey.lastKnownUser: state.lastKnownUser = value
                case SyncStateKey.lastSyncAt: state.lastSyncAt = Int64(value)
                default:
                    for scope in DatabaseScope.allCases where key == SyncStateKey.databaseToken(scope) {
                        state.databaseTokens[scope] = ChangeToken(rawValue: value)
                    }
                }
            }
            let tokens = try db.query("SELECT scope, zone_owner, zone_name, token FROM zone_tokens") { row in
                (ZoneKey(scope: row.withText(0, Self.scope) ?? .private, zoneName: row.text(2), zoneOwner: row.text(1)),
                 ChangeToken(rawValue: row.text(3)))
            }
            for (zone, token) in tokens { state.zoneTokens[zone] = token }
            return state
        }
    }

    /// A zone's change token, nil when the zone was never fetched (or must be refetched).
    public func zoneToken(_ zone: ZoneKey) throws -> ChangeToken? {
        try read { db in
            try db.first(
                "SELECT token FROM zone_tokens WHERE scope = ?1 AND zone_owner = ?2 AND zone_name = ?3", Self.zoneArguments(zone)
            ) { ChangeToken(rawValue: $0.text(0)) }
        }
    }

    /// Stores the database token, to be called only after every zone it named was fetched.
    public func setDatabaseToken(_ token: ChangeToken?, for scope: DatabaseScope) throws {
        try write { db in try Self.setState(SyncStateKey.databaseToken(scope), token?.rawValue, db: db) }
    }

    /// Sets or clears a launch-sequence flag.
    public func setFlag(_ flag: SyncFlag, _ value: Bool) throws {
        try write { db in try Self.setState(flag.rawValue, value ? "1" : nil, db: db) }
    }

    /// Records whose cache this is; answers whether it changed from a previous, different user.
    public func setLastKnownUser(_ user: String) throws {
        try write { db in try Self.setState(SyncStateKey.lastKnownUser, user, db: db) }
    }

    /// Notes the time a sync completed (ms).
    public func setLastSyncAt(_ time: Int64) throws {
        try write { db in try Self.setState(SyncStateKey.lastSyncAt, String(time), db: db) }
    }

    /// Forgets the flags of the zone and subscriptions, so the next launch creates them again.
    public func forgetZoneAndSubscriptions() throws {
        try write { db in
            for flag in SyncFlag.allCases { try Self.setState(flag.rawValue, nil, db: db) }
        }
    }
}
