import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing

@testable import CloudServer

/// The device's push long-poll: acknowledgements and the delays it takes from the network.
@Suite("Push channel")
struct PushChannelTests {
    @Test func aNotificationWhoseAnswerWasLostIsDeliveredAgain() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let transport = FaultInjectingTransport(wrapping: HTTPClientTransport())
        let client = CloudClient(baseURL: cloud.baseURL, transport: transport)
        _ = try await client.createAccount(account: "alice", password: "password-alice")
        _ = try await client.signIn(account: "alice", password: "password-alice", deviceName: "laptop")
        let sender = CloudClient(baseURL: cloud.baseURL)
        _ = try await sender.signIn(account: "alice", password: "password-alice", deviceName: "phone")

        // The first courier answer is cut on its way back: the cloud handed the notification out, the device never saw it.
        transport.plan(.init(pathContains: "/courier/", count: 1, kind: .loseResponse))
        let channel = PushChannel(client: client, pollTimeout: 5, minimumBackoff: 0.05, maximumBackoff: 0.2)
        let received = LockedValue<[PushNotification]>([])
        let listening = Task {
            for await push in channel.notifications() { received.withLock { $0.append(push) } }
        }
        defer {
            channel.stop()
            listening.cancel()
        }
        // Sent once the channel registered its token.
        #expect(await eventually(30) { (try? await sender.sendTestPush(toDevice: "laptop")) != nil })

