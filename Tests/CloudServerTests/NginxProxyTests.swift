import CloudModel
import CloudServer
import Foundation
import NIOCore
import NIOHTTP1
import TLSTestSupport
import TestSupport
import Testing

/// docs/HOSTING.md's nginx snippet, run for real: Debian's nginx terminates TLS (a certificate from the test CA) and
/// proxies to the cloud serving plain HTTP on loopback with `--insecure-http`.
@Suite(
    "nginx in front",
    .enabled(if: NginxProxy.isAvailable, "nginx is not installed (apt-get install nginx)"),
    .enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
struct NginxProxyTests {
    @Test func signInWritesChangesAndAPushLongPollThroughNginx() async throws {
        let scratch = ScratchDirectory.path("nginx")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let authority = try await TestCertificateAuthority(in: scratch.appendingPathComponent("ca"))
        let issued = try await authority.issue("nginx", hosts: ["localhost", "127.0.0.1"])
        let cloud = try await TestCloud(configure: { $0.insecureHTTP = true })
        let port = try NginxProxy.freePort()
        let site = try Self.readmeSite(cloudPort: cloud.server.port, port: port, certificate: issued)
        let nginx: NginxProxy
        do {
            nginx = try await NginxProxy(site: site, port: port, directory: scratch.appendingPathComponent("nginx"))
        } catch {
            await cloud.close()
            throw error
        }
        do {
            try await TLSTestClient.with(trusting: authority.certificate) { client in
                try await Self.drive(cloud: cloud, through: "https://127.0.0.1:\(port)", client: client)
            }
        } catch {
            Issue.record("nginx log: \(nginx.log)")
            await nginx.stop()
            await cloud.close()
            throw error
        }
        await nginx.stop()
        await cloud.close()
    }

    /// /health, accounts, a zone, a subscription, a push long-poll answered by a write, and the change feed: all
    /// through `base`.
    private static func drive(cloud: TestCloud, through base: String, client: TLSTestClient) async throws {
        let address = cloud.address
        #expect(try await client.send(.GET, base + "/health").status == 200)

        let created = try await client.send(
            .POST, base + address.authPath("accounts"),
            body: try JSONEncoder().encode(CreateAccountRequest(account: "proxied", password: "proxied-password")))
        #expect((200..<300).contains(created.status))
        let laptop: SignInResponse = try await client.post(
            base + address.authPath("signin"), SignInRequest(account: "proxied", password: "proxied-password", deviceName: "laptop"))
        let phone: SignInResponse = try await client.post(
            base + address.authPath("signin"), SignInRequest(account: "proxied", password: "proxied-password", deviceName: "phone"))

        let zones: ZonesResponse = try await client.post(
            base + address.databasePath(.private, "zones/modify"), ModifyZonesRequest(operations: [.init(.create, todos)]),
            token: laptop.ckWebAuthToken)
        #expect(zones.zones.first?.zone != nil)
        let subscription = Subscription(subscriptionID: TodoSchema.privateSubscriptionID, subscriptionType: .database)
        let _: SubscriptionsResponse = try await client.post(
            base + address.databasePath(.private, "subscriptions/modify"),
            ModifySubscriptionsRequest(operations: [.init(.create, subscription)]), token: phone.ckWebAuthToken)

        // The phone's courier URL leads back through nginx over HTTPS (Host and X-Forwarded-Proto).
        let token: CreateTokenResponse = try await client.post(
            base + address.devicePath("tokens/create"), CreateTokenRequest(), token: phone.ckWebAuthToken)
        #expect(token.webcourierURL.hasPrefix(base + "/device/1/"))
        let registered = try await client.send(
            .POST, base + address.devicePath("tokens/register"),
            body: try JSONEncoder().encode(RegisterTokenRequest(apnsToken: token.apnsToken)), token: phone.ckWebAuthToken)
        #expect(registered.status == 200)

        // The long-poll waits in nginx and the cloud until the laptop writes.
        let poll = Task { try await client.send(.GET, token.webcourierURL + "?timeout=60", timeout: .seconds(90)) }
        try await cloud.waitForPoll(token.webcourierURL)
        let saved: RecordsResponse = try await client.post(
            base + address.databasePath(.private, "records/modify"),
            ModifyRecordsRequest(operations: [.init(.create, todo("n1", "Through nginx"))], zoneID: todos), token: laptop.ckWebAuthToken)
        #expect(saved.records.first?.record?.recordName == "n1")
        let pushed = try await poll.value
        #expect(pushed.status == 200)
        let notification = try JSONDecoder().decode(PushNotification.self, from: pushed.body)
        #expect(notification.aps.contentAvailable == 1)

        let changes: ZoneChangesResponse = try await client.post(
            base + address.databasePath(.private, "changes/zone"), ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]),
            token: phone.ckWebAuthToken)
        #expect(changes.zones.first?.records.map(\.recordName) == ["n1"])
    }

    /// The nginx block of docs/HOSTING.md, pointed at this test's ports and certificate.
    static func readmeSite(cloudPort: Int, port: Int, certificate: TestCertificateAuthority.Issued) throws -> String {
        try NginxProxy.readmeSite(
            after: "<!-- nginx snippet",
            replacing: [
                ("server 127.0.0.1:8787;", "server 127.0.0.1:\(cloudPort);"),
                ("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
                ("server_name cloud.example.com;", "server_name localhost;"),
                ("/etc/letsencrypt/live/cloud.example.com/fullchain.pem", certificate.certificate.path),
                ("/etc/letsencrypt/live/cloud.example.com/privkey.pem", certificate.key.path),
            ])
    }
}
