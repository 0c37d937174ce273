import CloudModel
import CloudServer
import Foundation
import ProcessTestSupport
import PostgresTestSupport
import TLSTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two real `todo server` processes on one PostgreSQL database behind docs/POSTGRESQL.md's nginx site (TLS at nginx), real
/// `todo` devices adding todos through nginx, and one instance killed with SIGKILL while they do: every todo the cloud
/// acknowledged is there afterwards, and the devices carry on through the other instance with no user action (their
/// next commands send what waited), nothing lost and nothing twice.
@Suite(
    "kill -9 of one instance behind nginx",
    .enabled(if: NginxProxy.isAvailable, "nginx is not installed (apt-get install nginx)"),
    .enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
struct LoadBalancerKillTests {
    @Test func acknowledgedTodosSurviveAndDevicesCarryOnThroughTheOtherInstance() async throws {
        try await PostgresTestDatabase.with { database in
            try await Self.killOneInstanceUnderLoad(databaseURL: database.url.secretText)
        }
    }

    private static func killOneInstanceUnderLoad(databaseURL: String) async throws {
        guard let binary = TodoExecutable.path else {
            print("skipped: kill -9 of one instance: the todo executable was not built beside the tests (swift build first)")
            return
        }
        let scratch = ScratchDirectory.path("kill-instance")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let authority = try await TestCertificateAuthority(in: scratch.appendingPathComponent("ca"))
        let issued = try await authority.issue("nginx", hosts: ["localhost", "127.0.0.1"])

        let doomed = try await CloudInstance(binary: binary, databaseURL: databaseURL, directory: scratch.appendingPathComponent("instance-a"))
        defer { doomed.stop() }
        let survivor = try await CloudInstance(binary: binary, databaseURL: databaseURL, directory: scratch.appendingPathComponent("instance-b"))
        defer { survivor.stop() }
        let port = try NginxProxy.freePort()
        let nginx = try await NginxProxy(
            site: try NginxProxy.readmeInstancesSite(instancePorts: (doomed.port, survivor.port), port: port, certificate: issued),
            port: port, directory: scratch.appendingPathComponent("nginx"))
        let base = "https://127.0.0.1:\(port)"
        let devices = DeviceRunner(
            binary: binary, server: base, caFile: authority.certificate, directory: scratch.appendingPathComponent("devices"), account: "fleet")
        do {
            try await survivor.createAccount("fleet", password: devices.password)

            // Two devices add todos one command after another; the first instance dies while they do.
            let names = ["laptop", "phone"]
            let perDevice = 24
            let outcomes = Outcomes()
            let load = names.map { device in
                Task {
                    for index in 0..<perDevice {
                        let title = "\(device) todo \(index)"
                        let result = try await devices.run(device: device, ["add", title])
                        outcomes.note(title, acknowledged: result.status == 0 && !result.errors.contains("not sent yet"), output: result.errors)
                    }
                }
            }
            try await waitUntil("half the adds to finish", within: 300) { outcomes.count >= perDevice / 2 }
            outcomes.markKilled()
            await doomed.kill()
            for task in load { try await task.value }

            let acknowledged = outcomes.acknowledged
            let beforeKill = outcomes.acknowledgedBeforeKill
            #expect(beforeKill >= perDevice / 2 - 2, "the load did not reach the cloud before the kill")
            // At most the one add of each device that was in flight at the kill may have ended unsent (then it waits
            // in its outbox); every other add, before the kill and after it, the cloud acknowledged.
            #expect(
                acknowledged.count >= names.count * (perDevice - 1),
                "the devices did not carry on through the other instance: \(outcomes.failures.prefix(3))")

            // Their next command sends whatever waited; a fresh device then sees every todo once.
            for device in names {
                let sync = try await devices.run(device: device, ["sync"])
                #expect(sync.status == 0, "todo sync on \(device): \(sync.errors)")
                #expect(sync.output.hasPrefix("online") && !sync.output.contains("pending"), "\(device) after todo sync: \(sync.output)")
            }
            let listing = try await devices.run(device: "reader", ["list", "--json"])
            #expect(listing.status == 0, "todo list: \(listing.errors)")
            let titles = try Self.titles(inJSON: listing.stdout)
            let missing = acknowledged.subtracting(titles)
            #expect(missing.isEmpty, "\(missing.count) acknowledged todos lost after the kill, e.g. \(missing.sorted().prefix(3))")
            let every = Set(names.flatMap { device in (0..<perDevice).map { "\(device) todo \($0)" } })
            #expect(Set(titles) == every, "todos missing: \(every.subtracting(titles).sorted().prefix(5))")
            #expect(titles.count == every.count, "some todos arrived twice: \(titles.count) rows for \(every.count) todos")
        } catch {
            Issue.record("nginx log: \(nginx.log)\ninstance logs: \(doomed.log)\n\(survivor.log)")
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }

    /// The titles of `todo list --json`'s rows.
    private static func titles(inJSON data: Data) throws -> [String] {
        guard let rows = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw LoadBalancerError("todo list --json printed no array: \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return rows.compactMap { $0["title"] as? String }
    }
}

/// What each `todo add` answered, in the order they finished, and whether the kill had happened yet.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var acknowledgedTitles: Set<String> = []
    private var finished = 0
    private var killed = false
    private var countBeforeKill = 0
    private var failureLines: [String] = []

    func note(_ title: String, acknowledged: Bool, output: String) {
        lock.withLock {
            finished += 1
            if acknowledged {
                acknowledgedTitles.insert(title)
                if !killed { countBeforeKill += 1 }
            } else {
                failureLines.append("\(title): \(output)")
            }
        }
    }

    func markKilled() { lock.withLock { killed = true } }

    var count: Int { lock.withLock { finished } }
    var acknowledged: Set<String> { lock.withLock { acknowledgedTitles } }
    var acknowledgedBeforeKill: Int { lock.withLock { countBeforeKill } }
    var failures: [String] { lock.withLock { failureLines } }
}

/// One `todo server` process on a PostgreSQL database, on a loopback port, with a data directory of its own (its lock
/// and log); `kill()` ends it with SIGKILL.
final class CloudInstance: @unchecked Sendable {
    let port: Int
    let directory: URL
    private var child: ChildProcess.Running?
    /// Set once the process has ended and was reaped.
    private var ended = false

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(binary: String, databaseURL: String, directory: URL) async throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try NginxProxy.freePort()
        child = try ChildProcess.start(binary, [
            "server", "--port", "\(port)", "--data-dir", directory.path, "--database-url", databaseURL, "--open-registration",
            "--password-cost", "1", "--log-level", "warning",
        ])
        do {
            try await waitUntilHealthy()
        } catch {
            stop()  // any way out but an answer (a timeout, a cancelled test) must not leave the server running
            throw error
        }
    }

    private func waitUntilHealthy() async throws {
        let healthy = try await eventually(30) {
            guard isRunning else { throw LoadBalancerError("todo server exited: \(log)") }
            return (try? await TestHTTPClient.send("GET", baseURL + "/health", timeout: .seconds(5)))?.status == 200
        }
        guard healthy else { throw LoadBalancerError("todo server did not answer within 15 s: \(log)") }
    }

    /// What the instance wrote to standard error (while it runs; its files go when it is reaped).
    var log: String { ended ? lastLog : child?.errorsSoFar ?? "" }

    /// Whether the process still runs (reaping it when it has ended).
    private var isRunning: Bool {
        guard let child, !ended else { return false }
        if let result = ChildProcess.finished(child) {
            ended = true
            lastLog = result.errors
        }
        return !ended
    }

    /// What it wrote before it ended.
    private(set) var lastLog = ""

    /// Creates an account through this instance.
    func createAccount(_ account: String, password: String) async throws {
        let body = try JSONEncoder().encode(CreateAccountRequest(account: account, password: password))
        let (status, answer) = try await TestHTTPClient.send("POST", baseURL + ContainerAddress.default.authPath("accounts"), body: body)
        guard (200..<300).contains(status) else {
            throw LoadBalancerError("creating \(account) answered \(status): \(String(decoding: answer, as: UTF8.self))")
        }
    }

    /// SIGKILL: no shutdown, no flush, as a machine losing power.
    func kill() async {
        guard isRunning, let child else { return }
        Glibc.kill(child.pid, SIGKILL)
        lastLog = await ChildProcess.stop(child).errors
        ended = true
    }

    /// SIGTERM; a thread of its own reaps the process (this is called from `defer`, inside a task).
    func stop() {
        guard isRunning, let child else { return }
        lastLog = child.errorsSoFar
        ChildProcess.stopInBackground(child)
        ended = true
    }
}

/// Runs the real `todo` binary for devices of one account against a cloud that serves HTTPS with a private CA.
struct DeviceRunner: Sendable {
    let binary: String
    let server: String
    let caFile: URL
    let directory: URL
    let account: String
    var password: String { "fleet-password-\(account)" }

    /// `todo ARGUMENTS` as `device`, waited for without blocking a cooperative thread.
    func run(device: String, _ arguments: [String]) async throws -> TodoProcess.Result {
        try await TodoProcess.run(
            binary,
            arguments + [
                "--server", server, "--ca-file", caFile.path, "--account", account, "--password", password, "--device", device,
                "--data-dir", directory.path,
            ])
    }
}

/// The kill test's processes misbehaved.
struct LoadBalancerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
