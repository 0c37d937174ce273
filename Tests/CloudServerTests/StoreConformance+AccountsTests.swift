@testable import CloudServer
import CloudModel
import Foundation
import Testing

/// The storage contract for accounts, sessions, devices, push tokens, subscriptions, schema, assets and shares.
@Suite("Store conformance: accounts, subscriptions, schema, assets, shares")
struct StoreConformanceAccountsTests {
    @Test(arguments: StoreFactory.all)
    func oneStoredHashOfEachCostInUse(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let hashes = ["$y$j75$saltA$hashA", "$y$j75$saltB$hashB", "$y$jC5$saltC$hashC", "$hmac-sha256$$y$jC5$saltD$hashD", "$y$j9T$saltE$hashE"]
            try await store.write { tx async throws in
                for (index, hash) in hashes.enumerated() {
                    try await tx.insertUser(UserRow(userRecordName: "_user\(index)", account: "user\(index)", passwordHash: hash), now: 10)
                }
            }
            let samples = try await store.read { tx async throws in try await tx.passwordHashSamples() }
            #expect(samples.count == 3, "\(samples)")
            #expect(Set(samples.map(PasswordHasher.costKey)) == ["j75", "jC5", "j9T"])
            #expect(Set(samples).isSubset(of: hashes))
        }
    }

    @Test(arguments: StoreFactory.all)
    func sessionsDevicesAndPushTokens(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let container = Conformance.container
            try await store.write { tx async throws in
                try await tx.insertUser(UserRow(userRecordName: "_alice", account: "alice", passwordHash: "h1"), now: 10)
                try await tx.insertDevice(id: "dev-laptop", user: "_alice", name: "laptop", now: 10)
                try await tx.insertDevice(id: "dev-phone", user: "_alice", name: "phone", now: 11)
                try await tx.insertSession(digest: "s-laptop", user: "_alice", deviceID: "dev-laptop", now: 20)
                try await tx.insertSession(digest: "s-phone", user: "_alice", deviceID: "dev-phone", now: 21)
                // One live session per device: signing in again ends the old one.
                try await tx.insertSession(digest: "s-phone-2", user: "_alice", deviceID: "dev-phone", now: 30)
                try await tx.insertPushToken("tok-phone", container: container, creatorDevice: "dev-phone", now: 30)
                try await tx.bindPushToken("tok-phone", user: "_alice", deviceID: "dev-phone")
                try await tx.insertPushToken("tok-unbound", container: container, creatorDevice: "dev-laptop", now: 30)
            }
            try await store.read { tx async throws in
                #expect(try await tx.user(account: "alice")?.userRecordName == "_alice")
                #expect(try await tx.user(recordName: "_alice")?.passwordHash == "h1")
                #expect(try await tx.device(user: "_alice", name: "phone") == "dev-phone")
                #expect(try await tx.deviceID(user: "_alice", name: "tablet") == nil)
                #expect(try await tx.session(digest: "s-phone") == nil)
                let session = try #require(try await tx.session(digest: "s-phone-2"))
                #expect(session.deviceID == "dev-phone" && session.deviceName == "phone" && session.lastUsed == 30)
                #expect(try await tx.signedInDevices(user: "_alice").map(\.name).sorted() == ["laptop", "phone"])
                #expect(try await tx.pushToken("tok-phone")?.deviceID == "dev-phone")
                #expect(try await tx.pushToken("tok-unbound")?.deviceID == nil)
                #expect(try await tx.pushTokens(user: "_alice", container: container).map(\.token) == ["tok-phone"])
                #expect(try await tx.allPushTokens() == ["tok-phone", "tok-unbound"])
                let summary = try await tx.accounts()
                #expect(summary.map(\.account) == ["alice"] && summary.first?.signedInDevices == 2)
            }
            try await store.write { tx async throws in
                try await tx.touchSession(digest: "s-laptop", now: 50)
                try await tx.touchSession(digest: "s-laptop", now: 40)  // never back
                try await tx.touchPushToken("tok-phone", now: 60)
                try await tx.setPasswordHash(user: "_alice", hash: "h2")
            }
            try await store.read { tx async throws in
                #expect(try await tx.session(digest: "s-laptop")?.lastUsed == 50)
                #expect(try await tx.pushToken("tok-phone")?.lastUsed == 60)
                #expect(try await tx.user(account: "alice")?.passwordHash == "h2")
            }
            // Sessions idle since before 45 end; a device without a session loses its tokens at eviction.
            let ended = try await store.write { tx async throws in try await tx.deleteIdleSessions(lastUsedBefore: 45) }
            #expect(ended == 1)
            try await store.write { tx async throws in
                try await tx.evictPushTokens(unregisteredBefore: 0, unusedBefore: 0)
            }
            try await store.read { tx async throws in
                #expect(try await tx.signedInDevices(user: "_alice").map(\.name) == ["laptop"])
                #expect(try await tx.allPushTokens() == ["tok-unbound"])
            }
            try await store.write { tx async throws in
                try await tx.deleteSessions(deviceID: "dev-laptop")
                try await tx.evictPushTokens(unregisteredBefore: 31, unusedBefore: 0)
            }
            try await store.read { tx async throws in
                #expect(try await tx.signedInDevices(user: "_alice").isEmpty)
                #expect(try await tx.allPushTokens().isEmpty)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func subscriptionsAndDiscovery(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let database = Conformance.alice
            let first = Subscription(subscriptionID: "private-changes", subscriptionType: .database)
            let second = Subscription(subscriptionID: "another", subscriptionType: .database)
            try await store.write { tx async throws in
                try await tx.putSubscription(database, first)
                try await tx.putSubscription(database, second)
                try await tx.putSubscription(database, first)  // saved again: replaced, not doubled
                try await tx.putSubscription(Conformance.bob, first)
                try await tx.setDiscoverable(container: Conformance.container, user: "_alice", true)
            }
            try await store.read { tx async throws in
                #expect(try await tx.subscriptions(database).map(\.subscriptionID) == ["another", "private-changes"])
                let owners = try await tx.subscriptions(container: Conformance.container, scope: .private).map(\.owner)
                #expect(owners.sorted() == ["_alice", "_alice", "_bob"])
                #expect(try await tx.isDiscoverable(container: Conformance.container, user: "_alice"))
                #expect(try await !tx.isDiscoverable(container: Conformance.container, user: "_bob"))
            }
            try await store.write { tx async throws in
                #expect(try await tx.deleteSubscription(database, id: "another"))
                #expect(try await !tx.deleteSubscription(database, id: "another"))
                try await tx.setDiscoverable(container: Conformance.container, user: "_alice", false)
            }
            try await store.read { tx async throws in
                #expect(try await tx.subscriptions(database).map(\.subscriptionID) == ["private-changes"])
                #expect(try await !tx.isDiscoverable(container: Conformance.container, user: "_alice"))
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func schemaTypesAndFields(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let container = Conformance.container
            try await store.write { tx async throws in
                try await tx.defineSchemaType(container: container, recordType: "Todo")
                try await tx.defineSchemaField(container: container, recordType: "Todo", name: "title", type: "STRING")
                try await tx.defineSchemaField(container: container, recordType: "Todo", name: "title", type: "INT64")  // kept
                try await tx.defineSchemaType(container: container, recordType: "Empty")
                #expect(try await tx.markSchemaField(container: container, recordType: "Todo", name: "title", queryable: true, sortable: nil))
                #expect(try await !tx.markSchemaField(container: container, recordType: "Todo", name: "nope", queryable: true, sortable: true))
            }
            try await store.read { tx async throws in
                #expect(try await tx.schemaFields(container: container, recordType: "Todo") == ["title": SchemaField(type: "STRING", queryable: true)])
                #expect(try await tx.schemaFields(container: container, recordType: "Empty") == [:])
                #expect(try await tx.schemaFields(container: container, recordType: "Missing") == nil)
                #expect(try await tx.schema(container: container).keys.sorted() == ["Empty", "Todo"])
                #expect(try await tx.schema(container: "other/development").isEmpty)
            }
            let replacement = ["List": ["name": SchemaField(type: "STRING", sortable: true)]]
            try await store.write { tx async throws in try await tx.replaceSchema(container: container, with: replacement) }
            try await store.read { tx async throws in #expect(try await tx.schema(container: container) == replacement) }
        }
    }

    @Test(arguments: StoreFactory.all)
    func assetsTicketsRowsAndBytes(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let container = Conformance.container
            let id = String(repeating: "ab", count: 32)
            try await store.write { tx async throws in
                try await tx.insertAssetUpload(ticket: "ticket-1", container: container, owner: "_alice", now: 1_000)
                try await tx.insertAssetUpload(ticket: "ticket-old", container: container, owner: "_alice", now: 10)
                try await tx.insertAssetUpload(ticket: "ticket-2", container: container, owner: "_alice", now: 1_000)
            }
            try await store.write { tx async throws in
                #expect(try await tx.takeAssetUpload(ticket: "ticket-2", container: "other", notBefore: 500) == nil)
                #expect(try await tx.takeAssetUpload(ticket: "ticket-old", container: container, notBefore: 500) == nil)
                #expect(try await tx.takeAssetUpload(ticket: "ticket-1", container: container, notBefore: 500) == "_alice")
                #expect(try await tx.takeAssetUpload(ticket: "ticket-1", container: container, notBefore: 500) == nil)  // used up
            }
            let bytes = Data((0..<5000).map { UInt8($0 % 251) })
            try await store.putAssetContent(id: id, bytes: bytes)
            try await store.write { tx async throws in
                try await tx.insertAsset(AssetRow(id: id, container: container, owner: "_alice", size: 5000, checksum: "sum"), now: 1_000)
            }
            #expect(try await store.assetContent(id: id) == bytes)
            #expect(try await store.assetContent(id: String(repeating: "cd", count: 32)) == nil)
            try await store.read { tx async throws in
                #expect(try await tx.asset(id: id)?.size == 5000)
                #expect(try await tx.assetIDs(owner: "_alice") == [id])
            }
            try await store.write { tx async throws in try await tx.deleteAssets(owner: "_alice") }
            try await store.removeAssetContent(ids: [id, String(repeating: "ef", count: 32)])
            #expect(try await store.assetContent(id: id) == nil)
            try await store.read { tx async throws in #expect(try await tx.asset(id: id) == nil) }
        }
    }

    @Test(arguments: StoreFactory.all)
    func sharesParticipantsRootsAndViews(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let zone = try await store.write { tx -> StoredZone in
                let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                _ = try await tx.createZone(Conformance.alice, name: "Unshared")
                #expect(try await !tx.zoneHasShares(zonePK: zone.pk))
                for (name, parent) in [("list", nil), ("item", "list"), ("other", nil)] as [(String, String?)] {
                    let record = Conformance.record(zone, name, seq: try await tx.nextSequence(.zone(pk: zone.pk)), parent: parent)
                    try await tx.putRecord(record)
                }
                #expect(try await tx.allLinks(zonePK: zone.pk).map(\.name).sorted() == ["item", "list", "other"])
                for (name, root) in [("list", "list"), ("item", "list"), ("other", "other")] {
                    try await tx.setRoot(zonePK: zone.pk, name: name, root: root)
                }
                try await tx.insertShare(ShareRow(zonePK: zone.pk, recordName: "share-1", rootRecordName: "list"))
                try await tx.setParticipants(
                    zonePK: zone.pk, shareRecordName: "share-1",
                    [
                        ParticipantRow(userRecordName: "_carol", permission: .readOnly, accepted: false),
                        ParticipantRow(userRecordName: "_bob", permission: .readWrite, accepted: true),
                    ])
                try await tx.setViewEpoch(zonePK: zone.pk, participant: "_bob", epoch: try await tx.nextSequence(.zone(pk: zone.pk)))
                return zone
            }
            try await store.read { tx async throws in
                #expect(try await tx.zoneHasShares(zonePK: zone.pk))
                #expect(try await tx.share(zonePK: zone.pk, recordName: "share-1")?.rootRecordName == "list")
                #expect(try await tx.share(zonePK: zone.pk, root: "list")?.recordName == "share-1")
                #expect(try await tx.share(zonePK: zone.pk, root: "other") == nil)
                #expect(try await tx.participants(zonePK: zone.pk, shareRecordName: "share-1").map(\.userRecordName) == ["_carol", "_bob"])
                #expect(try await tx.ownedShares(container: Conformance.container, owner: "_alice").map(\.share.recordName) == ["share-1"])
                #expect(try await tx.sharesListing(container: Conformance.container, participant: "_carol").map(\.zone.pk) == [zone.pk])
                #expect(try await tx.sharedZones(container: Conformance.container, participant: "_bob").map(\.pk) == [zone.pk])
                #expect(try await tx.sharedZones(container: Conformance.container, participant: "_carol").isEmpty)
                #expect(try await tx.acceptedRoots(zonePK: zone.pk, participant: "_bob") == ["list": .readWrite])
                #expect(try await tx.acceptedParticipants(zonePK: zone.pk, roots: ["list"]) == ["_bob"])
                #expect(try await tx.participantsOfZone(zonePK: zone.pk) == ["_bob": true, "_carol": false])
                #expect(try await tx.viewEpoch(zonePK: zone.pk, participant: "_bob") > 0)
                #expect(try await tx.viewEpoch(zonePK: zone.pk, participant: "_carol") == 0)
                #expect(try await tx.recordLink(zonePK: zone.pk, name: "item") == RecordLink(parent: "list", root: "list", recordType: "Todo", deleted: false))
                #expect(try await tx.recordsUnder(zonePK: zone.pk, root: "list").map(\.name).sorted() == ["item", "list"])
                let visible = try await tx.visibleChanges(zonePK: zone.pk, after: 0, limit: 10, includeTombstones: true, roots: ["list"])
                #expect(visible.map(\.recordName) == ["list", "item"])
                #expect(try await tx.visibleLiveRecords(zonePK: zone.pk, recordType: "Todo", modifiedAfter: nil, roots: ["list"]).count == 2)
            }
            // "item" moves under "other": a participant of "list" gets a tombstone for it, after its new position.
            let moved = try await store.write { tx -> Int64 in
                let seq = try await tx.nextSequence(.zone(pk: zone.pk))
                try await tx.moveRecord(zonePK: zone.pk, name: "item", root: "other", seq: seq)
                try await tx.noteRootExit(zonePK: zone.pk, name: "item", oldRoot: "list", seq: seq, now: 2_000)
                return seq
            }
            try await store.read { tx async throws in
                let record = try #require(try await tx.record(zonePK: zone.pk, name: "item"))
                #expect(record.seq == moved && record.changeTag != String(moved, radix: 36))
                let changes = try await tx.visibleChanges(zonePK: zone.pk, after: 0, limit: 10, includeTombstones: true, roots: ["list"])
                #expect(changes.map(\.recordName) == ["list", "item"])
                #expect(changes.last?.deleted == true && changes.last?.seq == moved)
                #expect(try await tx.visibleChanges(zonePK: zone.pk, after: 0, limit: 10, includeTombstones: false, roots: ["list"]).map(\.recordName) == ["list"])
            }
            try await store.write { tx async throws in try await tx.deleteShare(zonePK: zone.pk, recordName: "share-1") }
            try await store.read { tx async throws in
                #expect(try await tx.share(zonePK: zone.pk, recordName: "share-1") == nil)
                #expect(try await tx.participants(zonePK: zone.pk, shareRecordName: "share-1").isEmpty)
                #expect(try await tx.sharedZones(container: Conformance.container, participant: "_bob").isEmpty)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func removingAnAccountRemovesEverythingItOwns(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            try await store.write { tx async throws in
                for (user, account) in [("_alice", "alice"), ("_bob", "bob")] {
                    try await tx.insertUser(UserRow(userRecordName: user, account: account, passwordHash: "h"), now: 1)
                    try await tx.insertDevice(id: "dev\(user)", user: user, name: "laptop", now: 1)
                    try await tx.insertSession(digest: "s\(user)", user: user, deviceID: "dev\(user)", now: 1)
                    try await tx.insertPushToken("tok\(user)", container: Conformance.container, creatorDevice: "dev\(user)", now: 1)
                    try await tx.bindPushToken("tok\(user)", user: user, deviceID: "dev\(user)")
                    let database = DatabaseKey(container: Conformance.container, scope: .private, owner: user)
                    let zone = try await tx.createZone(database, name: "Todos")
                    _ = try await Conformance.put(tx, zone, ["r1", "r2"])
                    try await tx.noteZoneChange(database, zoneName: "Todos", kind: .changed, seq: try await tx.nextSequence(.database(database)), now: 1)
                    try await tx.putSubscription(database, Subscription(subscriptionID: "private-changes", subscriptionType: .database))
                    try await tx.insertAssetUpload(ticket: "ticket\(user)", container: Conformance.container, owner: user, now: 1)
                    try await tx.setDiscoverable(container: Conformance.container, user: user, true)
                }
                let bobsZone = try #require(try await tx.zone(Conformance.bob, name: "Todos"))
                try await tx.insertShare(ShareRow(zonePK: bobsZone.pk, recordName: "share", rootRecordName: "r1"))
                try await tx.setParticipants(
                    zonePK: bobsZone.pk, shareRecordName: "share", [ParticipantRow(userRecordName: "_alice", permission: .readWrite, accepted: true)])
            }
            let aliceZone = try await store.read { tx async throws in try #require(try await tx.zone(Conformance.alice, name: "Todos")) }
            try await store.write { tx async throws in
                try await tx.deleteUser("_alice")
                #expect(try await tx.takeAssetUpload(ticket: "ticket_alice", container: Conformance.container, notBefore: 0) == nil)
                #expect(try await tx.takeAssetUpload(ticket: "ticket_bob", container: Conformance.container, notBefore: 0) == "_bob")
            }
            try await store.read { tx async throws in
                #expect(try await tx.user(account: "alice") == nil)
                #expect(try await tx.session(digest: "s_alice") == nil)
                #expect(try await tx.device(user: "_alice", name: "laptop") == nil)
                #expect(try await tx.allPushTokens() == ["tok_bob"])
                #expect(try await tx.zones(Conformance.alice).isEmpty)
                #expect(try await tx.record(zonePK: aliceZone.pk, name: "r1") == nil)
                #expect(try await tx.databaseChanges(Conformance.alice, after: 0, limit: 10).isEmpty)
                #expect(try await tx.subscriptions(Conformance.alice).isEmpty)
                #expect(try await !tx.isDiscoverable(container: Conformance.container, user: "_alice"))
                #expect(try await tx.sharedZones(container: Conformance.container, participant: "_alice").isEmpty)
                // Bob keeps everything of his.
                #expect(try await tx.user(account: "bob") != nil)
                #expect(try await tx.session(digest: "s_bob") != nil)
                #expect(try await tx.zones(Conformance.bob).count == 1)
                #expect(try await tx.subscriptions(Conformance.bob).count == 1)
                let bobsZone = try #require(try await tx.zone(Conformance.bob, name: "Todos"))
                #expect(try await tx.share(zonePK: bobsZone.pk, recordName: "share") != nil)
            }
        }
    }
}
