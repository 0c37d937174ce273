import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench descriptor-flood [TODO] [COUNT [ADDRESSES [LIMIT [ROUNDS]]]]`: a `todo server` (TODO, by default the
/// `todo` beside this executable; a release build is what the figures are for) under `prlimit --nofile=LIMIT:LIMIT`
/// takes COUNT silent connections from ADDRESSES loopback sources, held by a `_hold-connections` child, ROUNDS times
/// (each flood let go before the next), while `/health` is asked on a new connection every 20 ms; prints p50, p99 and
/// max of those answers during the floods and while they are held, the cloud's CPU, how long it took to let go of
/// each flood's descriptors, and the kernel's count of listen-queue overflows (each a SYN dropped: its client waits 1 s).
/// The cloud runs with its own defaults (the deferred accept and the 30 s idle timeout among them); `--NAME VALUE`
/// pairs after the numbers go to it as they are, as `--defer-accept 0` to measure without the deferred accept.
enum DescriptorFloodBench {
    static func run(arguments: [String]) throws {
        // `--name value` pairs go to the cloud as they are (`--defer-accept 0` measures without the deferred accept).
        var serverOptions: [String] = []
        var positional: [String] = []
        var words = arguments[...]
        while let word = words.popFirst() {
            if word.hasPrefix("--") {
                serverOptions += [word] + (words.popFirst().map { [$0] } ?? [])
            } else {
                positional.append(word)
            }
        }
        let todo = try positional.first { $0.hasPrefix("/") || $0.hasPrefix(".") } ?? DeviceBench.todoExecutable()
        let numbers = positional.compactMap { Int($0) }
        let count = numbers.first ?? 5000, addresses = numbers.dropFirst().first ?? 100, limit = numbers.dropFirst(2).first ?? 1024
        let rounds = max(1, numbers.dropFirst(3).first ?? 5)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-flood-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = Int.random(in: 20_000...40_000)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        server.arguments = [
            "--nofile=\(limit):\(limit)", todo, "server", "--port", "\(port)", "--data-dir", directory.path, "--log-level", "warning",
        ] + serverOptions
        // Its shedding warnings (one a second) would bury the figures: to a file when FLOOD_SERVER_LOG names one.
        server.standardError =
            ProcessInfo.processInfo.environment["FLOOD_SERVER_LOG"].flatMap {
                _ = FileManager.default.createFile(atPath: $0, contents: nil)
                return FileHandle(forWritingAtPath: $0)
            } ?? FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(30)
        while (try? probe(port))?.status != 200 {
            guard Date() < deadline, server.isRunning else { throw BenchError("todo server did not start") }
            usleep(50_000)
        }
        let pid = server.processIdentifier
        let descriptorsBefore = openDescriptors(pid)
        print(
            "todo server \(todo) \(serverOptions.joined(separator: " ")), prlimit --nofile=\(limit):\(limit); \(rounds) floods of \(count) "
                + "connections from \(addresses) addresses")
        var during: [Double] = [], held: [Double] = [], recoveries: [Double] = []
        var failures = 0, cpuDuring = 0.0, cpuHeld = 0.0, heldSeconds = 0.0, overflows = 0, lastLine = "", heldDescriptors = 0
        for _ in 0..<rounds {
            let cpuBefore = cpuSeconds(pid)
            let overflowsBefore = listenOverflows()
            let flood = try HoldingChild(port: port, count: count, addresses: addresses)
            var probes = 0
            while !flood.isDone || probes < 20 {
                let (seconds, ok) = timedProbe(port)
                during.append(seconds)
                if !ok { failures += 1 }
                probes += 1
                usleep(20_000)
            }
            cpuDuring += cpuSeconds(pid) - cpuBefore
            overflows += listenOverflows() - overflowsBefore
            lastLine = flood.lastLine
            // Held: the cloud should idle.
            let heldStart = ContinuousClock.now
            let cpuHeldBefore = cpuSeconds(pid)
            for _ in 0..<50 {
                let (seconds, ok) = timedProbe(port)
                held.append(seconds)
                if !ok { failures += 1 }
                usleep(20_000)
            }
            cpuHeld += cpuSeconds(pid) - cpuHeldBefore
            heldSeconds += seconds(since: heldStart)
            heldDescriptors = max(heldDescriptors, openDescriptors(pid))
            // Let go: recovered once the flood's descriptors are closed and /health answers.
            let released = ContinuousClock.now
            flood.stop()
            while openDescriptors(pid) > descriptorsBefore + 16 || !timedProbe(port).ok {
                guard seconds(since: released) < 60 else { throw BenchError("the cloud still held \(openDescriptors(pid)) descriptors after 60 s") }
                usleep(10_000)
            }
            recoveries.append(seconds(since: released))
        }
        print(
            "during the floods (\(during.count) probes): \(summary(during)); held (\(held.count)): \(summary(held)); \(failures) failed; "
                + "last flood: \(lastLine); cloud descriptors held at most \(heldDescriptors) (\(descriptorsBefore) before)")
        print(
            String(
                format: "cloud CPU %.2f s a flood while it arrives, %.1f %% of a core while held; recovered in at most %.2f s; listen overflows %d",
                cpuDuring / Double(rounds), cpuHeld / max(heldSeconds, 0.001) * 100, recoveries.max() ?? 0, overflows))
    }

    /// `/health` on a new connection, timed: the seconds, and whether it answered 200.
    private static func timedProbe(_ port: Int) -> (seconds: Double, ok: Bool) {
        let start = ContinuousClock.now
        let ok = (try? probe(port))?.status == 200
        return (seconds(since: start), ok)
    }

    private static func summary(_ times: [Double]) -> String {
        let sorted = times.sorted()
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }
        let slowest = sorted.suffix(8).reversed().map { String(format: "%.0f", $0 * 1000) }.joined(separator: " ")
        return "p50 \(ms(percentile(sorted, 0.5))), p99 \(ms(percentile(sorted, 0.99))), max \(ms(sorted.last ?? 0)) (slowest \(slowest) ms)"
    }

    /// `GET /health` on a new connection, as a device's first request would come.
    private static func probe(_ port: Int) throws -> (status: Int, body: [UInt8]) {
        try RawHTTPConnection(port: port).request("GET", "/health")
    }

    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    /// The machine's `TcpExt: ListenOverflows` (SYNs dropped because an accept queue was full).
    private static func listenOverflows() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/net/netstat", encoding: .utf8) else { return 0 }
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("TcpExt:") }
        guard lines.count == 2 else { return 0 }
        let names = lines[0].split(separator: " "), values = lines[1].split(separator: " ")
        guard let index = names.firstIndex(of: "ListenOverflows"), index < values.count else { return 0 }
        return Int(values[index]) ?? 0
    }
}

/// A `todo-bench _hold-connections` child and the last line it printed.
final class HoldingChild: @unchecked Sendable {
    private let process = Process()
    private let last = Mutex("")

    init(port: Int, count: Int, addresses: Int) throws {
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["_hold-connections", "\(port)", "\(count)", "\(addresses)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            guard let self, let line = text.split(separator: "\n").last else { return }
            self.last.withLock { $0 = String(line) }
        }
        try process.run()
    }

    var lastLine: String { last.withLock { $0 } }
    var isDone: Bool { lastLine.hasPrefix("done") || !process.isRunning }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
