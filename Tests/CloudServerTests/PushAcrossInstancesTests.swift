import CloudModel
import Foundation
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
