@testable import CloudServer
import CloudModel
import Foundation
import Logging
import SQLiteDB
import TestSupport
import Testing

/// Sessions: one per device, ended by idleness, listed and revoked by name.
@Suite("Sessions and devices")
struct SessionTests {
    private func caller(_ cloud: TestCloud, _ token: String) async throws -> (status: Int, body: Data) {
        try await cloud.raw("POST", cloud.address.databasePath(.private, "users/caller"), body: Data("{}".utf8), token: token)
    }

    private func devices(_ cloud: TestCloud, _ endpoint: String, _ body: some Encodable, token: String) async throws -> (status: Int, body: Data) {
        try await cloud.raw("POST", cloud.address.devicePath("devices/\(endpoint)"), body: try JSONEncoder().encode(body), token: token)
    }

    @Test func signingInAgainAsTheSameDeviceReplacesItsSession() async throws {
        try await withCloud { cloud async throws in
            let first = try await cloud.signIn("alice", device: "laptop")
            let phone = try await cloud.signIn("alice", device: "phone")
            let second = try await cloud.signIn("alice", device: "laptop")
            #expect(second.deviceID == first.deviceID)
            #expect(try await caller(cloud, first.token).status == 401)
            #expect(try await caller(cloud, second.token).status == 200)
            #expect(try await caller(cloud, phone.token).status == 200)
            let store = try await SQLiteCloudStore.open(directory: cloud.directory)
            #expect(try await store.read { try await $0.signedInDevices(user: first.user) }.map(\.name) == ["laptop", "phone"])
        }
    }

    @Test func devicesAreListedAndRevokedByName() async throws {
        try await withCloud { cloud async throws in
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let phone = try await cloud.signIn("alice", device: "phone")
            _ = try await cloud.signIn("bob", device: "desk")
            let listed = try await devices(cloud, "list", EmptyBody(), token: laptop.token)
            #expect(listed.status == 200)
            let list = try JSONDecoder().decode(DevicesResponse.self, from: listed.body).devices
            #expect(list.map(\.deviceName) == ["laptop", "phone"])
            #expect(list.map(\.current) == [true, false])
            #expect(list[0].deviceID == laptop.deviceID)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for device in list { #expect(abs(device.lastUsed - now) < 60_000 && device.created <= device.signedIn) }

            let revoked = try await devices(cloud, "revoke", RevokeDeviceRequest(deviceName: "phone"), token: laptop.token)
            #expect(revoked.status == 200)
            #expect(try JSONDecoder().decode(DevicesResponse.self, from: revoked.body).devices.map(\.deviceName) == ["phone"])
            #expect(try await caller(cloud, phone.token).status == 401)
            #expect(try await caller(cloud, laptop.token).status == 200)

            // Another account's device, or one that is gone, is not found; nobody revokes without signing in.
            let other = try await devices(cloud, "revoke", RevokeDeviceRequest(deviceName: "desk"), token: laptop.token)
            #expect(other.status == 404)
            #expect(try await devices(cloud, "revoke", RevokeDeviceRequest(deviceName: "phone"), token: laptop.token).status == 404)
            #expect(try await cloud.raw("POST", cloud.address.devicePath("devices/list"), body: Data("{}".utf8)).status == 421)
        }
    }

    /// Moves a device's recorded last use (its session's and its push tokens') back by `days`, as if unused since.
    private func age(_ cloud: TestCloud, device: Device, days: Double) async throws {
        let then = Int64((Date().timeIntervalSince1970 - days * 86400) * 1000)
        try await SQLiteCloudStore.open(directory: cloud.directory).write { tx in
            let db = (tx as! SQLiteStoreTransaction).db
            try db.run("UPDATE sessions SET last_used_at = ?2 WHERE device_id = ?1", [.text(device.deviceID), .int(then)])
            try db.run("UPDATE push_tokens SET last_used_at = ?2 WHERE device_id = ?1", [.text(device.deviceID), .int(then)])
        }
    }

    private func lastUse(_ cloud: TestCloud, device: Device) async throws -> Int64? {
        try await SQLiteCloudStore.open(directory: cloud.directory).read { tx in
            try (tx as! SQLiteStoreTransaction).db.first(
                "SELECT last_used_at FROM sessions WHERE device_id = ?1", [.text(device.deviceID)]) { $0.int(0) }
        }
    }

