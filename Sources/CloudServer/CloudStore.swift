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

extension StoreTransaction {
    /// The general form: the records as values, then written.
    func writeChanges(
        zonePK: Int64, after seq: Int64, limit: Int, byteLimit: Int, includeTombstones: Bool, zoneID: ZoneID,
        into writer: inout JSONWriter
    ) throws -> (lastSeq: Int64?, moreComing: Bool) {
        let rows = try changes(zonePK: zonePK, after: seq, limit: limit + 1, includeTombstones: includeTombstones)
        var cache = RecordJSONCache()
        var lastSeq: Int64?
        for (index, record) in rows.enumerated() {
            guard index < limit, index == 0 || writer.bytes.count < byteLimit else { return (lastSeq, true) }
            writer.separator(index)
            try writer.record(record, zoneID: zoneID, cache: &cache)
            lastSeq = record.seq
        }
        return (lastSeq, false)
    }
}

/// The cloud's storage: everything that must survive a restart. SQLite today, PostgreSQL later.
protocol CloudStore: Sendable {
    /// Runs `body` in one write transaction: all of it commits, or none of it.
    func write<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Runs `body` against a consistent snapshot.
    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws -> T
}

/// The operations available inside a storage transaction.
protocol StoreTransaction: ShareStoreTransaction {
    /// The next value of the cloud-wide change sequence.
    func nextSequence() throws -> Int64

    func user(account: String) throws -> UserRow?
    func user(recordName: String) throws -> UserRow?
    func insertUser(_ user: UserRow, now: Int64) throws
    /// Every account, by name.
    func accounts() throws -> [AccountSummary]
    func setPasswordHash(user: String, hash: String) throws
    /// Removes an account with its devices, sessions, zones, records, shares, subscriptions and asset uploads
    /// (`deleteAssets` removes the asset rows once their files are gone).
    func deleteUser(_ user: String) throws
    func assetIDs(owner: String) throws -> [String]
    func deleteAssets(owner: String) throws
    func device(user: String, name: String) throws -> String?
    func insertDevice(id: String, user: String, name: String, now: Int64) throws
    /// Starts a device's session, ending the one it had (one live session per device).
    func insertSession(digest: String, user: String, deviceID: String, now: Int64) throws
    func session(digest: String) throws -> SessionRow?
    /// Records a session's use at `now` (never moving it back).
    func touchSession(digest: String, now: Int64) throws
    /// Ends a session and forgets its device's push tokens.
    func deleteSession(digest: String) throws
    /// Ends a device's session and forgets its push tokens.
    func deleteSessions(deviceID: String) throws
    /// Ends every session of a user.
    func deleteSessions(user: String) throws
    /// Ends sessions last used before a time; how many.
    func deleteIdleSessions(lastUsedBefore: Int64) throws -> Int
    /// The devices of a user that have a session.
    func signedInDevices(user: String) throws -> [DeviceRow]

    /// A new unregistered push token created by a signed-in device (which keeps only its newest few of those).
    func insertPushToken(_ token: String, container: String, creatorDevice: String, now: Int64) throws
    func pushToken(_ token: String) throws -> PushTokenRow?
    func touchPushToken(_ token: String, now: Int64) throws
    func bindPushToken(_ token: String, user: String, deviceID: String) throws
    /// Registered push tokens of a user's devices in a container.
    func pushTokens(user: String, container: String) throws -> [PushTokenRow]
    /// Forgets tokens never registered and created before one time, tokens unused since another, and tokens of
    /// devices without a session.
    func evictPushTokens(unregisteredBefore: Int64, unusedBefore: Int64) throws
    /// Every push token there is.
    func allPushTokens() throws -> Set<String>
    func deviceID(user: String, name: String) throws -> String?

    func zone(_ database: DatabaseKey, name: String) throws -> StoredZone?
    func zones(_ database: DatabaseKey) throws -> [StoredZone]
    func createZone(_ database: DatabaseKey, name: String) throws -> StoredZone
    /// Removes a zone and its records; `purged` marks it as the user deleting their data.
    func deleteZone(_ zone: StoredZone, purged: Bool) throws
    func isPurged(_ database: DatabaseKey, name: String) throws -> Bool

