import CloudModel
import Foundation
import TestSupport
import Testing

@Suite("Subscriptions and push")
struct PushTests {
    @Test func pushReachesTheOtherDeviceNotTheWriter() async throws {
        try await withCloud { cloud in
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let tablet = try await cloud.signIn("alice", device: "tablet")
            try await cloud.createTodosZone(laptop)
            try await cloud.subscribe(laptop)
            let listed: SubscriptionsResponse = try await cloud.post(.private, "subscriptions/list", EmptyBody(), token: laptop.token)
            #expect(listed.subscriptions.count == 1)
            let laptopCourier = try await cloud.registerPush(laptop)
            let tabletCourier = try await cloud.registerPush(tablet)

            async let tabletPush = cloud.poll(tabletCourier, timeout: 10)
            async let laptopPush = cloud.poll(laptopCourier, timeout: 1)
            try await cloud.waitForPoll(tabletCourier)
            try await cloud.waitForPoll(laptopCourier)
            _ = try await cloud.modify(laptop, [RecordOperation(.create, todo("t1", "From the laptop"))])
            let received = try #require(try await tabletPush)
            #expect(received.aps.contentAvailable == 1)
            #expect(received.ck.met?.sid == TodoSchema.privateSubscriptionID)
            #expect(received.scope == .private)
            #expect(received.ck.cid.hasPrefix(ContainerAddress.default.container))
            #expect(try await laptopPush == nil)
        }
    }

    @Test func notificationsWaitAndCoalesceWhileADeviceIsAway() async throws {
        try await withCloud { cloud in
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let phone = try await cloud.signIn("alice", device: "phone")
            try await cloud.createTodosZone(laptop)
            try await cloud.subscribe(laptop)
            let courier = try await cloud.registerPush(phone)
            for i in 0..<5 { _ = try await cloud.modify(laptop, [RecordOperation(.create, todo("t\(i)", "Edit \(i)"))]) }
            let first = try #require(try await cloud.poll(courier, timeout: 5, ack: nil))
            #expect(first.ck.met?.sid == TodoSchema.privateSubscriptionID)
            // Coalesced: one notification stood for all five edits.
            #expect(try await cloud.poll(courier, timeout: 0.3, ack: first.ck.nid) == nil)
        }
    }

    @Test func unacknowledgedNotificationIsDeliveredAgain() async throws {
        try await withCloud { cloud in
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let phone = try await cloud.signIn("alice", device: "phone")
            try await cloud.createTodosZone(laptop)
            try await cloud.subscribe(laptop)
            let courier = try await cloud.registerPush(phone)
            _ = try await cloud.modify(laptop, [RecordOperation(.create, todo("t", "x"))])
            let lost = try #require(try await cloud.poll(courier, timeout: 5, ack: "none-yet"))
            // The device says it never got `lost` (its ack names an older one): it comes again.
            let again = try #require(try await cloud.poll(courier, timeout: 5, ack: "none-yet"))
            #expect(again.ck.nid == lost.ck.nid)
            #expect(try await cloud.poll(courier, timeout: 0.2, ack: again.ck.nid) == nil)
        }
    }

    @Test func testPushAndQuerySubscriptions() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice", device: "laptop")
            let alicePhone = try await cloud.signIn("alice", device: "phone")
            let bob = try await cloud.signIn("bob", device: "desk")
            let phoneCourier = try await cloud.registerPush(alicePhone)
            let test = try await cloud.raw(
                "POST", cloud.address.devicePath("push"), body: try JSONEncoder().encode(TestPushRequest(deviceName: "phone")), token: alice.token)
            #expect(test.status == 200)
            #expect(try await cloud.poll(phoneCourier, timeout: 2) != nil)
            let unknown = try await cloud.raw(
                "POST", cloud.address.devicePath("push"), body: try JSONEncoder().encode(TestPushRequest(deviceName: "toaster")), token: alice.token)
            #expect(unknown.status == 404)

            // Bob watches the public board for Todos; Alice posts one.
            let subscription = Subscription(
                subscriptionID: "board", subscriptionType: .query, query: Query(recordType: "Todo"), firesOn: [.create, .update])
            let saved: SubscriptionsResponse = try await cloud.post(
                .public, "subscriptions/modify", ModifySubscriptionsRequest(operations: [.init(.create, subscription)]), token: bob.token)
            #expect(saved.subscriptions.first?.error == nil)
            let list = try await cloud.raw("GET", cloud.address.databasePath(.public, "subscriptions/list"), token: bob.token)
            #expect(try JSONDecoder().decode(SubscriptionsResponse.self, from: list.body).subscriptions.count == 1)
            let bobCourier = try await cloud.registerPush(bob)
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("p", "Board item"))], scope: .public)
            let push = try #require(try await cloud.poll(bobCourier, timeout: 5))
            #expect(push.ck.qry?.sid == "board")
            #expect(push.ck.qry?.rid == "p")
            #expect(push.ck.qry?.fo == 1)

            // A database subscription on the public database is refused.
            let bad: SubscriptionsResponse = try await cloud.post(
                .public, "subscriptions/modify",
                ModifySubscriptionsRequest(operations: [.init(.create, Subscription(subscriptionID: "x", subscriptionType: .database))]), token: bob.token)
            #expect(bad.subscriptions.first?.error?.serverErrorCode == .badRequest)
        }
    }
}

@Suite("Shutdown")
struct ShutdownTests {
    /// The poll asks for the longest wait (300 s): only shutdown can end it before that, and the poll's end is the
    /// event the test waits for.
    @Test func shutdownAnswersWaitingPollsInsteadOfWaitingForThem() async throws {
        let cloud = try await TestCloud()
        let phone = try await cloud.signIn("alice", device: "phone")
        let courier = try await cloud.registerPush(phone)
        let poll = Task { try await cloud.poll(courier, timeout: 300) }
        try await cloud.waitForPoll(courier)
        #expect(await ends { await cloud.close() }, "shutdown returned with the poll still asking for minutes")
        // It answered "nothing" (or its connection closed).
        let answer = try? await poll.value  // nil for both: a 204, or an error for the closed connection
        #expect(answer == nil)
    }
}
