import CloudModel
import Foundation
import Synchronization

/// `todo-bench server --database-url URL`: the cloud as two instances over PostgreSQL behind nginx, measured beside
/// the embedded SQLite cloud (one instance, directly and behind the same nginx) in one run: writes in 200-record
/// batches, a full `changes/zone` read, and push from a write on one instance to a device long-polling another.
enum ServerFleetBench {
    /// What one cloud set-up measured.
    struct Figures {
        var sequentialWrites: Double
        var concurrentWrites: Double
        var read: Double
        /// The median of three more full reads after the first.
        var reread: Double
        var pushP50: Double
        var pushP99: Double
    }

    /// Writers of the concurrent write figure, each its own account (and so its own zone).
    static let concurrentWriters = 4
    /// What a per-item error inside a 200 answer contains.
    static let errorMarker = Array("serverErrorCode".utf8)

    static func run(databaseURL: String, records: Int, pushes: Int) async throws {
        print("== server benchmark: SQLite beside PostgreSQL (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores) ==")
        print("records \(records), \(concurrentWriters) concurrent writers for the concurrent figure, \(pushes) pushes")
        var columns: [(String, Figures)] = []

        do {
            let sqlite = try ServerProcess()
            defer { sqlite.stop() }
            columns.append(("SQLite, 1 instance", try measure(entryPort: sqlite.port, instances: [sqlite], records: records, pushes: pushes)))
            if BenchNginx.binary != nil {
                let figures = try await BenchNginx.inFront(of: [sqlite.port]) { nginx in
                    try measure(entryPort: nginx.port, instances: [sqlite], records: records, pushes: pushes)
                }
                columns.append(("SQLite, 1 behind nginx", figures))
            }
        }

        if BenchNginx.binary == nil {
            print("SKIPPED the PostgreSQL figures: nginx is not installed (apt-get install nginx)")
        } else {
            let first = try ServerProcess(extraArguments: ["--database-url", databaseURL])
            defer { first.stop() }
            let second = try ServerProcess(extraArguments: ["--database-url", databaseURL])
            defer { second.stop() }
            let figures = try await BenchNginx.inFront(of: [first.port, second.port]) { nginx in
                try measure(entryPort: nginx.port, instances: [first, second], records: records, pushes: pushes)
            }
            columns.append(("PostgreSQL, 2 behind nginx", figures))
        }
        printTable(columns)
    }

    /// Writes, reads and pushes against one set-up: requests through `entryPort`, the push written on the first
    /// instance and awaited on the last.
    static func measure(entryPort: Int, instances: [ServerProcess], records: Int, pushes: Int) throws -> Figures {
        let base = "http://127.0.0.1:\(entryPort)"
        let run = UUID().uuidString.prefix(8).lowercased()

        let writer = try BenchAccounts.signIn(base, account: "bench-\(run)", device: "writer")
        try createZone(base, writer)
        let connection = try RawHTTPConnection(port: entryPort)
        let sequential = try timeWrites(records: records, connections: [(connection, writer)])

        let devices = try (0..<concurrentWriters).map { index -> (RawHTTPConnection, BenchDevice) in
            let device = try BenchAccounts.signIn(base, account: "bench-\(run)-\(index)", device: "writer")
            try createZone(base, device)
            return (try RawHTTPConnection(port: entryPort), device)
        }
        let concurrent = try timeWrites(records: records / concurrentWriters, connections: devices)

        let start = ContinuousClock.now
        let read = try ServerBench.readAllRaw(connection, writer)
        let elapsed = seconds(since: start)
        guard read == records else { throw BenchError("read \(read) of \(records) records") }
        // The same read three more times, each on a connection of its own (nginx ends a client's connection after
        // 1,000 requests): the first read above pays for what follows the writes (PostgreSQL sets the hint bits of
        // every row it reads first, autovacuum, the cloud's ANALYZE); these show the read alone.
        var rereads: [Double] = []
        for _ in 0..<3 {
            let again = ContinuousClock.now
            let count = try ServerBench.readAllRaw(try RawHTTPConnection(port: entryPort), writer)
            guard count == records else { throw BenchError("read \(count) of \(records) records") }
            rereads.append(Double(count) / seconds(since: again))
        }

        // Push: the writer writes on the first instance, the reader long-polls the last one.
        let writing = instances[0].baseURL
        let polling = instances[instances.count - 1].baseURL
        let pushWriter = try BenchAccounts.signIn(writing, account: "push-\(run)", device: "writer")
        try createZone(writing, pushWriter)
        let reader = try BenchAccounts.signIn(polling, account: "push-\(run)", device: "reader")
        _ = try HTTP.shared.post(
            polling + ContainerAddress.default.path(of: .subscriptionsModify, in: .private),
            ModifySubscriptionsRequest(
                operations: [.init(.create, Subscription(subscriptionID: TodoSchema.privateSubscriptionID, subscriptionType: .database))]),
            token: reader.token, as: SubscriptionsResponse.self)
        let created = try HTTP.shared.post(
            polling + ContainerAddress.default.path(of: .tokensCreate), CreateTokenRequest(), token: reader.token,
            as: CreateTokenResponse.self)
        _ = try HTTP.shared.post(
            polling + ContainerAddress.default.path(of: .tokensRegister), RegisterTokenRequest(apnsToken: created.apnsToken),
            token: reader.token, as: RegisterTokenRequest.self)
        let latencies = try ServerBench.measurePush(
            courier: created.webcourierURL, modify: writing + ContainerAddress.default.path(of: .recordsModify, in: .private),
            writer: pushWriter, count: pushes, zone: ZoneID(zoneName: TodoSchema.zoneName))
        return Figures(
            sequentialWrites: sequential, concurrentWrites: concurrent, read: Double(read) / elapsed, reread: CreateBench.median(rereads),
            pushP50: percentile(latencies, 0.5), pushP99: percentile(latencies, 0.99))
    }

