import CloudModel
import Foundation
import SQLiteDB

/// A database of one user (or the public one) inside a container: the unit that owns zones.
struct DatabaseKey: Hashable, Sendable {
    /// `container/environment`.
    var container: String
    var scope: DatabaseScope
    /// The owning user's record name; `_public` for the public database.
    var owner: String

    static let publicOwner = "_public"
}

/// A zone as stored: its row identity changes when the zone is deleted and created again.
struct StoredZone: Sendable, Hashable {
    var pk: Int64
    var database: DatabaseKey
    var name: String
    /// Tombstones at or below this sequence were compacted; older tokens expire.
    var compactedSeq: Int64

    var zoneID: ZoneID { ZoneID(zoneName: name, ownerRecordName: database.scope == .public ? nil : database.owner) }
}

/// A record as stored: system fields in columns, the fields object as canonical JSON bytes.
struct StoredRecord: Sendable {
    var zonePK: Int64
    var recordName: String
    var recordType: String
    var changeTag: String
    var seq: Int64
    var deleted: Bool
    var created: RecordStamp
    var modified: RecordStamp
    var parent: String?
    var fieldsJSON: Data
}

extension StoredRecord {
    /// A participant's page of a zone feed: `rows` (records under their roots) and a tombstone for each record that
    /// left those roots (`exits`: name and feed position), in feed order, at most `limit`.
    static func participantPage(_ rows: [StoredRecord], exits: [(name: String, seq: Int64)], zonePK: Int64, limit: Int) -> [StoredRecord] {
        guard !exits.isEmpty else { return rows }
        let stamp = RecordStamp(timestamp: 0, userRecordName: "")
        var page = rows
        page += exits.map {
            StoredRecord(
                zonePK: zonePK, recordName: $0.name, recordType: "", changeTag: "", seq: $0.seq, deleted: true, created: stamp,
                modified: stamp, parent: nil, fieldsJSON: Data("{}".utf8))
        }
        page.sort { $0.seq < $1.seq }
        return Array(page.prefix(limit))
    }
}

/// What the database change feed says happened to a zone.
enum ZoneChangeKind: Int64, Sendable {
    case changed = 0
    case deleted = 1
    case purged = 2
}

/// A registered account.
struct UserRow: Sendable {
    var userRecordName: String
    var account: String
    var passwordHash: String
}

/// A signed-in session: who, from which device, and when it was last used (ms, recorded coarsely).
struct SessionRow: Sendable {
    var userRecordName: String
    var deviceID: String
    var deviceName: String
    var lastUsed: Int64
}

/// A signed-in device of an account; times in ms.
struct DeviceRow: Sendable {
    var name: String
    var deviceID: String
    /// When the account first signed in under this device name.
    var created: Int64
    /// When its current session began.
    var signedIn: Int64
    var lastUsed: Int64
}

/// An account as the operator's list shows it.
public struct AccountSummary: Sendable, Hashable {
    /// The name the account signs in with.
    public var account: String
    /// Its user record name.
    public var userRecordName: String
    /// When it was created, ms since 1970.
    public var created: Int64
    /// How many devices are signed in.
    public var signedInDevices: Int
    /// The latest recorded use of any of its sessions, ms since 1970.
    public var lastUsed: Int64?
}

/// A push token and, once registered, the device it belongs to.
struct PushTokenRow: Sendable {
    var token: String
    var container: String
    var userRecordName: String?
    var deviceID: String?
    /// When a courier last polled it (ms, recorded coarsely).
    var lastUsed: Int64
}

/// A change feed whose positions the store hands out: one zone's records, or one database's zone entries.
enum FeedKey: Hashable, Sendable {
    /// The record feed of a zone (its row identity), which also orders the views participants have of it.
    case zone(pk: Int64)
    /// The zone-change feed of a database.
    case database(DatabaseKey)
}

/// A zone, the head of its feed and a page of its changes, as `StoreTransaction.zoneFeed` reads them together.
struct ZoneFeedRead: Sendable {
    var zone: StoredZone
    /// The highest sequence the zone's feed handed out (see `StoreTransaction.latestSequence`).
    var head: Int64
    var rows: [StoredRecord]
}

extension StoreTransaction {
    /// `zoneFeed` from the single lookups, for stores where each costs no round trip.
    func zoneFeed(_ database: DatabaseKey, name: String, after seq: Int64, limit: Int, includeTombstones: Bool) async throws -> ZoneFeedRead? {
        guard let zone = try await zone(database, name: name) else { return nil }
        let head = try await latestSequence(zonePK: zone.pk)
        let rows = try await changes(zonePK: zone.pk, after: seq, limit: limit, includeTombstones: includeTombstones)
        return ZoneFeedRead(zone: zone, head: head, rows: rows)
    }
}

