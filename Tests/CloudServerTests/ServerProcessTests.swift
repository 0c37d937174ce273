import Foundation
import ProcessTestSupport
import TLSTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `todo server` process: its API token kept out of `ps`, and its descriptors under the common limit.
@Suite("todo server process", .enabled(if: TodoExecutable.path != nil, "the todo binary is not built"))
struct ServerProcessTests {
    @Test func theAPITokenComesFromAFileOrTheEnvironmentAndNeverShowsInPs() async throws {
        let directory = ScratchDirectory.path("token")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token")
        try "from-the-file\n".write(to: tokenFile, atomically: true, encoding: .utf8)
        for (index, (arguments, environment, token)) in [
            (["--api-token-file", tokenFile.path], [String: String](), "from-the-file"),
            ([], ["TODO_API_TOKEN": "from-the-environment"], "from-the-environment"),
        ].enumerated() {
            // A data directory each: the first cloud may still be stopping (its lock held) when the second starts.
            let server = try await ServerChild(
                arguments: arguments, environment: environment, directory: directory.appendingPathComponent("\(index)"), token: token)
            defer { server.stop() }
            let refused = try await server.get("/database/1/x/development/private/zones/list")
            #expect(refused?.status == 401)
            #expect(refused?.body.contains("missing or wrong API token") == true, "\(String(describing: refused?.body))")
            let admitted = try await server.get("/database/1/x/development/private/zones/list?ckAPIToken=\(token)")
            #expect(admitted?.status != 401 || admitted?.body.contains("API token") == false)
            let commandLine = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(server.pid)/cmdline")), as: UTF8.self)
            #expect(!commandLine.contains(token))
        }
        // A file that cannot be read is a clear start-up error, not a cloud without a token.
        let missing = try await TodoProcess.run(
            TodoExecutable.path!, ["server", "--port", "0", "--data-dir", directory.path, "--api-token-file", "/nonexistent/token"])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("/nonexistent/token"))
    }

    @Test func theCloudRaisesItsSoftDescriptorLimitToTheHardOne() async throws {
        let directory = ScratchDirectory.path("limit")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try #require(Self.hardDescriptorLimit > 512, "the hard limit is too low to tell")
        let server = try await ServerChild(arguments: [], directory: directory, descriptorLimit: 512, softLimitOnly: true)
        defer { server.stop() }
        let limits = try String(contentsOfFile: "/proc/\(server.pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { UInt($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1] && numbers[0] > 512, "\(line)")
    }

    @Test func silentConnectionsWaitInTheKernelUntilTheySpeak() async throws {
        #if os(Linux)
        let directory = ScratchDirectory.path("defer")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, deferring) in [true, false].enumerated() {
            let server = try await ServerChild(
                arguments: deferring ? [] : ["--defer-accept", "0"], directory: directory.appendingPathComponent("\(index)"))
            defer { server.stop() }
            let before = server.openDescriptors
            let silent = try (0..<50).map { _ in try RawClient(port: server.port) }  // under the per-address cap
            if deferring {
                // Given time to accept them, the cloud holds none: they wait in the kernel, costing it nothing.
                try await Task.sleep(for: .milliseconds(500))
                #expect(server.openDescriptors - before < 10, "the cloud took \(server.openDescriptors - before) silent connections")
            } else {
                let accepted = await eventually(10) { server.openDescriptors - before >= 45 }
                #expect(accepted, "without the deferral the cloud took \(server.openDescriptors - before) of 50 silent connections")
            }
            // One that speaks is answered at once either way.
            let speaking = silent[0]
            await speaking.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let answer = await speaking.response(within: .seconds(10))
            #expect(answer?.status == 200, "deferring \(deferring): \(String(describing: answer))")
            #expect(try await server.get("/health")?.status == 200)
        }
        // A value the kernel would not take is refused before the cloud starts.
        let refused = try await TodoProcess.run(
            TodoExecutable.path!, ["server", "--port", "0", "--data-dir", directory.path, "--defer-accept", "-1"])
        #expect(refused.status != 0 && refused.errors.contains("--defer-accept"), "\(refused.errors)")
        #endif
    }

    /// /health 50 times, one after another: the answers that were not 200, and the CPU seconds the cloud used meanwhile.
    private static func probe(_ server: ServerChild) async throws -> (failures: [String], cpu: Double) {
        let cpuBefore = server.cpuSeconds
        var failures: [String] = []
        for _ in 0..<50 {
            if let failure = try await health(server) { failures.append(failure) }
        }
        return (failures, server.cpuSeconds - cpuBefore)
    }

    /// One /health: nil when it answered 200, else what went wrong and when.
    private static func health(_ server: ServerChild) async throws -> String? {
        let clock = ContinuousClock()
        let start = clock.now
        let answer = try await server.get("/health")
        let took = clock.now - start
        switch answer?.status {
        case 200: return nil
        case let status?: return "\(status) after \(took): \(answer?.body.prefix(200) ?? "")"
        case nil: return "no answer after \(took) (closed, or nothing in 30 s)"
        }
    }

    /// The hard open-file limit processes here may raise themselves to.
    static var hardDescriptorLimit: Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 0 }
        return Int(clamping: min(limits.rlim_max, rlim_t(Int32.max)))
    }

    @Test(.enabled(if: hardDescriptorLimit >= 5200, "the hard open-file limit is under 5,200: a flood of 5,000 connections cannot be held here"))
    func thousandsOfIdleConnectionsUnderTheCommonDescriptorLimitLeaveHealthAnswering() async throws {
        let directory = ScratchDirectory.path("fd")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The idle timeout is long, so only the cloud's own shedding can make room.
        let server = try await ServerChild(arguments: ["--idle-timeout", "600"], directory: directory, descriptorLimit: 1024)
        defer { server.stop() }
        // What answering /health costs on its own, to tell the held flood's cost apart.
        let baseline = try await Self.probe(server)
        let cpuBefore = server.cpuSeconds
        // 5,000 silent connections from 100 loopback addresses, 50 each (under the per-address cap of 64).
        let flood = try Flood(port: server.port, count: 5000, addresses: 100)
        var answered = 0
        var failures = baseline.failures
        var step = ""
        while !flood.isDone || answered < 20 {
            if let failure = try await Self.health(server) { failures.append("at flood step '\(step)': \(failure)") }
            answered += 1
            // The next probe at the flood's next step (it reports every 250 connections), at once when it is done.
            step = await firstValue(within: 5) { flood.isDone || flood.progress != step ? flood.progress : nil } ?? step
        }
        let opened = flood.opened
        let cpu = server.cpuSeconds - cpuBefore
        // Held: the cloud idles while the flood's connections stay open.
        let held = try await Self.probe(server)
        failures += held.failures
        print(
            "descriptor flood: \(opened) connections opened, /health during it \(answered) times, \(failures.count) failed; "
                + "cloud CPU \(cpu) s during the flood, \(held.cpu) s for 50 probes while held (\(baseline.cpu) s before the flood)")
        #expect(opened >= 4000, "the flood opened \(opened) connections: \(flood.lastError)")
        #expect(failures.isEmpty, "/health failed \(failures.count) of \(answered + 100) times: \(failures.joined(separator: "; "))\n\(server.logTail)")
        #expect(server.openDescriptors < 1024)
        // Everything recovers when they go.
        await flood.closeAll()
        try await waitUntil("the cloud to let go of the flood's descriptors") { server.openDescriptors < 200 }
        #expect(try await server.get("/health")?.status == 200)
        #expect(server.isRunning)
    }
}