    /// Sends `records` new todos in 200-record batches on each of `connections` at once (one thread each, each
    /// device to its own zone); the records written per second, all connections together.
    private static func timeWrites(records: Int, connections: [(RawHTTPConnection, BenchDevice)]) throws -> Double {
        let bodies = benchModifyBodies(count: records)
        let path = ContainerAddress.default.path(of: .recordsModify, in: .private)
        let failures = FailureLog()
        let done = DispatchGroup()
        let start = ContinuousClock.now
        for (connection, device) in connections {
            let job = WriteJob(connection: connection, token: device.token)
            done.enter()
            Thread {
                defer { done.leave() }
                for body in bodies {
                    do {
                        let answer = try job.connection.request("POST", path, body: body, token: job.token)
                        // Every record must have been saved: a per-item error inside a 200 counts as a failure too.
                        guard answer.status == 200, firstIndex(of: Self.errorMarker, in: answer.body) == nil else {
                            failures.note("write answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                            return
                        }
                    } catch {
                        failures.note("write failed: \(error)")
                        return
                    }
                }
            }.start()
        }
        done.wait()
        let elapsed = seconds(since: start)
        if let failure = failures.first { throw BenchError(failure) }
        return Double(records * connections.count) / elapsed
    }

    private static func createZone(_ base: String, _ device: BenchDevice) throws {
        _ = try HTTP.shared.post(
            base + ContainerAddress.default.path(of: .zonesModify, in: .private),
            ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: TodoSchema.zoneName))]), token: device.token,
            as: ZonesResponse.self)
    }

    private static func printTable(_ columns: [(String, Figures)]) {
        func row(_ title: String, _ target: String, _ value: (Figures) -> String) {
            let cells = columns.map { value($0.1).padding(toLength: 28, withPad: " ", startingAt: 0) }.joined()
            print(title.padding(toLength: 44, withPad: " ", startingAt: 0) + cells + target)
        }
        print("")
        print("".padding(toLength: 44, withPad: " ", startingAt: 0) + columns.map { $0.0.padding(toLength: 28, withPad: " ", startingAt: 0) }.joined() + "target (PostgreSQL)")
        row("writes, 200-record batches, 1 connection", ">= 20,000 records/s") { String(format: "%.0f records/s", $0.sequentialWrites) }
        row("writes, 200-record batches, \(concurrentWriters) accounts", "") { String(format: "%.0f records/s", $0.concurrentWrites) }
        row("full changes/zone read", ">= 100,000 records/s") { String(format: "%.0f records/s", $0.read) }
        row("the same read again (median of 3)", "") { String(format: "%.0f records/s", $0.reread) }
        row("push, write on A -> long-poll on B", "p50 <= 5 ms, p99 <= 20 ms") { String(format: "p50 %.2f, p99 %.2f ms", $0.pushP50, $0.pushP99) }
    }
}

/// One writer thread's connection (used by that thread alone) and its device's token.
private final class WriteJob: @unchecked Sendable {
    let connection: RawHTTPConnection
    let token: String

    init(connection: RawHTTPConnection, token: String) {
        self.connection = connection
        self.token = token
    }
}

/// The first failure of concurrent writers.
private final class FailureLog: Sendable {
    private let failure = Mutex<String?>(nil)

    func note(_ text: String) { failure.withLock { if $0 == nil { $0 = text } } }

    var first: String? { failure.withLock { $0 } }
}
