@testable import CloudClient
import CloudModel
import Foundation
import TLSTestSupport
import TestSupport
import Testing

/// https through `CloudTransport.make`: a private CA given with `caFile` is trusted, and each kind of certificate
/// that must not be trusted is refused with words that name the problem.
@Suite("TLS: certificates the device trusts and refuses")
struct TLSTransportTests {
    /// An authority in a fresh directory, or nil (with a line) when openssl is missing.
    func authority(_ name: String = "ca") async throws -> TestCertificateAuthority? {
        guard TestCertificateAuthority.isAvailable else {
            print("skipped: openssl is not available")
            return nil
        }
        return try await TestCertificateAuthority(in: ScratchDirectory.make("tls-\(name)"), name: "CloudTodo Test \(name)")
    }

    /// The words of the `TransportError` a GET of `url` fails with. The request's bound is generous: a refusal comes
    /// in milliseconds, but a whole run at a load of 18 once took longer than 10 s over the handshake.
    func refusal(_ transport: any HTTPTransport, _ url: String) async -> String {
        await TransportConformanceTests().failure(transport, HTTPRequest(method: "GET", url: URL(string: url)!, timeout: 60))
    }

    @Test func aCertificateOfTheGivenAuthorityIsTrustedByNameAndAddress() async throws {
        guard let ca = try await authority() else { return }
        let server = try await TLSTestServer(ca.issue("cloud"))
        defer { Task { await server.stop() } }
        let transport = try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path))
        for host in ["localhost", "127.0.0.1"] {
            let response = try await transport.send(HTTPRequest(method: "GET", url: URL(string: "https://\(host):\(server.port)/health")!))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "ok")
        }
    }

    @Test func aBundleOfSeveralAuthoritiesIsRead() async throws {
        guard let ca = try await authority(), let other = try await authority("other") else { return }
        let server = try await TLSTestServer(ca.issue("cloud"))
        defer { Task { await server.stop() } }
        let bundle = ca.directory.appendingPathComponent("bundle.pem")
        try (Data(contentsOf: other.certificate) + Data(contentsOf: ca.certificate)).write(to: bundle)
        let transport = try CloudTransport.make(trust: TrustSettings(caFile: bundle.path))
        let response = try await transport.send(HTTPRequest(method: "GET", url: URL(string: "https://localhost:\(server.port)/")!))
        #expect(response.status == 200)
    }

    @Test func anIPv6LiteralOverTLSWorks() async throws {
        guard let ca = try await authority() else { return }
        guard let server = try? await TLSTestServer(ca.issue("cloud"), host: "::1") else {
            print("skipped: no IPv6 loopback here")
            return
        }
        defer { Task { await server.stop() } }
        let transport = try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path))
        let response = try await transport.send(HTTPRequest(method: "GET", url: URL(string: "https://[::1]:\(server.port)/")!))
        #expect(response.status == 200)
    }

    @Test func anExpiredCertificateIsRefusedInWords() async throws {
        guard let ca = try await authority() else { return }
        let server = try await TLSTestServer(ca.issue("old", validity: .expired))
        defer { Task { await server.stop() } }
        let words = await refusal(try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path)), "https://localhost:\(server.port)/")
        #expect(words.contains("expired on 2020-02-01"), "\(words)")
    }

    @Test func aCertificateNotYetValidIsRefusedInWords() async throws {
        guard let ca = try await authority() else { return }
        let server = try await TLSTestServer(ca.issue("future", validity: .notYetValid))
        defer { Task { await server.stop() } }
        let words = await refusal(try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path)), "https://localhost:\(server.port)/")
        #expect(words.contains("not valid yet (from 2099-01-01)"), "\(words)")
    }

    @Test func aCertificateForAnotherHostIsRefusedInWords() async throws {
        guard let ca = try await authority() else { return }
        let server = try await TLSTestServer(ca.issue("elsewhere", hosts: ["cloud.example.org"]))
        defer { Task { await server.stop() } }
        let transport = try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path))
        let byName = await refusal(transport, "https://localhost:\(server.port)/")
        #expect(byName.contains("issued for another host name (cloud.example.org), not localhost"), "\(byName)")
        let byAddress = await refusal(transport, "https://127.0.0.1:\(server.port)/")
        #expect(byAddress.contains("not 127.0.0.1"), "\(byAddress)")
    }

    @Test func aSelfSignedCertificateIsRefusedInWords() async throws {
        guard let ca = try await authority() else { return }
        let server = try await TLSTestServer(ca.selfSigned("self"))
        defer { Task { await server.stop() } }
        let words = await refusal(try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path)), "https://localhost:\(server.port)/")
        #expect(words.contains("self-signed"), "\(words)")
        // Trusting the system's store only refuses it the same way.
        let system = await refusal(try CloudTransport.make(), "https://localhost:\(server.port)/")
        #expect(system.contains("self-signed"), "\(system)")
    }

    @Test func aCertificateOfAnUnknownAuthorityIsRefusedInWords() async throws {
        guard let ca = try await authority(), let stranger = try await authority("stranger") else { return }
        let server = try await TLSTestServer(stranger.issue("cloud"))
        defer { Task { await server.stop() } }
        let words = await refusal(try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path)), "https://localhost:\(server.port)/")
        #expect(words.contains("unknown authority (CloudTodo Test stranger)"), "\(words)")
        #expect(words.contains("--ca-file"), "\(words)")
    }

    @Test func theRefusalReachesAPersonAsACloudThatCannotBeReached() async throws {
        guard let ca = try await authority() else { return }
        let server = try await TLSTestServer(ca.issue("old", validity: .expired))
        defer { Task { await server.stop() } }
        let client = CloudClient(
            baseURL: URL(string: "https://localhost:\(server.port)")!,
            transport: try CloudTransport.make(trust: TrustSettings(caFile: ca.certificate.path)))
        do {
            _ = try await client.caller()
            Issue.record("an expired certificate was accepted")
        } catch let error as CloudError {
            // A network-class failure: the outbox keeps its changes and the engine goes offline, retrying later.
            #expect(error.code == .networkUnavailable)
            #expect(error.isRetryable)
            #expect(plainMessage(for: error).hasPrefix("cannot reach the cloud: localhost: its certificate expired on 2020-02-01"))
        }
    }

    @Test func aMissingOrInvalidCAFileIsAClearError() async throws {
        let directory = ScratchDirectory.make("tls-files")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("nope.pem").path
        let absent = #expect(throws: TransportError.self) { try CloudTransport.make(trust: TrustSettings(caFile: missing)) }
        #expect(absent?.reason == "cannot read the CA file \(missing): no such file")

        let garbage = directory.appendingPathComponent("garbage.pem")
        try Data("not a certificate\n".utf8).write(to: garbage)
        let invalid = #expect(throws: TransportError.self) { try CloudTransport.make(trust: TrustSettings(caFile: garbage.path)) }
        #expect(invalid?.reason.contains("is not a PEM certificate bundle") == true || invalid?.reason.contains("holds no certificate") == true)

        let empty = directory.appendingPathComponent("empty.pem")
        try Data().write(to: empty)
        #expect(throws: TransportError.self) { try CloudTransport.make(trust: TrustSettings(caFile: empty.path)) }
    }

    @Test func certificateNamesMatchAsHostNameVerificationDoes() {
        #expect(CertificateDiagnosis.matches("*.example.org", host: "cloud.example.org"))
        #expect(!CertificateDiagnosis.matches("*.example.org", host: "a.cloud.example.org"))
        #expect(!CertificateDiagnosis.matches("*.example.org", host: "example.org"))
        #expect(CertificateDiagnosis.matches("LOCALHOST", host: "localhost"))
        #expect(CertificateDiagnosis.matches("::1", host: "[::1]"))
        #expect(CertificateDiagnosis.matches("0:0:0:0:0:0:0:1", host: "::1"))
        #expect(!CertificateDiagnosis.matches("127.0.0.1", host: "127.0.0.2"))
    }
}