/// Silent connections held by a `todo-bench _hold-connections` child: thousands of descriptors in a process of their
/// own, so the flood never takes the files and sockets the other tests in this process need.
final class Flood: @unchecked Sendable {
    private let child: ChildProcess.Running
    private var ended: ChildProcess.Result?

    init(port: Int, count: Int, addresses: Int) throws {
        guard let bench = TodoExecutable.sibling("todo-bench") else { throw RawClientError("no todo-bench executable beside todo") }
        child = try ChildProcess.start(bench, ["_hold-connections", "\(port)", "\(count)", "\(addresses)"])
    }

    deinit { if ended == nil { ChildProcess.stopInBackground(child) } }

    private var lastLine: Substring { child.outputSoFar.split(separator: "\n").last ?? "" }
    /// The flood's last report (`opened N`, then `done N`).
    var progress: String { String(lastLine) }
    var isDone: Bool { lastLine.hasPrefix("done") || ChildProcess.finished(child) != nil }
    var opened: Int { Int(lastLine.split(separator: " ").dropFirst().first ?? "") ?? 0 }
    var lastError: String { lastLine.components(separatedBy: "last error: ").dropFirst().first ?? child.errorsSoFar }
    func closeAll() async {
        if ended == nil { ended = await ChildProcess.stop(child) }
    }
}

/// One `todo server` child on a free loopback port, optionally under `ulimit -n`.
final class ServerChild: @unchecked Sendable {
    let port: Int
    let token: String?
    private let child: ChildProcess.Running
    private var ended = false
    /// What the process left when it was found ended by itself (its files are gone once it is reaped).
    private var exit: ChildProcess.Result?

    var pid: pid_t { child.pid }

    /// Starts `todo server ARGUMENTS`; `descriptorLimit` sets `ulimit -n` (soft and hard, or the soft one only).
    init(
        arguments: [String], environment: [String: String] = [:], directory: URL, token: String? = nil, descriptorLimit: Int? = nil,
        softLimitOnly: Bool = false
    ) async throws {
        port = try NginxProxy.freePort()
        self.token = token
        let server = [TodoExecutable.path!, "server", "--port", "\(port)", "--data-dir", directory.appendingPathComponent("cloud").path,
            "--log-level", "warning"] + arguments
        if let descriptorLimit {
            child = try ChildProcess.start("/bin/bash", ["-c", "ulimit \(softLimitOnly ? "-Sn" : "-n") \(descriptorLimit) && exec \"$@\"", "bash"] + server, environment: environment)
        } else {
            child = try ChildProcess.start(server[0], Array(server.dropFirst()), environment: environment)
        }
        do {
            try await waitUntil("todo server to answer") {
                guard self.isRunning else {
                    throw RawClientError("todo server exited with status \(self.exit?.status ?? -1): \(self.exit?.errors ?? "")\(self.exit?.output ?? "")")
                }
                return (try? await self.get("/health"))?.status == 200
            }
        } catch {
            stop()
            throw error
        }
    }

    /// `GET path` on a new connection (the API token added when the cloud wants one); nil when no answer came.
    func get(_ path: String) async throws -> (status: Int, body: String)? {
        let client = try await RawClient.connecting(port: port)
        await client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return await client.response(within: .seconds(30))
    }

    /// The last lines the cloud wrote to its standard error (its log at warning level), to say what it saw.
    var logTail: String { (exit?.errors ?? child.errorsSoFar).split(separator: "\n").suffix(10).joined(separator: "\n") }

    var isRunning: Bool {
        if !ended, let result = ChildProcess.finished(child) {
            ended = true
            exit = result
        }
        return !ended
    }

    /// Descriptors the process holds.
    var openDescriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0 }

    /// User and system CPU time the process has used, in seconds.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (1-based over the whole line).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// SIGTERM; a thread of its own reaps the process (this is called from `defer`, inside a task).
    func stop() {
        guard !ended else { return }
        ended = true
        ChildProcess.stopInBackground(child)
    }
}
