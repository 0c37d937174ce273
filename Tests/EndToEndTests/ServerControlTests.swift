import CloudServer
import Foundation
import TLSTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `todo server` process: detached, found by `status`, ended by `stop`, and its refusals at start-up.
@Suite("todo server status and stop")
struct ServerControlTests {
    let directory = ScratchDirectory.path("control")

    /// Ends a daemon a failed test left running in `data`, then removes the test's files.
    private func cleanUp(_ data: URL? = nil) {
        if let running = ServerLockFile.running(in: data ?? directory) { kill(running.pid, SIGTERM) }
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func aDetachedCloudIsShownByStatusAndEndedByStop() async throws {
        defer { cleanUp() }
        let started = try await todo(["server", "--detach", "--port", "0", "--data-dir", directory.path])
        #expect(started.status == 0, "\(started.errors)")
        #expect(started.output.contains("CloudTodo server running (pid"))
        let running = try #require(ServerLockFile.running(in: directory))
        #expect(running.url.hasPrefix("http://127.0.0.1:"))

        let status = try await todo(["server", "status", "--data-dir", directory.path])
        #expect(status.status == 0)
        #expect(status.output.contains(running.url))
        #expect(status.output.contains("pid       \(running.pid)"))
        #expect(status.output.contains("uptime"))
        let (_, health) = try await URLSession(configuration: .ephemeral).data(from: URL(string: running.url + "/health")!)
        #expect((health as? HTTPURLResponse)?.statusCode == 200)

        // A second cloud on the same data directory is refused, naming the first.
        let second = try await todo(["server", "--port", "0", "--data-dir", directory.path])
        #expect(second.status == 1)
        #expect(second.errors.contains("pid \(running.pid)"))

        let stop = try await todo(["server", "stop", "--data-dir", directory.path])
        #expect(stop.status == 0, "\(stop.errors)")
        #expect(stop.output.contains("Stopped the CloudTodo server on \(running.url) (pid \(running.pid))"))
        #expect(ServerLockFile.running(in: directory) == nil)

        let after = try await todo(["server", "status", "--data-dir", directory.path])
        #expect(after.status == 1)
        #expect(after.output.contains("No CloudTodo server runs on"))
        let again = try await todo(["server", "stop", "--data-dir", directory.path])
        #expect(again.status == 1)
    }

    @Test func plainHTTPOnEveryInterfaceIsRefusedNamingBothWaysOut() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let refused = try await todo(["server", "--host", "0.0.0.0", "--port", "0", "--data-dir", directory.path])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("--tls-cert FILE --tls-key FILE"))
        #expect(refused.errors.contains("--insecure-http"))
    }

    @Test func aSessionCacheOutOfRangeIsRefusedInWords() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        for value in ["-1", "61", "nan", "inf"] {
            let refused = try await todo(["server", "--port", "0", "--data-dir", directory.path, "--session-cache-seconds=\(value)"])
            #expect(refused.status != 0, "\(value)")
            #expect(refused.errors.contains("--session-cache-seconds must be 0 to 60"), "\(value): \(refused.errors)")
        }
    }

    @Test(.enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
    func aDetachedTLSCloudOnIPv6LoopbackAndItsCertificateErrors() async throws {
        defer { cleanUp(directory.appendingPathComponent("data")) }
        let authority = try await TestCertificateAuthority(in: directory.appendingPathComponent("ca"))
        let issued = try await authority.issue("cloud")
        let data = directory.appendingPathComponent("data").path

        let missing = directory.appendingPathComponent("missing.pem").path
        let bad = try await todo(["server", "--detach", "--port", "0", "--data-dir", data, "--tls-cert", missing, "--tls-key", issued.key.path])
        #expect(bad.status == 1)
        #expect(bad.errors.contains(missing), "\(bad.errors)")

        let started = try await todo([
            "server", "--detach", "--host", "::1", "--port", "0", "--data-dir", data, "--tls-cert", issued.certificate.path,
            "--tls-key", issued.key.path,
        ])
        #expect(started.status == 0, "\(started.errors)")
        let status = try await todo(["server", "status", "--data-dir", data])
        #expect(status.output.contains("https://[::1]:"))
        let stop = try await todo(["server", "stop", "--data-dir", data])
        #expect(stop.status == 0)
    }

    /// `todo server …` is `todo-server …`: its help is the cloud's, under the name a person typed.
    @Test func theServerVerbRunsTheCloudsOwnExecutable() async throws {
        let help = try await todo(["server", "--help"])
        #expect(help.status == 0, "\(help.errors)")
        #expect(help.output.contains("USAGE: todo server"), "\(help.output)")
        #expect(help.output.contains("--tls-cert"))
        let direct = try await SpawnedProcess.run(
            URL(fileURLWithPath: try TodoBinary.path()).deletingLastPathComponent().appendingPathComponent("todo-server").path, ["--help"],
            timeout: .seconds(60))
        #expect(direct.output == help.output)
        let wrong = try await todo(["server", "--no-such-flag"])
        #expect(wrong.status == 2, "\(wrong.errors)")
        #expect(wrong.errors.contains("--no-such-flag"))
    }

    /// A `todo` installed without `todo-server` beside it says what is missing instead of failing obscurely.
    @Test func aMissingCloudExecutableIsNamed() async throws {
        let alone = directory.appendingPathComponent("alone")
        defer { cleanUp() }
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        let copy = alone.appendingPathComponent("todo")
        try FileManager.default.copyItem(atPath: try TodoBinary.path(), toPath: copy.path)
        let run = try await SpawnedProcess.run(copy.path, ["server", "--port", "0", "--data-dir", alone.path], timeout: .seconds(60))
        #expect(run.status == 1)
        #expect(run.errors.contains("executable is missing: \(alone.appendingPathComponent("todo-server").path)"), "\(run.errors)")
    }

    /// What one run of `todo` printed and how it exited.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the built `todo` with `arguments` (see `SpawnedProcess`).
    private func todo(_ arguments: [String]) async throws -> Run {
        let run = try await SpawnedProcess.run(try TodoBinary.path(), arguments, timeout: .seconds(60))
        return Run(status: run.status, output: run.output, errors: run.errors)
    }
}
