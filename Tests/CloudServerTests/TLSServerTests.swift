import CloudModel
import CloudServer
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TLSTestSupport
import TestSupport
import Testing

/// The cloud serving HTTPS with `--tls-cert/--tls-key`, and its start-up errors for certificate files that cannot
/// serve.
@Suite("TLS on the cloud", .enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
struct TLSServerTests {
    let authority: TestCertificateAuthority

    init() async throws {
        authority = try await TestCertificateAuthority(
            in: ScratchDirectory.path("ca"))
    }

    @Test func servesHTTPSThatAClientTrustingTheAuthorityVerifies() async throws {
        let issued = try await authority.issue("cloud")
        try await withCloud(configure: { $0.useTLS(issued) }) { cloud in
            #expect(cloud.server.baseURL.absoluteString == "https://127.0.0.1:\(cloud.server.port)")
            try await TLSTestClient.with(trusting: authority.certificate) { client in
            let health = try await client.send(.GET, cloud.server.baseURL.absoluteString + "/health")
            #expect(health.status == 200)

            // A whole sign-in and a write over TLS.
            let base = cloud.server.baseURL.absoluteString
            _ = try await client.send(
                .POST, base + cloud.address.authPath("accounts"),
                body: try JSONEncoder().encode(CreateAccountRequest(account: "tls", password: "tls-password-1")))
            let signIn: SignInResponse = try await client.post(
                base + cloud.address.authPath("signin"), SignInRequest(account: "tls", password: "tls-password-1", deviceName: "laptop"))
            let zones: ZonesResponse = try await client.post(
                base + cloud.address.databasePath(.private, "zones/modify"), ModifyZonesRequest(operations: [.init(.create, todos)]),
                token: signIn.ckWebAuthToken)
            #expect(zones.zones.first?.zone != nil)
            let saved: RecordsResponse = try await client.post(
                base + cloud.address.databasePath(.private, "records/modify"),
                ModifyRecordsRequest(operations: [.init(.create, todo("t1", "Over TLS"))], zoneID: todos), token: signIn.ckWebAuthToken)
            #expect(saved.records.first?.record?.recordName == "t1")

            // Upload and courier URLs the cloud hands out say https.
            let created: CreateTokenResponse = try await client.post(
                base + cloud.address.devicePath("tokens/create"), CreateTokenRequest(), token: signIn.ckWebAuthToken)
            #expect(created.webcourierURL.hasPrefix("https://127.0.0.1:\(cloud.server.port)/"))
            }
        }
    }

    @Test func aClientTrustingAnotherAuthorityIsRefused() async throws {
        let issued = try await authority.issue("cloud")
        let stranger = try await TestCertificateAuthority(
            in: ScratchDirectory.path("ca"), name: "Stranger CA")
        try await withCloud(configure: { $0.useTLS(issued) }) { cloud in
            try await TLSTestClient.with(trusting: stranger.certificate) { client in
                let refused = await #expect(throws: (any Error).self) {
                    _ = try await client.send(.GET, cloud.server.baseURL.absoluteString + "/health")
                }
                #expect(refused != nil)
            }
        }
    }

    @Test func servesHTTPSOnIPv6Loopback() async throws {
        let issued = try await authority.issue("cloud6")
        try await withCloud(configure: { $0.host = "::1"; $0.useTLS(issued) }) { cloud in
            #expect(cloud.server.baseURL.absoluteString == "https://[::1]:\(cloud.server.port)")
            try await TLSTestClient.with(trusting: authority.certificate) { client in
                let health = try await client.send(.GET, cloud.server.baseURL.absoluteString + "/health")
                #expect(health.status == 200)
            }
        }
    }

    @Test func aKeyOfAnotherCertificateIsAStartUpErrorNamingTheFiles() async throws {
        let one = try await authority.issue("one")
        let other = try await authority.issue("other")
        let error = try await startFailure { $0.tlsCertificateFile = one.certificate; $0.tlsKeyFile = other.key }
        #expect(error.contains(other.key.path))
        #expect(error.contains("does not belong"))
    }

    @Test func aMissingOrUnreadableCertificateIsAStartUpErrorNamingTheFile() async throws {
        let issued = try await authority.issue("cloud")
        let missing = authority.directory.appendingPathComponent("missing.pem")
        let absent = try await startFailure { $0.tlsCertificateFile = missing; $0.tlsKeyFile = issued.key }
        #expect(absent.contains("cannot read the TLS certificate \(missing.path)"))

        let garbage = authority.directory.appendingPathComponent("garbage.pem")
        try Data("not a certificate\n".utf8).write(to: garbage)
        let notPEM = try await startFailure { $0.tlsCertificateFile = garbage; $0.tlsKeyFile = issued.key }
        #expect(notPEM.contains(garbage.path))

        let notKey = try await startFailure { $0.tlsCertificateFile = issued.certificate; $0.tlsKeyFile = issued.certificate }
        #expect(notKey.contains("TLS key \(issued.certificate.path)"))

        let lonely = try await startFailure { $0.tlsCertificateFile = issued.certificate }
        #expect(lonely.contains("--tls-key"))
    }

    @Test func anExpiredCertificateIsRefusedAtStart() async throws {
        let expired = try await authority.issue("old", validity: .expired)
        let error = try await startFailure { $0.useTLS(expired) }
        #expect(error.contains("expired"))
        #expect(error.contains(expired.certificate.path))
    }

    /// The reason `CloudServer.start` gives for a configuration it refuses.
    private func startFailure(_ configure: (inout ServerConfiguration) -> Void) async throws -> String {
        let directory = ScratchDirectory.path("tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(port: 0, dataDirectory: directory, logLevel: .critical)
        configure(&configuration)
        do {
            let server = try await CloudServer.start(configuration)
            await server.shutdown()
            Issue.record("the cloud started")
            return ""
        } catch let error as ServerStartError {
            return error.reason
        }
    }
}

extension ServerConfiguration {
    /// Serves HTTPS with an issued certificate.
    mutating func useTLS(_ issued: TestCertificateAuthority.Issued) {
        tlsCertificateFile = issued.certificate
        tlsKeyFile = issued.key
    }
}
