import CloudModel
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import CloudServer

/// A write's pushes are part of the write: sent when it commits, never when it rolls back.
@Suite("Push as part of the write")
struct PushAcrossInstancesTests {
    @Test func aRolledBackBatchPushesNothingAndTheNextCommitDoes() async throws {
        try await withCloud { cloud in
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let phone = try await cloud.signIn("alice", device: "phone")
            try await cloud.createTodosZone(laptop)
            try await cloud.subscribe(laptop)
            let courier = try await cloud.registerPush(phone)
            // An atomic batch whose second operation fails: nothing is written, so nothing may be announced.
            let failed = try await cloud.modify(
                laptop, [RecordOperation(.create, todo("t1", "Written?")), RecordOperation(.update, todo("missing", "No such todo"))])
            #expect(failed.allSatisfy { $0.error != nil })
            #expect(try await cloud.poll(courier, timeout: 0.5) == nil)
            _ = try await cloud.modify(laptop, [RecordOperation(.create, todo("t1", "Written"))])
            let push = try #require(try await cloud.poll(courier, timeout: 5))
            #expect(push.ck.met?.sid == TodoSchema.privateSubscriptionID)
        }
    }

    @Test func oneInstanceKeepsMailboxesForTokensThatNeverPolledAndSendsNoResyncs() async throws {
        // The embedded cloud is one process: a device that polls after the write still finds the push, and its
        // first poll with an ack is not taken for a device arriving from another instance.
        try await withCloud { cloud in
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let phone = try await cloud.signIn("alice", device: "phone")
            try await cloud.createTodosZone(laptop)
            try await cloud.subscribe(laptop)
            let courier = try await cloud.registerPush(phone)
            #expect(try await cloud.poll(courier, timeout: 0.3, ack: "") == nil)
            _ = try await cloud.modify(laptop, [RecordOperation(.create, todo("t1", "x"))])
            let push = try #require(try await cloud.poll(courier, timeout: 5, ack: ""))
            #expect(push.ck.met != nil)
        }
    }
}

/// Two real cloud instances on one PostgreSQL database: a write on one wakes a device long-polling the other.
@Suite("Push across instances on PostgreSQL")
struct PushAcrossPostgresInstancesTests {
    @Test func aWriteOnOneInstanceReachesADevicePollingAnotherAndARollbackNothing() async throws {
        try await PostgresTestDatabase.with { database in
            try await TestCloud.withTwoInstances(database) { a, b in
                let laptop = try await a.signIn("alice", device: "laptop")
                let phone = try await b.signIn("alice", device: "phone")
                try await a.createTodosZone(laptop)
                try await a.subscribe(laptop)
                let laptopCourier = try await a.registerPush(laptop)
                let phoneCourier = try await b.registerPush(phone)
                // Each device's mailbox lives where it polls: the laptop on A, the phone on B.
                #expect(try await a.poll(laptopCourier, timeout: 0.05) == nil)
                #expect(try await b.poll(phoneCourier, timeout: 0.05) == nil)

                async let phonePush = b.poll(phoneCourier, timeout: 10)
                async let laptopPush = a.poll(laptopCourier, timeout: 1.5)
                try await b.waitForPoll(phoneCourier)
                try await a.waitForPoll(laptopCourier)
                _ = try await a.modify(laptop, [RecordOperation(.create, todo("t1", "Written on A"))])
                let received = try #require(try await phonePush)
                #expect(received.ck.met?.sid == TodoSchema.privateSubscriptionID)
                #expect(received.scope == .private)
                // Never to the writer, whichever instance it polls.
                #expect(try await laptopPush == nil)

                // A batch that rolls back on A sends nothing to B.
                let failed = try await a.modify(
                    laptop, [RecordOperation(.create, todo("t2", "Written?")), RecordOperation(.update, todo("missing", "No such todo"))])
                #expect(failed.allSatisfy { $0.error != nil })
                #expect(try await b.poll(phoneCourier, timeout: 1, ack: received.ck.nid) == nil)
            }
        }
    }

    @Test func aDeviceMovingToAnotherInstanceIsToldToResync() async throws {
        try await PostgresTestDatabase.with { database in
            try await TestCloud.withTwoInstances(database) { a, b in
                let phone = try await a.signIn("alice", device: "phone")
                let courier = try await a.registerPush(phone)
                // The same token polled on B (its instance died, the balancer moved it), with the ack the app sends.
                let moved = courier.replacingOccurrences(of: a.server.baseURL.absoluteString, with: b.server.baseURL.absoluteString)
                #expect(moved != courier)
                let resync = try #require(try await b.poll(moved, timeout: 5, ack: ""))
                #expect(resync.ck.met == nil && resync.ck.qry == nil)
                #expect(try await b.poll(moved, timeout: 0.3, ack: resync.ck.nid) == nil)
            }
        }
    }

    @Test func aLostListenerAnswersWaitingDevicesAtOnceAndPushesFlowAgain() async throws {
        try await PostgresTestDatabase.with { database in
            try await TestCloud.withTwoInstances(database) { a, b in
                let laptop = try await a.signIn("alice", device: "laptop")
                let phone = try await b.signIn("alice", device: "phone")
                try await a.createTodosZone(laptop)
                try await a.subscribe(laptop)
                let courier = try await b.registerPush(phone)
                #expect(try await b.poll(courier, timeout: 0.05) == nil)

                async let waiting = b.poll(courier, timeout: 30)
                try await b.waitForPoll(courier)
                let admin = try await PostgresConnection.connect(
                    configuration: try database.url.connectionConfiguration(), id: 9, logger: Logger(label: "cloudtodo.test.fanout"))
                var ended = 0
                for try await count in try await admin.query(
                    """
                    SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity
                    WHERE application_name = \(NotificationListener.applicationName) AND datname = current_database()
                    """, logger: Logger(label: "cloudtodo.test.fanout")
                ).decode(Int.self) { ended = count }
                #expect(ended == 2)
                // Answered by the loss, not its 30 s timeout (which answers nothing): a push naming no subscription.
                let answer = try #require(try await waiting)
                #expect(answer.ck.met == nil && answer.ck.qry == nil)
                try await admin.close()

                // The listeners come back; a later write on A reaches the phone on B again.
                var last = answer
                let delivered = try await firstValue(within: 20) { () async throws -> PushNotification? in
                    _ = try await a.modify(laptop, [RecordOperation(.forceUpdate, todo("t", "Again"))])
                    guard let push = try await b.poll(courier, timeout: 1, ack: last.ck.nid) else { return nil }
                    last = push
                    return push.ck.met != nil ? push : nil
                }
                #expect(delivered?.ck.met?.sid == TodoSchema.privateSubscriptionID)
            }
        }
    }
}
