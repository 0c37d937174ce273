import CloudModel
import CloudServer
import Foundation
import Logging
import TestSupport
import Testing

/// Where the cloud may listen without TLS, and IPv6 literals as `--host`.
@Suite("Listening")
struct ListenPolicyTests {
    @Test func plainHTTPOnANonLoopbackInterfaceIsRefusedNamingBothWaysOut() async throws {
        for host in ["0.0.0.0", "::"] {
            let directory = ScratchDirectory.path("listen")
            defer { try? FileManager.default.removeItem(at: directory) }
            do {
                let server = try await CloudServer.start(ServerConfiguration(host: host, port: 0, dataDirectory: directory, logLevel: .critical))
                await server.shutdown()
                Issue.record("plain HTTP on \(host) was served")
            } catch let error as ServerStartError {
                #expect(error.reason.contains("--tls-cert FILE --tls-key FILE"))
                #expect(error.reason.contains("--insecure-http"))
                #expect(error.reason.contains(host))
            }
        }
    }

    @Test func insecureHTTPServesAnyInterfaceForAProxyInFront() async throws {
        try await withCloud(configure: { $0.host = "0.0.0.0"; $0.insecureHTTP = true }) { cloud in
            #expect(cloud.server.baseURL.absoluteString == "http://127.0.0.1:\(cloud.server.port)")
            let client = try RawClient(port: cloud.server.port)
            await client.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await client.response(within: .seconds(30))?.status == 200)
        }
    }

    @Test func ipv6LoopbackServesPlainHTTPWithABracketedURL() async throws {
        try await withCloud(configure: { $0.host = "::1" }) { cloud in
            #expect(cloud.server.baseURL.absoluteString == "http://[::1]:\(cloud.server.port)")
            let client = try RawClient(host: "::1", port: cloud.server.port)
            await client.send("GET /health HTTP/1.1\r\nHost: [::1]:\(cloud.server.port)\r\n\r\n")
            #expect(await client.response(within: .seconds(30))?.status == 200)
            // The URLs the cloud hands out carry the brackets too (FoundationNetworking cannot ask [::1]: raw HTTP).
            let port = cloud.server.port
            func post<Body: Encodable>(_ path: String, _ body: Body, token: String? = nil) async throws -> String {
                let json = String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
                let bearer = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
                await client.send("POST \(path) HTTP/1.1\r\nHost: [::1]:\(port)\r\n\(bearer)Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
                // Account creation and sign-in wait for the process's shared hashing lane, which other suites' costly
                // sign-ins may hold for seconds in the parallel run.
                return try #require(await client.response(within: .seconds(60))).body
            }
            _ = try await post(cloud.address.authPath("accounts"), CreateAccountRequest(account: "six", password: "six-password"))
            let signIn = try JSONDecoder().decode(
                SignInResponse.self,
                from: Data(try await post(cloud.address.authPath("signin"), SignInRequest(account: "six", password: "six-password", deviceName: "d")).utf8))
            let created = try JSONDecoder().decode(
                CreateTokenResponse.self,
                from: Data(try await post(cloud.address.devicePath("tokens/create"), CreateTokenRequest(), token: signIn.ckWebAuthToken).utf8))
            #expect(created.webcourierURL.hasPrefix("http://[::1]:\(port)/"))
        }
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.45.6.7", true), ("localhost", true), ("LOCALHOST", true), ("::1", true), ("[::1]", true),
        ("::ffff:127.0.0.1", true), ("0:0:0:0:0:0:0:1", true), ("0.0.0.0", false), ("::", false), ("10.0.0.1", false),
        ("128.0.0.1", false), ("example.com", false), ("fe80::1", false), ("", false),
    ])
    func loopbackIsToldApart(host: String, loopback: Bool) {
        #expect(ListenAddress.isLoopback(host) == loopback)
    }

    @Test func urlsBracketIPv6Literals() {
        #expect(ListenAddress.url(scheme: "https", host: "::1", port: 8443)?.absoluteString == "https://[::1]:8443")
        #expect(ListenAddress.url(scheme: "http", host: "[::1]", port: 1)?.absoluteString == "http://[::1]:1")
        #expect(ListenAddress.url(scheme: "http", host: "127.0.0.1", port: 8787)?.absoluteString == "http://127.0.0.1:8787")
        #expect(ListenAddress.url(scheme: "http", host: "fe80::1%eth0", port: 80)?.absoluteString == "http://[fe80::1%25eth0]:80")
        #expect(ListenAddress.url(scheme: "http", host: "bad host", port: 80) == nil)
        #expect(ListenAddress.localReach("::") == "::1")
        #expect(ListenAddress.localReach("0.0.0.0") == "127.0.0.1")
    }
}