    func record(zonePK: Int64, name: String) throws -> StoredRecord?
    func putRecord(_ record: StoredRecord) throws
    /// Writes a record unless its name already has a row (live or a tombstone); false, writing nothing, if it has.
    /// Cheaper than `putRecord` when the name is new.
    func insertRecord(_ record: StoredRecord) throws -> Bool
    func removeRecord(zonePK: Int64, name: String) throws
    /// Records and tombstones of a zone after a sequence, in order, at most `limit`.
    func changes(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool) throws -> [StoredRecord]
    /// What `changes` answers, written straight into `writer` as a comma-separated list, each record as
    /// `JSONWriter.record(_:zoneID:)` writes it, and no more once the writer holds `byteLimit` bytes (one at least);
    /// the sequence of the last one written, and whether more follow.
    func writeChanges(
        zonePK: Int64, after seq: Int64, limit: Int, byteLimit: Int, includeTombstones: Bool, zoneID: ZoneID,
        into writer: inout JSONWriter
    ) throws -> (lastSeq: Int64?, moreComing: Bool)
    /// Live records of a type, optionally modified after a time, for queries.
    func liveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?) throws -> [StoredRecord]
    /// Live records of a type that a query's column conditions select (under `roots` only, when given), in its
    /// order, after a key of that order, at most `limit`; each with its key, and the record only when it passes the
    /// query's field filters too (nil: a position looked at, not an answer).
    func queryRecords(
        zonePK: Int64, recordType: String, plan: QueryPlan, after position: [SQLValue]?, roots: Set<String>?, limit: Int
    ) throws -> [(record: StoredRecord?, key: [SQLValue])]
    /// The head of a zone's change feed: the highest sequence it has handed out, compacted tombstones included.
    func latestSequence(zonePK: Int64) throws -> Int64

    func noteZoneChange(_ database: DatabaseKey, zoneName: String, kind: ZoneChangeKind, seq: Int64, now: Int64) throws
    func databaseChanges(_ database: DatabaseKey, after seq: Int64, limit: Int) throws -> [(zoneName: String, kind: ZoneChangeKind, seq: Int64)]
    /// The head of a database's feed: its highest sequence, compacted entries included.
    func latestDatabaseSequence(_ database: DatabaseKey) throws -> Int64
    /// Entries of a database's feed at or below this sequence were compacted: its horizon.
    func databaseHorizon(_ database: DatabaseKey) throws -> Int64

    func subscriptions(_ database: DatabaseKey) throws -> [Subscription]
    func putSubscription(_ database: DatabaseKey, _ subscription: Subscription) throws
    func deleteSubscription(_ database: DatabaseKey, id: String) throws -> Bool
    /// Every subscription of a scope in a container, with its owner.
    func subscriptions(container: String, scope: DatabaseScope) throws -> [(owner: String, subscription: Subscription)]

    /// The fields of a record type in a container environment's schema; nil when the type is not in it.
    func schemaFields(container: String, recordType: String) throws -> [String: SchemaField]?
    func defineSchemaType(container: String, recordType: String) throws
    /// Adds a field with its type unless the type already has a field of that name.
    func defineSchemaField(container: String, recordType: String, name: String, type: String) throws
    /// Every record type of a container environment with its fields.
    func schema(container: String) throws -> [String: [String: SchemaField]]
    func replaceSchema(container: String, with types: [String: [String: SchemaField]]) throws
    /// Sets a field's index marks (nil: unchanged); false when there is no such field.
    func markSchemaField(container: String, recordType: String, name: String, queryable: Bool?, sortable: Bool?) throws -> Bool

    func insertAssetUpload(ticket: String, container: String, owner: String, now: Int64) throws
    /// Uses up an upload ticket (tickets older than `notBefore` are dropped); the user it was issued to.
    func takeAssetUpload(ticket: String, container: String, notBefore: Int64) throws -> String?
    func insertAsset(_ asset: AssetRow, now: Int64) throws
    func asset(id: String) throws -> AssetRow?
    /// Whether `users/discover` may find a user in a container.
    func setDiscoverable(container: String, user: String, _ discoverable: Bool) throws
    func isDiscoverable(container: String, user: String) throws -> Bool

    /// Drops tombstones and deleted-zone entries older than `before` (ms), moving the expiry horizons.
    func compact(before: Int64) throws
}
