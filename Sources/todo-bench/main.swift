import CloudServer
import Foundation
import Logging
import ProcessTuning
import TodoSync

// `todo-bench <suite>`: benchmarks that print figures. Run with `swift run -c release todo-bench server` (or device, ui).
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "_server":
        // Child mode: run the cloud on the given port and directory until terminated, as `todo server` runs it.
        MemoryTuning.apply()
        var configuration = ServerConfiguration(
            port: Int(arguments[1]) ?? 8787, dataDirectory: URL(fileURLWithPath: arguments[2]), openRegistration: true,
            rateLimitPerSecond: nil,
            logLevel: ProcessInfo.processInfo.environment["BENCH_SERVER_LOG"] == nil ? .error : .info)
        // Optional `--name value` pairs after the directory (the TLS benchmark's).
        let options = Dictionary(
            stride(from: 3, to: arguments.count - 1, by: 2).map { (arguments[$0], arguments[$0 + 1]) }, uniquingKeysWith: { $1 })
        // Benchmarks make many accounts from one address: registration is not what they measure.
        configuration.signInLimits.registrationsPerAddress = 1_000_000
        configuration.tlsCertificateFile = options["--tls-cert"].map { URL(fileURLWithPath: $0) }
        configuration.tlsKeyFile = options["--tls-key"].map { URL(fileURLWithPath: $0) }
        if let cap = options["--max-connections-per-address"].flatMap(Int.init) { configuration.maxConnectionsPerAddress = cap }
        if let timeout = options["--idle-timeout"].flatMap(Double.init) { configuration.idleTimeout = timeout }
        if let url = options["--database-url"] { configuration.storage = .postgres(try DatabaseURL(parsing: url)) }
        try await CloudServer.run(configuration)
    case "_hold-connections":
        // `_hold-connections PORT COUNT ADDRESSES`: silent connections held for a flood, in a process of their own.
        guard arguments.count > 3, let port = Int(arguments[1]), let count = Int(arguments[2]), let addresses = Int(arguments[3]), addresses > 0
        else { throw BenchError("usage: todo-bench _hold-connections PORT COUNT ADDRESSES") }
        HeldConnections.hold(port: port, count: count, addresses: addresses)
    case "descriptor-flood":
        try DescriptorFloodBench.run(arguments: Array(arguments.dropFirst()))
    case "idle-memory":
        try IdleMemoryBench.run(arguments: Array(arguments.dropFirst()))
    case "_ui-frame":
        // The app's process, as `todo` tunes it when it opens the app.
        MemoryTuning.applyForApp()
        try await UIBench.frame(server: arguments[1], directory: arguments[2], account: arguments[3], count: Int(arguments[4]) ?? 0)
    case "_sort-rows":
        // The sort of the cache's rows for the first frames, alone and repeated: for profilers.
        UIBench.sortRows(count: arguments.dropFirst().first.flatMap(Int.init) ?? 100_000)
    case "_peak-rss":
        exit(measurePeakRSS(Array(arguments.dropFirst())))
    case "_device-parts":
        // The device's own share of an upload, without a network, repeated: for profilers.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-parts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for _ in 0..<(arguments.dropFirst().first.flatMap(Int.init) ?? 3) {
            try? FileManager.default.removeItem(at: directory)
            print(try await DeviceBench.deviceParts(count: 10_000, in: directory))
        }
    case "_upload":
        // Only the upload, for profilers (the cloud runs in a child process; this process is the device).
        print("device process \(getpid())")
        let server = try ServerProcess()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let count = arguments.dropFirst().first.flatMap(Int.init) ?? 10_000
        let (device, _) = try await DeviceBench.upload(count: count, server: server, in: directory, details: false)
        await device.close()
    case "_offline-device":
        // `_offline-device SERVER-URL ACCOUNT DIRECTORY [TODOS]`: a device with TODOS todos in its outbox, left for a
        // profiler's `todo sync` (prints the arguments that address it).
        guard arguments.count > 3 else { throw BenchError("usage: todo-bench _offline-device SERVER-URL ACCOUNT DIRECTORY [TODOS]") }
        let device = try await SyncBench.offlineDevice(
            try DeviceBench.todoExecutable(), server: arguments[1], count: arguments.dropFirst(4).first.flatMap(Int.init) ?? 10_000,
            account: arguments[2], in: URL(fileURLWithPath: arguments[3]))
        print(device.arguments.joined(separator: " "))
    case "_writes":
        // Only the sequential writes of `todo-bench server`, for profilers (the cloud runs in a child process).
        let server = try ServerProcess()
        defer { server.stop() }
        print("cloud process \(server.process.processIdentifier)")
        _ = try ServerBench.sequentialWrites(server, records: arguments.dropFirst().first.flatMap(Int.init) ?? 100_000)
    case "device":
        let counts = arguments.dropFirst().compactMap { Int($0) }
        try await DeviceBench.run(
            count: counts.first ?? 10_000, largeCount: counts.dropFirst().first ?? 100_000, tls: arguments.contains("--tls"))
    case "create":
        let counts = arguments.dropFirst().compactMap { Int($0) }
        try await CreateBench.run(count: counts.first ?? 10_000, largeCount: counts.dropFirst().first ?? 100_000)
    case "sync":
        // `todo-bench sync [TODOS [RUNS [BASELINE-DIR]]]`
        let rest = Array(arguments.dropFirst())
        try await SyncBench.run(
            count: rest.first.flatMap(Int.init) ?? 10_000, runs: rest.dropFirst().first.flatMap(Int.init) ?? 5,
            baseline: rest.dropFirst(2).first)
    case "everyday": try await EverydayBench.run(count: arguments.dropFirst().first.flatMap(Int.init) ?? 10_000, rounds: arguments.dropFirst(2).first.flatMap(Int.init) ?? 5)
    case "ui":
        try await UIBench.run()
    case "interchange":
        // `todo-bench interchange [TODOS]`: export and import in every format, beside Taskwarrior's.
        try await InterchangeBench.run(count: arguments.dropFirst().compactMap { Int($0) }.first ?? 100_000)
    case "share":
        try await ShareBench.run()
    case "near":
        // `todo-bench near [RECORDS]`: NEAR over public places, through the location index and reading every record.
        try await NearBench.run(records: arguments.dropFirst().compactMap { Int($0) }.first ?? 100_000)
    case "tls":
        let counts = arguments.dropFirst().compactMap { Int($0) }
        try await TLSBench.run(idleConnections: counts.first ?? 1000, handshakes: counts.dropFirst().first ?? 500)
    case "server":
        // `todo-bench server [RECORDS] [--database-url URL]`: with a database, SQLite beside PostgreSQL in one run.
        var rest = Array(arguments.dropFirst())
        if let flag = rest.firstIndex(of: "--database-url") {
            guard flag + 1 < rest.count else { throw BenchError("--database-url needs a postgres:// URL") }
            let url = rest[flag + 1]
            rest.removeSubrange(flag...flag + 1)
            try await ServerFleetBench.run(databaseURL: url, records: rest.first.flatMap(Int.init) ?? 100_000, pushes: 1000)
        } else {
            try ServerBench.run(records: rest.first.flatMap(Int.init) ?? 100_000)
        }
    case "caldav": try await CalDAVBench.run(count: arguments.dropFirst().compactMap { Int($0) }.first ?? 10_000, databaseURL: arguments.firstIndex(of: "--database-url").flatMap { arguments.dropFirst($0 + 1).first })
    case "postgres-driver":
        // postgres-nio on the work of Resources/bench/libpq-driver-bench.c (the driver choice, measured).
        guard arguments.count > 1 else { throw DriverBenchFailure("usage: todo-bench postgres-driver URL [BATCHES [LOOKUPS]]") }
        let counts = arguments.dropFirst(2).compactMap { Int($0) }
        try await PostgresDriverBench.run(url: arguments[1], batches: counts.first ?? 100, lookups: counts.dropFirst().first ?? 20_000)
    case "postgres-store":
        // One instance on PostgreSQL beside one on SQLite: 200-record batch writes and the changes/zone read.
        guard arguments.count > 1 else { throw DriverBenchFailure("usage: todo-bench postgres-store URL [RECORDS]") }
        try await PostgresStoreBench.run(url: arguments[1], records: arguments.dropFirst(2).first.flatMap(Int.init) ?? 100_000)
    default:
        print(
            "usage: todo-bench server [RECORDS] [--database-url URL] | postgres-driver URL [BATCHES [LOOKUPS]] | postgres-store URL [RECORDS] | tls [IDLE-CONNECTIONS [HANDSHAKES]] | device [TODOS [LARGE-TODOS]] [--tls] | create [TODOS [LARGE-TODOS]] | sync [TODOS [RUNS [BASELINE-DIR]]] | ui | share | near [RECORDS] | interchange [TODOS] | descriptor-flood [TODO] [COUNT [ADDRESSES [LIMIT [ROUNDS]]]] [--SERVER-OPTION VALUE...]"
        )
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