/// The cloud's storage: everything that must survive a restart, and the asset bytes.
protocol CloudStore: Sendable {
    /// Runs `body` in one write transaction: all of it commits, or none of it (a thrown error rolls it back).
    func write<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T
    /// Runs `body` against a consistent snapshot.
    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T
    /// Runs `body`, which reads with ONE statement, the cheapest way the store has: one statement is consistent by
    /// itself, so a store with round trips needs no transaction around it.
    func readSingle<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T
    /// Stores an asset's bytes under its id, whole or not at all, before its row is written.
    func putAssetContent(id: String, bytes: Data) async throws
    /// An asset's bytes; nil when none are stored under the id.
    func assetContent(id: String) async throws -> Data?
    /// Forgets the bytes of assets whose rows are gone (ids without bytes are skipped).
    func removeAssetContent(ids: [String]) async throws
    /// Closes the store's connections; nothing may be asked of it afterwards.
    func shutDown() async
    /// Whether every read is a round trip to another process (then each instance keeps a `SessionCache`).
    var readsAreRoundTrips: Bool { get }
}

extension CloudStore {
    /// In-process stores read in microseconds.
    var readsAreRoundTrips: Bool { false }

    /// As `read`, for stores whose transactions cost nothing extra.
    func readSingle<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        try await read(body)
    }
}

/// The operations available inside a storage transaction.
protocol StoreTransaction: ShareStoreTransaction {
    /// The next position of a feed. Within one feed, a value handed out in a transaction that commits is greater
    /// than every value of that feed already committed, and no transaction can commit a smaller value of that feed
    /// afterwards (values become visible in commit order). Values of different feeds are never compared.
    func nextSequence(_ feed: FeedKey) async throws -> Int64

    func user(account: String) async throws -> UserRow?
    func user(recordName: String) async throws -> UserRow?
    func insertUser(_ user: UserRow, now: Int64) async throws
    /// Every account, by name.
    func accounts() async throws -> [AccountSummary]
    /// One stored password hash of each yescrypt cost in use (`PasswordHasher.costKey`): what the cloud times at
    /// start, so failed sign-ins take as long from the first.
    func passwordHashSamples() async throws -> [String]
    func setPasswordHash(user: String, hash: String) async throws
    /// Removes an account with its devices, sessions, zones, records, shares, subscriptions and asset uploads
    /// (`deleteAssets` removes the asset rows once their files are gone).
    func deleteUser(_ user: String) async throws
    func assetIDs(owner: String) async throws -> [String]
    func deleteAssets(owner: String) async throws
    func device(user: String, name: String) async throws -> String?
    func insertDevice(id: String, user: String, name: String, now: Int64) async throws
    /// Starts a device's session, ending the one it had (one live session per device).
    func insertSession(digest: String, user: String, deviceID: String, now: Int64) async throws
    func session(digest: String) async throws -> SessionRow?
    /// Records a session's use at `now` (never moving it back).
    func touchSession(digest: String, now: Int64) async throws
    /// Ends a session and forgets its device's push tokens.
    func deleteSession(digest: String) async throws
    /// Ends a device's session and forgets its push tokens.
    func deleteSessions(deviceID: String) async throws
    /// Ends every session of a user.
    func deleteSessions(user: String) async throws
    /// Ends sessions last used before a time; how many.
    func deleteIdleSessions(lastUsedBefore: Int64) async throws -> Int
    /// The devices of a user that have a session.
    func signedInDevices(user: String) async throws -> [DeviceRow]

    /// A new unregistered push token created by a signed-in device (which keeps only its newest few of those).
    func insertPushToken(_ token: String, container: String, creatorDevice: String, now: Int64) async throws
    func pushToken(_ token: String) async throws -> PushTokenRow?
    func touchPushToken(_ token: String, now: Int64) async throws
    func bindPushToken(_ token: String, user: String, deviceID: String) async throws
    /// Registered push tokens of a user's devices in a container.
    func pushTokens(user: String, container: String) async throws -> [PushTokenRow]
    /// Forgets tokens never registered and created before one time, tokens unused since another, and tokens of
    /// devices without a session.
    func evictPushTokens(unregisteredBefore: Int64, unusedBefore: Int64) async throws
    /// Every push token there is.
    func allPushTokens() async throws -> Set<String>
    func deviceID(user: String, name: String) async throws -> String?

    func zone(_ database: DatabaseKey, name: String) async throws -> StoredZone?
    func zones(_ database: DatabaseKey) async throws -> [StoredZone]
    func createZone(_ database: DatabaseKey, name: String) async throws -> StoredZone
    /// Removes a zone and its records; `purged` marks it as the user deleting their data.
    func deleteZone(_ zone: StoredZone, purged: Bool) async throws
    func isPurged(_ database: DatabaseKey, name: String) async throws -> Bool