        #expect(await eventually(30) { received.withLock { !$0.isEmpty } }, "the lost notification never came again")
        // Acknowledged by the next poll, it is not delivered a third time: a second push, which the mailbox hands out
        // after anything still in it, arrives next.
        try await sender.sendTestPush(toDevice: "laptop")
        #expect(await eventually(30) { received.withLock { $0.count >= 2 } })
        let nids = received.withLock { $0.map(\.ck.nid) }
        #expect(nids.count == 2 && Set(nids).count == 2, "\(nids)")
        #expect(transport.sentPaths.filter { $0.contains("/courier/") }.count >= 3, "polls: cut, redelivered, acknowledging")
    }

    @Test func aDeviceRevokedWhilePollingIsToldItsSessionEnded() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let client = CloudClient(baseURL: cloud.baseURL)
        _ = try await client.createAccount(account: "alice", password: "password-alice")
        _ = try await client.signIn(account: "alice", password: "password-alice", deviceName: "laptop")
        let phone = CloudClient(baseURL: cloud.baseURL)
        _ = try await phone.signIn(account: "alice", password: "password-alice", deviceName: "phone")
        // A long poll: only the cloud's sweep of polls whose token went with the session ends it early.
        let channel = PushChannel(client: client, pollTimeout: 300, minimumBackoff: 0.05, maximumBackoff: 0.2)
        let events = LockedValue<[PushChannel.Event]>([])
        let listening = Task {
            for await event in channel.events() { events.withLock { $0.append(event) } }
        }
        defer {
            channel.stop()
            listening.cancel()
        }
        #expect(await eventually(30) { events.withLock { $0.contains(.connected) } })
        _ = try await phone.revokeDevice(named: "laptop")
        #expect(await eventually(30) {
            events.withLock { $0.contains { if case .sessionEnded = $0 { true } else { false } } }
        }, "the channel never said the session ended: \(events.withLock { $0 })")
        let told = events.withLock { $0.filter { if case .sessionEnded = $0 { true } else { false } } }
        #expect(told.count == 1, "told more than once: \(told)")
    }

    @Test func delaysFromTheNetworkAreClamped() {
        let cap = PushChannel.maximumRetryDelay
        #expect(PushChannel.retryDelay(backoff: 0.2, jitter: 1, retryAfter: nil) == 0.2)
        #expect(PushChannel.retryDelay(backoff: 0.2, jitter: 1, retryAfter: 3) == 3)
        for hostile in [1.9e10, 1e300, Double.infinity, Double.greatestFiniteMagnitude] {
            #expect(PushChannel.retryDelay(backoff: 0.2, jitter: 1.2, retryAfter: hostile) == cap, "\(hostile)")
        }
        for nonsense in [-5, -Double.infinity, Double.nan] {
            #expect(PushChannel.retryDelay(backoff: 0.2, jitter: 1, retryAfter: nonsense) == 0.2, "\(nonsense)")
        }
        #expect(PushChannel.retryDelay(backoff: .infinity, jitter: 1, retryAfter: nil) == cap)
    }

    /// The poll asks for the courier's longest wait (300 s): only `stop()` can end the listening before that, and the
    /// listening task's end is the event the test waits for.
    @Test func aLongPollOutlivesShortDeadlinesAndStopsAtOnce() async throws {
        // The courier holds a poll for up to `pollTimeout` seconds; the channel's transport waits that long (no
        // idle read timeout cuts it) and `stop()` ends the waiting poll at once, its connection with it.
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let client = CloudClient(baseURL: cloud.baseURL, transport: try CloudTransport.make())
        _ = try await client.createAccount(account: "alice", password: "password-alice")
        _ = try await client.signIn(account: "alice", password: "password-alice", deviceName: "laptop")
        let sender = CloudClient(baseURL: cloud.baseURL, transport: try CloudTransport.make())
        _ = try await sender.signIn(account: "alice", password: "password-alice", deviceName: "phone")
        let channel = PushChannel(client: client, pollTimeout: 300, minimumBackoff: 0.05, maximumBackoff: 0.2)
        let received = LockedValue<[PushNotification]>([])
        let listening = Task {
            for await push in channel.notifications() { received.withLock { $0.append(push) } }
        }
        #expect(await eventually(30) { (try? await sender.sendTestPush(toDevice: "laptop")) != nil })
        #expect(await eventually(30) { received.withLock { !$0.isEmpty } })
        // A poll now waits on the courier; a push after a quiet while still arrives on it. The quiet while is the
        // phone's own 2 s poll, begun after the laptop's and ended by the cloud with nothing.
        let hub = cloud.server.service.hub
        #expect(await eventually { await !hub.pollingTokens().isEmpty })
        let witness = try await sender.createPushToken()
        try await sender.registerPushToken(witness.apnsToken)
        #expect(try await sender.pollNotification(courierURL: try #require(URL(string: witness.webcourierURL)), timeout: 2) == nil)
        try await sender.sendTestPush(toDevice: "laptop")
        #expect(await eventually(30) { received.withLock { $0.count >= 2 } })
        channel.stop()
        #expect(await ends { await listening.value }, "stop() ended the listening, its 300 s poll with it")
        listening.cancel()
    }

    @Test func anInfiniteRetryAfterHeaderDoesNotTrapTheChannel() async throws {
        // A cloud that answers every courier poll `503` with `Retry-After: inf`: the channel waits (clamped) and
        // stops cleanly instead of trapping on the conversion to nanoseconds.
        let transport = InfiniteRetryAfterTransport()
        let client = CloudClient(baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport, authToken: "t")
        let channel = PushChannel(client: client, pollTimeout: 1, minimumBackoff: 0.01, maximumBackoff: 0.02)
        let events = channel.events()
        let reading = Task { for await _ in events {} }
        #expect(await eventually(30) { transport.polls.withLock { $0 } >= 1 })
        channel.stop()
        await reading.value
    }
}

/// Hands out a push token, then answers every poll with `503` and `Retry-After: inf`.
private final class InfiniteRetryAfterTransport: HTTPTransport {
    let polls = LockedValue(0)

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        if path.hasSuffix("tokens/create") {
            let body = #"{"apnsToken":"abc","apnsEnvironment":"development","webcourierURL":"http://127.0.0.1:9/device/1/c/development/courier/abc"}"#
            return HTTPResponse(status: 200, headers: [:], body: Data(body.utf8))
        }
        if path.hasSuffix("tokens/register") {
            return HTTPResponse(status: 200, headers: [:], body: Data(#"{"apnsEnvironment":"development","apnsToken":"abc"}"#.utf8))
        }
        polls.withLock { $0 += 1 }
        return HTTPResponse(status: 503, headers: ["retry-after": "inf"], body: Data("busy".utf8))
    }
}
