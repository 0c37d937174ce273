import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// Push as CloudKit JS meets it: a token from `tokens/create` alone, `ck.fet` and `ck.qry` payloads, query
/// subscriptions firing as their `firesOn` says, `subscriptions/lookup` and delete by ID. Bodies as the CloudKit Web
/// Services Reference gives them. `WebClientStoreTests` runs these on the other stores.
@Suite("Web clients: push and subscriptions")
struct WebPushTests {
    /// Saves subscriptions in `scope` from their JSON; the answer.
    private func subscribe(_ cloud: TestCloud, _ device: Device, _ scope: DatabaseScope = .private, _ subscriptions: [String]) async throws -> WebAnswer {
        let operations = subscriptions.map { #"{"operationType":"create","subscription":\#($0)}"# }.joined(separator: ",")
        return try await cloud.web(cloud.address.databasePath(scope, "subscriptions/modify"), #"{"operations":[\#(operations)]}"#, token: device.token)
    }

    @Test func aCreatedTokenGetsFetAndQryPushesWithoutRegistering() async throws {
        try await withCloud { cloud in
            let web = try await cloud.signIn("alice", device: "browser")
            let phone = try await cloud.signIn("alice", device: "phone")
            let tablet = try await cloud.signIn("alice", device: "tablet")
            try await cloud.createTodosZone(phone)
            let courier = try await cloud.createWebToken(web)
            // The device's way (create, then register) goes on working beside it.
            let tabletCourier = try await cloud.registerPush(tablet)
            try await cloud.listen(courier)
            try await cloud.listen(tabletCourier)
            let saved = try await subscribe(
                cloud, web, .private,
                [
                    #"{"subscriptionID":"todos-zone","subscriptionType":"zone","zoneID":{"zoneName":"Todos"}}"#,
                    #"{"subscriptionID":"all-todos","subscriptionType":"query","zoneID":{"zoneName":"Todos"},"query":{"recordType":"Todo"},"firesOn":["create","update","delete"]}"#,
                    #"{"subscriptionID":"gone-todos","subscriptionType":"query","query":{"recordType":"Todo"},"firesOn":["delete"]}"#,
                ])
            #expect(saved.status == 200, "\(saved.text)")
            #expect((saved["subscriptions"] as? [[String: Any]])?.allSatisfy { $0["serverErrorCode"] == nil } == true, "\(saved.text)")

            // Created: the zone's push and the query's, the delete-only query silent.
            _ = try await cloud.modify(phone, [RecordOperation(.create, todo("t1", "Buy milk"))])
            var (pushes, ack) = try await cloud.drain(courier, count: 2)
            print("web push (record created):", pushes.map(\.text).joined(separator: "\n"))
            let fet = try #require(pushes.first { $0["ck", "fet"] != nil })
            #expect(fet["aps", "content-available"] as? Int == 1)
            #expect(fet["ck", "fet", "sid"] as? String == "todos-zone")
            #expect(fet["ck", "fet", "zid"] as? String == "Todos")
            #expect(fet["ck", "fet", "zoid"] as? String == web.user)
            #expect(fet["ck", "fet", "dbs"] as? Int == 1)
            #expect((fet["ck", "cid"] as? String)?.hasPrefix(cloud.address.container) == true)
            #expect(fet["ck", "nid"] is String)
            let created = try #require(pushes.first { $0["ck", "qry"] != nil })
            #expect(created["ck", "qry", "sid"] as? String == "all-todos")
            #expect(created["ck", "qry", "rid"] as? String == "t1")
            #expect(created["ck", "qry", "fo"] as? Int == 1)
            #expect(created["ck", "qry", "zid"] as? String == "Todos")
            #expect(created["ck", "qry", "zoid"] as? String == web.user)
            #expect(created["ck", "qry", "dbs"] as? Int == 1)
            // Our own device reads the same payload.
            let decoded = try JSONDecoder().decode(PushNotification.self, from: Data(created.text.utf8))
            #expect(decoded.scope == .private)
            #expect(try await cloud.pollWeb(courier, timeout: 0.3, ack: ack) == nil)

            // Updated, then deleted: each query fires as its firesOn says.
            _ = try await cloud.modify(phone, [RecordOperation(.forceUpdate, todo("t1", "Buy oat milk"))])
            (pushes, ack) = try await cloud.drain(courier, count: 2, ack: ack)
            #expect(pushes.compactMap { $0["ck", "qry", "fo"] as? Int } == [2])
            _ = try await cloud.modify(phone, [RecordOperation(.forceDelete, Record(recordName: "t1", recordType: "Todo"))])
            (pushes, ack) = try await cloud.drain(courier, count: 3, ack: ack)
            print("web push (record deleted):", pushes.map(\.text).joined(separator: "\n"))
            #expect(Set(pushes.compactMap { $0["ck", "qry", "sid"] as? String }) == ["all-todos", "gone-todos"])
            #expect(Set(pushes.compactMap { $0["ck", "qry", "fo"] as? Int }) == [3])
            #expect(try await cloud.pollWeb(courier, timeout: 0.3, ack: ack) == nil)

            // The registered device hears the same.
            let tabletPush = try #require(try await cloud.pollWeb(tabletCourier, timeout: 10))
            #expect(tabletPush["ck", "fet"] != nil || tabletPush["ck", "qry"] != nil)
        }
    }

    @Test func databaseSubscriptionsCarryMetAndFet() async throws {
        try await withCloud { cloud in
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let web = try await cloud.signIn("alice", device: "browser")
            try await cloud.createTodosZone(laptop)
            try await cloud.subscribe(laptop)
            let courier = try await cloud.createWebToken(web)
            try await cloud.listen(courier)
            _ = try await cloud.modify(laptop, [RecordOperation(.create, todo("t1", "x"))])
            let push = try #require(try await cloud.pollWeb(courier, timeout: 10))
            #expect(push["ck", "met", "sid"] as? String == TodoSchema.privateSubscriptionID)
            #expect(push["ck", "fet", "sid"] as? String == TodoSchema.privateSubscriptionID)
            #expect(push["ck", "fet", "zid"] as? String == "Todos")
            #expect(push["ck", "fet", "zoid"] as? String == laptop.user)
        }
    }

    @Test func publicQuerySubscriptionsNameTheirZoneAndReason() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice", device: "browser")
            let bob = try await cloud.signIn("bob")
            let courier = try await cloud.createWebToken(alice)
            try await cloud.listen(courier)
            let saved = try await subscribe(
                cloud, alice, .public,
                [#"{"subscriptionID":"board","subscriptionType":"query","query":{"recordType":"Post"},"firesOn":["create","delete"]}"#])
            #expect(saved.status == 200, "\(saved.text)")
            let post = Record(recordName: "p1", recordType: "Post", fields: ["text": .string("hello")])
            _ = try await cloud.modify(bob, [RecordOperation(.create, post)], scope: .public)
            let push = try #require(try await cloud.pollWeb(courier, timeout: 10))
            #expect(push["ck", "qry", "sid"] as? String == "board")
            #expect(push["ck", "qry", "rid"] as? String == "p1")
            #expect(push["ck", "qry", "fo"] as? Int == 1)
            #expect(push["ck", "qry", "zid"] as? String == ZoneID.defaultZoneName)
            #expect(push["ck", "qry", "zoid"] as? String == "_defaultOwner")
            #expect(push["ck", "qry", "dbs"] as? Int == 0)
        }
    }

    @Test func theSharedDatabaseRefusesQuerySubscriptionsInWords() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let answer = try await subscribe(
                cloud, alice, .shared, [#"{"subscriptionID":"q","subscriptionType":"query","query":{"recordType":"Todo"}}"#])
            #expect(answer.status == 200)
            #expect(answer["subscriptions", 0, "serverErrorCode"] as? String == "BAD_REQUEST")
            #expect((answer["subscriptions", 0, "reason"] as? String)?.contains("database subscription") == true)
        }
    }

    @Test func subscriptionsAreLookedUpAndDeletedByIDAlone() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let saved = try await subscribe(cloud, alice, .private, [#"{"subscriptionID":"z1","subscriptionType":"zone","zoneID":{"zoneName":"Todos"}}"#])
            #expect(saved.status == 200)
            let lookup = cloud.address.databasePath(.private, "subscriptions/lookup")
            let found = try await cloud.web(lookup, #"{"subscriptions":[{"subscriptionID":"z1"},{"subscriptionID":"nope"}]}"#, token: alice.token)
            #expect(found.status == 200, "\(found.text)")
            #expect(found["subscriptions", 0, "subscriptionID"] as? String == "z1")
            #expect(found["subscriptions", 0, "subscriptionType"] as? String == "zone")
            #expect(found["subscriptions", 0, "zoneID", "zoneName"] as? String == "Todos")
            #expect(found["subscriptions", 1, "subscriptionID"] as? String == "nope")
            #expect(found["subscriptions", 1, "serverErrorCode"] as? String == "NOT_FOUND")

            let delete = #"{"operations":[{"operationType":"delete","subscription":{"subscriptionID":"z1"}}]}"#
            let deleted = try await cloud.web(cloud.address.databasePath(.private, "subscriptions/modify"), delete, token: alice.token)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(deleted["subscriptions", 0, "subscriptionID"] as? String == "z1")
            #expect(deleted["subscriptions", 0, "serverErrorCode"] == nil)
            let again = try await cloud.web(cloud.address.databasePath(.private, "subscriptions/modify"), delete, token: alice.token)
            #expect(again["subscriptions", 0, "serverErrorCode"] as? String == "NOT_FOUND")
            let gone = try await cloud.web(lookup, #"{"subscriptions":[{"subscriptionID":"z1"}]}"#, token: alice.token)
            #expect(gone["subscriptions", 0, "serverErrorCode"] as? String == "NOT_FOUND")
        }
    }

    @Test func aPollThatCannotSucceedIsRefused() async throws {
        try await withCloud { cloud in
            let unknown = cloud.server.baseURL.absoluteString
                + CapabilityURL.courier.path(in: cloud.address, credential: String(repeating: "ab", count: 32))
            let (status, body) = try await cloud.fetch(unknown, extra: "timeout=0.1")
            #expect(status == 404)
            #expect(String(decoding: body, as: UTF8.self).contains("NOT_FOUND"))
        }
    }
}
