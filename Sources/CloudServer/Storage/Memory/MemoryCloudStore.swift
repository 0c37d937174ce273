import CloudModel
import Foundation
import Synchronization

/// The cloud's storage in this process's memory, for fast tests (`CloudStorage.memory`): nothing survives a stop.
///
/// The state is a value. A write transaction works on its own copy and swaps it in at commit, so a thrown error
/// rolls back all of it; writes go one at a time (`gate`), and a read works on the state committed when it began.
/// The rules are the SQLite store's, checked by the same conformance suite.
final class MemoryCloudStore: CloudStore, Sendable {
    private struct State {
        var committed = MemoryCloudState()
        var assetBytes: [String: Data] = [:]
        var isShutDown = false
    }
    private let state = Mutex(State())
    private let gate = TransactionGate()

    func write<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        try await gate.withTurn {
            let transaction = MemoryStoreTransaction(try snapshot(), writable: true)
            let value = try await body(transaction)
            let committed = transaction.state
            state.withLock { $0.committed = committed }
            return value
        }
    }

    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        try await body(MemoryStoreTransaction(try snapshot(), writable: false))
    }

    private func snapshot() throws -> MemoryCloudState {
        try state.withLock { state in
            guard !state.isShutDown else { throw ServerError(.tryAgainLater, "the cloud's storage is shut down") }
            return state.committed
        }
    }

    func putAssetContent(id: String, bytes: Data) async throws {
        state.withLock { $0.assetBytes[id] = bytes }
    }

    func assetContent(id: String) async throws -> Data? {
        state.withLock { $0.assetBytes[id] }
    }

    func removeAssetContent(ids: [String]) async throws {
        state.withLock { state in for id in ids { state.assetBytes[id] = nil } }
    }

    func shutDown() async {
        // Transactions under way finish first.
        try? await gate.withTurn { state.withLock { $0.isShutDown = true } }
    }
}

/// Everything a memory cloud holds, keyed as the SQLite store's tables are.
struct MemoryCloudState: Sendable {
    /// One counter serves every feed (writes go one at a time, so values are handed out in commit order).
    var sequence: Int64 = 0
    /// The horizon below which every database feed was compacted (the SQLite store's `db_compacted`).
    var databaseCompacted: Int64 = 0
    var nextZonePK: Int64 = 1

    var users: [String: MemoryUser] = [:]
    /// User record name by account name.
    var accounts: [String: String] = [:]
    var devices: [String: MemoryDevice] = [:]
    /// Sessions by token digest.
    var sessions: [String: MemorySession] = [:]
    var pushTokens: [String: MemoryPushToken] = [:]

    var zones: [Int64: StoredZone] = [:]
    var zoneKeys: [MemoryZoneAddress: Int64] = [:]
    var purgedZones: Set<MemoryZoneAddress> = []
    /// Records (live and tombstones) by zone, then by name.
    var records: [Int64: [String: MemoryRecord]] = [:]
    /// The database feeds: per database, the latest entry of each zone name.
    var zoneChanges: [DatabaseKey: [String: MemoryZoneChange]] = [:]
    var databaseHorizons: [DatabaseKey: Int64] = [:]
    var subscriptions: [DatabaseKey: [String: Subscription]] = [:]

    /// Record types by container environment, each with its fields.
    var schema: [String: [String: [String: SchemaField]]] = [:]
    var assetUploads: [String: MemoryAssetUpload] = [:]
    var assets: [String: AssetRow] = [:]
    /// `container` → users who may be found.
    var discoverable: [String: Set<String>] = [:]

    /// Shares by zone, then by share record name: the root each shares.
    var shares: [Int64: [String: String]] = [:]
    /// Participants by zone, then by share record name, in the owner's order.
    var participants: [Int64: [String: [ParticipantRow]]] = [:]
    var shareViews: [Int64: [String: Int64]] = [:]
    var rootExits: [Int64: [MemoryRootExit.Key: MemoryRootExit]] = [:]
}

struct MemoryUser: Sendable {
    var row: UserRow
    var created: Int64
}

struct MemoryDevice: Sendable {
    var user: String
    var name: String
    var created: Int64
}

struct MemorySession: Sendable {
    var user: String
    var deviceID: String
    var created: Int64
    var lastUsed: Int64
}

struct MemoryPushToken: Sendable {
    var container: String
    var user: String?
    var deviceID: String?
    var created: Int64
    var lastUsed: Int64
    var creatorDevice: String?
}

/// A zone's address: its database and name.
struct MemoryZoneAddress: Hashable, Sendable {
    var database: DatabaseKey
    var name: String
}

/// A stored record with its computed root (kept only in zones that have a share, as in SQLite).
struct MemoryRecord: Sendable {
    var record: StoredRecord
    var root: String?
}

struct MemoryZoneChange: Sendable {
    var kind: ZoneChangeKind
    var seq: Int64
    var changedAt: Int64
}

struct MemoryAssetUpload: Sendable {
    var container: String
    var owner: String
    var created: Int64
}

/// A note that a record left a shared root.
struct MemoryRootExit: Sendable {
    struct Key: Hashable, Sendable {
        var name: String
        var oldRoot: String
    }

    var seq: Int64
    var changedAt: Int64
}
