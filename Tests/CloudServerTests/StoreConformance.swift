@testable import CloudServer
import CloudModel
import Foundation
import Logging
import PostgresTestSupport
import TestSupport
import Testing

/// A kind of store the conformance suite runs against: it makes a fresh, empty store, or says why it cannot here.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    /// A store made for one test, and how to remove what it left.
    struct Made: Sendable {
        var store: any CloudStore
        var cleanUp: @Sendable () async -> Void
    }

    /// Thrown by `make` when the store cannot run here (its server is missing, say): the test says so and ends.
    struct Skipped: Error {
        var reason: String
    }

    var name: String
    var make: @Sendable () async throws -> Made

    var testDescription: String { name }

    /// SQLite in a temporary directory.
    static let sqlite = StoreFactory(name: "sqlite") {
        let directory = ScratchDirectory.path("store-conformance")
        let store = try await SQLiteCloudStore.open(directory: directory)
        return Made(store: store) {
            await store.shutDown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// PostgreSQL: a fresh database on the test server (`PostgresTestDatabase`), dropped after.
    static let postgres = StoreFactory(name: "postgres") {
        switch try await PostgresTestDatabase.make() {
        case .skipped(let reason): throw Skipped(reason: reason)
        case .ready(let database):
            let store = try await PostgresCloudStore.open(database.url, logger: Logger(label: "conformance"))
            return Made(store: store) {
                await store.shutDown()
                await database.drop()
            }
        }
    }

    /// The memory store: nothing to remove after.
    static let memory = StoreFactory(name: "memory") {
        let store = MemoryCloudStore()
        return Made(store: store) { await store.shutDown() }
    }

    /// Every store the conformance suite checks. A new store adds its factory here, and only here.
    static let all: [StoreFactory] = [.sqlite, .postgres, .memory]

    /// Runs `body` with a fresh store, and removes it after; a store that cannot run here prints why and passes
    /// nothing else.
    func run(_ test: String = #function, _ body: (any CloudStore) async throws -> Void) async throws {
        let made: Made
        do {
            made = try await make()
        } catch let skipped as Skipped {
            print("StoreConformance[\(name)] \(test) skipped: \(skipped.reason)")
            return
        }
        do {
            try await body(made.store)
        } catch {
            await made.cleanUp()
            throw error
        }
        await made.cleanUp()
    }
}

/// Values the conformance tests share.
enum Conformance {
    static let container = "iCloud.test/development"
    static let alice = DatabaseKey(container: container, scope: .private, owner: "_alice")
    static let bob = DatabaseKey(container: container, scope: .private, owner: "_bob")
    static let bobShared = DatabaseKey(container: container, scope: .shared, owner: "_bob")

    static func stamp(_ time: Int64, _ user: String = "_alice") -> RecordStamp {
        RecordStamp(timestamp: time, userRecordName: user, deviceID: "device-1")
    }

    /// A live record at `seq`, modified at `time`.
    static func record(_ zone: StoredZone, _ name: String, seq: Int64, time: Int64 = 1_000, title: String? = nil, parent: String? = nil)
        -> StoredRecord
    {
        StoredRecord(
            zonePK: zone.pk, recordName: name, recordType: "Todo", changeTag: String(seq, radix: 36), seq: seq, deleted: false,
            created: stamp(time), modified: stamp(time), parent: parent,
            fieldsJSON: Data(#"{"title":{"type":"STRING","value":"\#(title ?? name)"}}"#.utf8))
    }

    /// The tombstone a delete at `seq` and `time` leaves of `record`.
    static func tombstone(_ record: StoredRecord, seq: Int64, time: Int64) -> StoredRecord {
        var tombstone = record
        tombstone.deleted = true
        tombstone.seq = seq
        tombstone.changeTag = String(seq, radix: 36)
        tombstone.modified = stamp(time)
        tombstone.fieldsJSON = Data("{}".utf8)
        return tombstone
    }

    /// Writes live records `names` into a zone, each at the feed's next position; answers them in order.
    static func put(_ tx: any StoreTransaction, _ zone: StoredZone, _ names: [String], time: Int64 = 1_000) async throws -> [StoredRecord] {
        var written: [StoredRecord] = []
        for name in names {
            let record = record(zone, name, seq: try await tx.nextSequence(.zone(pk: zone.pk)), time: time)
            try await tx.putRecord(record)
            written.append(record)
        }
        return written
    }
}

/// Something a test body throws on purpose, to roll its transaction back.
struct DeliberateFailure: Error {}
