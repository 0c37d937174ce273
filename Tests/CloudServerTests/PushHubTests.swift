import CloudModel
import Foundation
import TestSupport
import Testing

@testable import CloudServer

@Suite("Push hub: mailboxes on a cloud of several instances")
struct PushHubTests {
    private func notification(_ sid: String = "private-changes") -> PushNotification {
        PushNotification(ck: .init(nid: UUID().uuidString, cid: "c/development", met: .init(sid: sid, dbs: 1)))
    }

    @Test func withoutCreatingMailboxesOnlyATokenThatPolledHereGetsNotices() async throws {
        let hub = PushHub()
        await hub.deliver(notification(), to: "elsewhere", createMailbox: false)
        #expect(await hub.mailboxCount == 0)
        // A token that polled here keeps its mailbox between polls, and its notices wait there.
        #expect(await hub.poll(token: "here", timeout: .milliseconds(10), ack: nil, user: "_alice", container: "c/development") == nil)
        #expect(await hub.hostsTokens(of: "_alice"))
        #expect(await !hub.hostsTokens(of: "_bob"))
        let sent = notification()
        await hub.deliver(sent, to: "here", createMailbox: false)
        #expect(await hub.poll(token: "here", timeout: .seconds(5), ack: nil) == sent)
    }

    @Test func aDeviceArrivingFromAnotherInstanceIsToldToResync() async throws {
        let hub = PushHub()
        // It polls with an ack: it was polling somewhere before, and notices may have passed it by.
        let first = try #require(
            await hub.poll(token: "t", timeout: .seconds(5), ack: "older", user: "_alice", container: "c/development", resyncNewcomers: true))
        #expect(first.ck.met == nil && first.ck.qry == nil)
        #expect(first.ck.cid == "c/development")
        // Once acknowledged, it waits like any poll.
        #expect(await hub.poll(token: "t", timeout: .milliseconds(50), ack: first.ck.nid, resyncNewcomers: true) == nil)
        // A brand-new device (no ack yet) is not.
        #expect(await hub.poll(token: "new", timeout: .milliseconds(50), ack: nil, container: "c/development", resyncNewcomers: true) == nil)
    }

    @Test func resyncAllAnswersWaitersAtOnceAndLeavesOneForTheOthers() async throws {
        let hub = PushHub()
        #expect(await hub.poll(token: "away", timeout: .milliseconds(1), ack: nil, user: "_bob", container: "c/development") == nil)
        let waiting = Task { await hub.poll(token: "waiting", timeout: .seconds(30), ack: nil, user: "_alice", container: "c/development") }
        try await waitUntil("the poll to wait") { await hub.isPolling(token: "waiting") }
        #expect(await hub.resyncAll() == 2)
        // Answered by the resync, not its 30 s timeout (which answers nothing): a push naming no subscription.
        let answered = try #require(await waiting.value)
        #expect(answered.ck.met == nil && answered.ck.qry == nil)
        let kept = try #require(await hub.poll(token: "away", timeout: .seconds(1), ack: nil))
        #expect(kept.ck.met == nil)
        // Two resyncs in a row coalesce into one.
        await hub.resyncAll()
        await hub.resyncAll()
        let once = try #require(await hub.poll(token: "away", timeout: .seconds(1), ack: kept.ck.nid))
        #expect(await hub.poll(token: "away", timeout: .milliseconds(50), ack: once.ck.nid) == nil)
    }

    @Test func forgettingAMailboxForgetsWhoseItWas() async throws {
        let hub = PushHub()
        _ = await hub.poll(token: "a", timeout: .milliseconds(1), ack: nil, user: "_alice", container: "c")
        #expect(await hub.hostsTokens(of: "_alice"))
        #expect(await hub.retainMailboxes(of: []) == 1)
        #expect(await !hub.hostsTokens(of: "_alice"))
        #expect(await !hub.hostsAnyToken)
    }
}
