import CloudServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench idle-memory [TODO] [WAVES [COUNT [ADDRESSES]]] [--plain]`: a `todo server` (TODO, by default the
/// `todo` beside this executable) serving HTTPS (plain HTTP with `--plain`) at its own descriptor limit takes WAVES
/// waves of COUNT silent connections from ADDRESSES loopback sources, each held by a `_hold-connections` child and
/// then let go; prints the cloud's resident memory before, with each wave held (and per connection) and after each
/// wave went, so a growing cost per connection or memory left behind by a wave shows.
enum IdleMemoryBench {
    static func run(arguments: [String]) throws {
        let todo = try arguments.first { $0.hasPrefix("/") || $0.hasPrefix(".") } ?? DeviceBench.todoExecutable()
        let numbers = arguments.compactMap { Int($0) }
        let waves = numbers.first ?? 3, count = numbers.dropFirst().first ?? 10_000, addresses = numbers.dropFirst(2).first ?? 200
        let tls = !arguments.contains("--plain")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-idle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("cloud")
        var serverArguments = ["server", "--port", "\(Int.random(in: 20_000...40_000))", "--data-dir", data.path, "--log-level", "error", "--idle-timeout", "600"]
        if tls {
            let certificate = try BenchCertificate(in: directory)
            serverArguments += ["--tls-cert", certificate.certificate.path, "--tls-key", certificate.key.path]
        }
        let port = Int(serverArguments[2])!
        let server = Process()
        server.executableURL = URL(fileURLWithPath: todo)
        server.arguments = serverArguments
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let pid = server.processIdentifier
        let deadline = Date().addingTimeInterval(30)
        while ServerLockFile.running(in: data) == nil {
            guard Date() < deadline, server.isRunning else { throw BenchError("todo server did not start") }
            usleep(50_000)
        }
        sleep(1)
        let descriptorsBefore = DescriptorFloodBench.openDescriptors(pid)
        let before = ServerBench.residentMegabytes(pid: pid)
        print(
            "todo server \(todo) over \(tls ? "HTTPS" : "plain HTTP"); \(waves) waves of \(count) silent connections from \(addresses) addresses; "
                + String(format: "RSS before: %.1f MB", before))
        var total = 0
        for wave in 1...waves {
            let cpuBefore = DescriptorFloodBench.cpuSeconds(pid)
            let flood = try HoldingChild(port: port, count: count, addresses: addresses)
            while !flood.isDone { usleep(100_000) }
            sleep(1)
            let held = DescriptorFloodBench.openDescriptors(pid) - descriptorsBefore
            let holding = ServerBench.residentMegabytes(pid: pid)
            let cpu = DescriptorFloodBench.cpuSeconds(pid) - cpuBefore
            flood.stop()
            total += held
            let gone = Date().addingTimeInterval(30)
            while DescriptorFloodBench.openDescriptors(pid) > descriptorsBefore + 16, Date() < gone { usleep(100_000) }
            // The allocator's pages are handed back on a background thread once the crowd has gone.
            sleep(2)
            let after = ServerBench.residentMegabytes(pid: pid)
            print(
                "wave \(wave): \(flood.lastLine); "
                    + String(
                        format: "the cloud held %d: RSS %.1f MB (%.2f KB a connection, CPU %.2f s); after they went: %.1f MB (%+.1f MB on the start)",
                        held, holding, (holding - before) * 1024 / Double(max(held, 1)), cpu, after, after - before))
        }
        print(String(format: "over %d connections held: peak RSS %.1f MB", total, peakRSS(pid: pid)))
    }
}
