import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench descriptor-flood [TODO] [COUNT [ADDRESSES [LIMIT]]]`: a `todo server` (TODO, by default the `todo`
/// beside this executable; a release build is what the figures are for) under `ulimit -n LIMIT` takes COUNT silent
/// connections from ADDRESSES loopback sources, held by a `_hold-connections` child, while `/health` is asked on a
/// new connection every 20 ms; prints p50, p99 and max of those answers during the flood and while it is held, the
/// cloud's CPU, and the kernel's count of listen-queue overflows (each one is a SYN dropped: its client waits 1 s).
enum DescriptorFloodBench {
    static func run(arguments: [String]) throws {
        let todo = try arguments.first { $0.hasPrefix("/") || $0.hasPrefix(".") } ?? DeviceBench.todoExecutable()
        let numbers = arguments.compactMap { Int($0) }
        let count = numbers.first ?? 5000, addresses = numbers.dropFirst().first ?? 100, limit = numbers.dropFirst(2).first ?? 1024
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-flood-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = Int.random(in: 20_000...40_000)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/bin/bash")
        server.arguments = [
            "-c", "ulimit -n \(limit) && exec \"$@\"", "bash", todo, "server", "--port", "\(port)", "--data-dir", directory.path,
            "--log-level", "warning", "--idle-timeout", "600",
        ]
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
        print("todo server \(todo), ulimit -n \(limit); \(count) connections from \(addresses) addresses")
        let cpuBefore = cpuSeconds(server.processIdentifier)
        let overflowsBefore = listenOverflows()
        let flood = try HoldingChild(port: port, count: count, addresses: addresses)
        defer { flood.stop() }
        var during: [Double] = []
        var failures = 0
        while !flood.isDone || during.count < 20 {
            let start = ContinuousClock.now
            if (try? probe(port))?.status != 200 { failures += 1 }
            during.append(seconds(since: start))
            usleep(20_000)
        }
        let cpuDuring = cpuSeconds(server.processIdentifier) - cpuBefore
        let overflows = listenOverflows() - overflowsBefore
        var held: [Double] = []
        for _ in 0..<50 {
            let start = ContinuousClock.now
            if (try? probe(port))?.status != 200 { failures += 1 }
            held.append(seconds(since: start))
            usleep(20_000)
        }
        print(
            "during the flood (\(during.count) probes): \(summary(during)); held: \(summary(held)); \(failures) failed; "
                + "\(flood.lastLine); cloud CPU \(String(format: "%.2f", cpuDuring)) s during the flood; "
                + "listen overflows \(overflows); cloud descriptors \(openDescriptors(server.processIdentifier))")
    }

    private static func summary(_ times: [Double]) -> String {
        let sorted = times.sorted()
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }
        return "p50 \(ms(percentile(sorted, 0.5))), p99 \(ms(percentile(sorted, 0.99))), max \(ms(sorted.last ?? 0))"
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
    private let lock = NSLock()
    private var last = ""

    init(port: Int, count: Int, addresses: Int) throws {
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["_hold-connections", "\(port)", "\(count)", "\(addresses)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            guard let self, let line = text.split(separator: "\n").last else { return }
            lock.withLock { last = String(line) }
        }
        try process.run()
    }

    var lastLine: String { lock.withLock { last } }
    var isDone: Bool { lastLine.hasPrefix("done") || !process.isRunning }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
