import CloudServer
import Logging
import Foundation
import TLSTestSupport
import TestSupport
import Testing

/// A device whose session ended, on the command line against a TLS cloud with a private authority saved in
/// config.toml: `todo list` and `todo status` answer from the cache with one line saying so (exit 0), and the
/// command that line prints signs the device in again when run exactly as printed.
@Suite("A session that ends, on the command line", .serialized)
struct SessionEndCommandLineTests {
    @Test(.enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
    func signedOutListAndStatusAnswerFromTheCacheAndThePrintedLoginWorksVerbatim() async throws {
        let binary = try TodoBinary.path()
        let directory = ScratchDirectory.path("session-end")
        defer { try? FileManager.default.removeItem(at: directory) }
        let authority = try await TestCertificateAuthority(in: directory.appendingPathComponent("ca"))
        let certificate = try await authority.issue("cloud")
        let server = try await CloudServer.start(
            ServerConfiguration(
                port: 0, dataDirectory: directory.appendingPathComponent("cloud"), openRegistration: true, logLevel: .critical,
                passwordHashCost: 1, tlsCertificateFile: certificate.certificate, tlsKeyFile: certificate.key))
        let url = server.baseURL.absoluteString
        #expect(url.hasPrefix("https://"))
        let password = "correct horse battery staple"

        // Each device has a home of its own (XDG directories, so the printed command needs no --data-dir).
        func home(_ name: String) -> [String: String] {
            let home = directory.appendingPathComponent(name).path
            return [
                "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "LANG": "C.UTF-8",
                "TODO_PASSWORD": "", "TODO_CA_FILE": "",
            ]
        }
        func todo(_ arguments: [String], on device: String, password given: String? = nil) async throws -> TodoCommandLine.Result {
            var environment = home(device)
            if let given { environment["TODO_PASSWORD"] = given }
            return try await SpawnedProcess.run(binary, arguments, environment: environment)
        }
        var everything = ""

        let signup = try await todo(
            ["signup", url, "--account", "alice", "--device", "laptop2", "--ca-file", authority.certificate.path], on: "laptop2", password: password)
        #expect(signup.status == 0, "\(signup.allText)")
        let added = try await todo(["add", "Buy milk"], on: "laptop2")
        #expect(added.status == 0, "\(added.allText)")
        let phone = try await todo(["login", url, "--account", "alice", "--device", "phone", "--ca-file", authority.certificate.path], on: "phone", password: password)
        #expect(phone.status == 0, "\(phone.allText)")
        let revoked = try await todo(["devices", "revoke", "laptop2"], on: "phone")
        #expect(revoked.status == 0, "\(revoked.allText)")

        // Signed out: the cache answers, one line on stderr says so and how to sign in, exit 0.
        let listed = try await todo(["list"], on: "laptop2")
        everything += listed.allText
        #expect(listed.status == 0, "\(listed.allText)")
        #expect(listed.output.contains("Buy milk"), "\(listed.allText)")
        let line = listed.errors.trimmingCharacters(in: .newlines)
        #expect(!line.isEmpty && !line.contains("\n"), "not one line: \(listed.errors)")
        #expect(line.contains("signed out") && line.contains("run todo login \(url) --account alice --device laptop2"), "\(line)")
        let status = try await todo(["status"], on: "laptop2")
        everything += status.allText
        #expect(status.status == 0, "\(status.allText)")
        #expect(status.output.contains("signed in         no"), "\(status.output)")
        let statusLine = status.errors.trimmingCharacters(in: .newlines)
        #expect(!statusLine.contains("\n") && statusLine.contains("todo login \(url) --account alice --device laptop2"), "\(status.errors)")
        let again = try await todo(["list"], on: "laptop2")
        everything += again.allText
        #expect(again.status == 0 && again.output.contains("Buy milk"), "\(again.allText)")

        // The printed command, run exactly as printed (the saved ca-file is what trusts the private authority).
        let command = try #require(line.range(of: "run todo login ").map { line[line.index($0.lowerBound, offsetBy: 4)...] }
            .map { String($0.prefix { $0 != ";" && $0 != ")" }) })
        #expect(command == "todo login \(url) --account alice --device laptop2")
        var environment = home("laptop2")
        environment["TODO_PASSWORD"] = password
        environment["PATH"] = URL(fileURLWithPath: binary).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let relogin = try await SpawnedProcess.run("/bin/sh", ["-c", command], environment: environment)
        everything += relogin.allText
        #expect(relogin.status == 0, "\(command): \(relogin.allText)")
        let back = try await todo(["list"], on: "laptop2")
        everything += back.allText
        #expect(back.status == 0 && back.output.contains("Buy milk") && back.errors.isEmpty, "\(back.allText)")

        for name in ["ckWebAuthToken", "ckAPIToken", "webcourierURL", "apnsToken", "serverErrorCode", "userRecordName"] {
            #expect(!everything.contains(name), "'\(name)' shown:\n\(everything)")
        }
        await server.shutdown()
    }
}