    @Test func sessionsEndAfterNinetyDaysUnused() async throws {
        // The default idle time: 90 days.
        try await withCloud { cloud async throws in
            let away = try await cloud.signIn("alice", device: "laptop")
            let back = try await cloud.signIn("alice", device: "phone")
            let swept = try await cloud.signIn("alice", device: "tablet")
            _ = try await cloud.registerPush(swept)
            try await age(cloud, device: away, days: 90.01)
            try await age(cloud, device: back, days: 89.99)
            try await age(cloud, device: swept, days: 91)

            let ended = try await caller(cloud, away.token)
            #expect(ended.status == 401)
            #expect(try JSONDecoder().decode(ServerError.self, from: ended.body).reason.contains("ended after 90 days unused"))
            #expect(try await lastUse(cloud, device: away) == nil)
            // Used in time: the session goes on, and its use is recorded (it was older than the recording interval).
            #expect(try await caller(cloud, back.token).status == 200)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(abs(try #require(try await lastUse(cloud, device: back)) - now) < 60_000)

            // Compaction ends idle sessions nobody presents, with their push tokens and mailboxes.
            #expect(try await cloud.raw("POST", "/admin/1/compact").status == 200)
            #expect(try await lastUse(cloud, device: swept) == nil)
            #expect(try await SQLiteCloudStore.open(directory: cloud.directory).read { try await $0.allPushTokens() }.isEmpty)
            #expect(try await caller(cloud, swept.token).status == 401)
        }
    }

    @Test func lastUseIsRecordedCoarsely() async throws {
        try await withCloud { cloud async throws in
            let device = try await cloud.signIn("alice", device: "laptop")
            let signedIn = try #require(try await lastUse(cloud, device: device))
            for _ in 0..<5 { #expect(try await caller(cloud, device.token).status == 200) }
            // Within the hour nothing is written again.
            #expect(try await lastUse(cloud, device: device) == signedIn)
        }
    }

    @Test func pushTokensNeedASignedInDeviceAndDoNotPileUp() async throws {
        try await withCloud { cloud async throws in
            let anonymous = try await cloud.raw("POST", cloud.address.devicePath("tokens/create"), body: try JSONEncoder().encode(CreateTokenRequest()))
            #expect(anonymous.status == 421)
            let laptop = try await cloud.signIn("alice", device: "laptop")
            let phone = try await cloud.signIn("alice", device: "phone")
            _ = try await cloud.registerPush(phone)
            for _ in 0..<40 {
                let created = try await cloud.raw(
                    "POST", cloud.address.devicePath("tokens/create"), body: try JSONEncoder().encode(CreateTokenRequest()), token: laptop.token)
                #expect(created.status == 200)
            }
            _ = try await cloud.registerPush(laptop)
            let store = try await SQLiteCloudStore.open(directory: cloud.directory)
            // The phone's token, the laptop's registered one and at most a few it created and never registered.
            let count = try await store.read { try await $0.allPushTokens().count }
            #expect(count >= 2 && count <= 2 + SQLiteStoreTransaction.unregisteredTokensPerDevice)
            // Ending a session forgets its device's tokens.
            #expect(try await cloud.raw("POST", cloud.address.authPath("signout"), token: laptop.token).status == 200)
            #expect(try await store.read { try await $0.allPushTokens().count } == 1)
        }
    }

    @Test func mailboxesOfGoneTokensAreDropped() async {
        let hub = PushHub()
        let notification = PushNotification(ck: .init(nid: "n1", cid: "c", met: .init(sid: "s", dbs: 0)))
        for token in ["a", "b", "c"] { await hub.deliver(notification, to: token) }
        let waiting = Task { await hub.poll(token: "d", timeout: .seconds(30), ack: nil) }
        #expect(await eventually { await hub.isPolling(token: "d") })
        #expect(await hub.mailboxCount == 4)
        #expect(await hub.retainMailboxes(of: ["b"]) == 3)
        #expect(await hub.mailboxCount == 1)
        // The dropped token's waiting poll ends at once, with nothing.
        #expect(await waiting.value == nil)
    }

    @Test func pushTokensNeverReachTheLog() async throws {
        // Installed before the cloud makes its logger.
        _ = LogCapture.shared
        try await withCloud(logLevel: .info) { cloud async throws in
            let device = try await cloud.signIn("alice", device: "laptop")
            let courier = try await cloud.registerPush(device)
            let token = String(courier.split(separator: "/").last ?? "")
            #expect(token.count == 64)
            _ = try await cloud.poll(courier, timeout: 0.1)
            let log = LogCapture.shared.text
            #expect(log.contains("courier/(push token) 204"), "the long-poll was not logged at all")
            #expect(!log.contains(token))
        }
    }
}

/// Every log line of this test process's cloud loggers (installed once: swift-log has one global factory).
final class LogCapture: @unchecked Sendable {
    static let shared: LogCapture = {
        let capture = LogCapture()
        LoggingSystem.bootstrap { _ in Handler(capture: capture) }
        return capture
    }()

    private let lock = NSLock()
    private var lines: [String] = []

    /// Everything logged so far.
    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    fileprivate func append(_ line: String) { lock.withLock { lines.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
        }
    }
}