    func record(zonePK: Int64, name: String) async throws -> StoredRecord?
    func putRecord(_ record: StoredRecord) async throws
    /// Writes a record unless its name already has a row (live or a tombstone); false, writing nothing, if it has.
    /// Cheaper than `putRecord` when the name is new.
    func insertRecord(_ record: StoredRecord) async throws -> Bool
    /// The rows (live or tombstones) of the given names (which may repeat) in a zone, by name; names without a row
    /// are left out.
    func records(zonePK: Int64, names: [String]) async throws -> [String: StoredRecord]
    /// `insertRecord` for each record in order (names distinct): whether each was written.
    func insertRecords(_ records: [StoredRecord]) async throws -> [Bool]
    func removeRecord(zonePK: Int64, name: String) async throws
    /// Records and tombstones of a zone after a sequence, in order, at most `limit`.
    func changes(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool) async throws -> [StoredRecord]
    /// Live records of a type, optionally modified after a time, for queries.
    func liveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?) async throws -> [StoredRecord]
    /// For each parent (nil: none) of a zone's live records of a type, how many there are and the highest sequence
    /// among them: counted by the store, no record read.
    func liveRecordHeads(zonePK: Int64, recordType: String) async throws -> [(parent: String?, count: Int64, seq: Int64)]
    /// Live records of a type that a query's column conditions select (under `roots` only, when given), in its
    /// order, after a key of that order, at most `limit`; each with its key, and the record only when it passes the
    /// query's field filters too (nil: a position looked at, not an answer).
    func queryRecords(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) async throws -> [(record: StoredRecord?, key: [SQLValue])]
    /// The head of a zone's change feed: the highest sequence it has handed out, compacted tombstones included.
    func latestSequence(zonePK: Int64) async throws -> Int64
    /// A zone looked up by name with its feed's head and its first `limit` changes after `seq`, all from one snapshot
    /// and, where the store has round trips, in one statement (so `readSingle` may run it); nil without such a zone.
    func zoneFeed(_ database: DatabaseKey, name: String, after seq: Int64, limit: Int, includeTombstones: Bool) async throws -> ZoneFeedRead?

    func noteZoneChange(_ database: DatabaseKey, zoneName: String, kind: ZoneChangeKind, seq: Int64, now: Int64) async throws
    func databaseChanges(_ database: DatabaseKey, after seq: Int64, limit: Int) async throws -> [(zoneName: String, kind: ZoneChangeKind, seq: Int64)]
    /// The head of a database's feed: its highest sequence, compacted entries included.
    func latestDatabaseSequence(_ database: DatabaseKey) async throws -> Int64
    /// Entries of a database's feed at or below this sequence were compacted: its horizon.
    func databaseHorizon(_ database: DatabaseKey) async throws -> Int64

    func subscriptions(_ database: DatabaseKey) async throws -> [Subscription]
    func putSubscription(_ database: DatabaseKey, _ subscription: Subscription) async throws
    func deleteSubscription(_ database: DatabaseKey, id: String) async throws -> Bool
    /// Every subscription of a scope in a container, with its owner.
    func subscriptions(container: String, scope: DatabaseScope) async throws -> [(owner: String, subscription: Subscription)]

    /// The fields of a record type in a container environment's schema; nil when the type is not in it.
    func schemaFields(container: String, recordType: String) async throws -> [String: SchemaField]?
    func defineSchemaType(container: String, recordType: String) async throws
    /// Adds a field with its type unless the type already has a field of that name.
    func defineSchemaField(container: String, recordType: String, name: String, type: String) async throws
    /// Every record type of a container environment with its fields.
    func schema(container: String) async throws -> [String: [String: SchemaField]]
    func replaceSchema(container: String, with types: [String: [String: SchemaField]]) async throws
    /// Sets a field's index marks (nil: unchanged); false when there is no such field.
    func markSchemaField(container: String, recordType: String, name: String, queryable: Bool?, sortable: Bool?) async throws -> Bool

    func insertAssetUpload(ticket: String, container: String, owner: String, now: Int64) async throws
    /// Uses up an upload ticket (tickets older than `notBefore` are dropped); the user it was issued to.
    func takeAssetUpload(ticket: String, container: String, notBefore: Int64) async throws -> String?
    func insertAsset(_ asset: AssetRow, now: Int64) async throws
    func asset(id: String) async throws -> AssetRow?
    /// Whether `users/discover` may find a user in a container.
    func setDiscoverable(container: String, user: String, _ discoverable: Bool) async throws
    func isDiscoverable(container: String, user: String) async throws -> Bool

    /// Drops tombstones and deleted-zone entries older than `before` (ms), moving the expiry horizons.
    func compact(before: Int64) async throws
}
