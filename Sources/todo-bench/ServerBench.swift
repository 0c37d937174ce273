import CloudModel
import Foundation

/// `todo-bench server`: write throughput, full change-feed read, server RSS, push latency.
enum ServerBench {
    static func run(records: Int = 100_000, pushes: Int = 1000) throws {
        let address = ContainerAddress.default
        let todos = ZoneID(zoneName: TodoSchema.zoneName)
        print("== server benchmark (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores) ==")

        // Peak RSS holding 10,000 todos: a fresh server, written and then read back whole.
        do {
            let server = try ServerProcess()
            defer { server.stop() }
            let device = try BenchAccounts.signIn(server.baseURL, account: "rss", device: "writer")
            try createZone(server.baseURL, device)
            for batch in stride(from: 0, to: 10_000, by: 200) {
                let operations = (batch..<batch + 200).map { RecordOperation(.create, benchTodo($0)) }
                _ = try HTTP.shared.post(
                    server.baseURL + address.path(of: .recordsModify, in: .private),
                    ModifyRecordsRequest(operations: operations, zoneID: todos), token: device.token, as: RecordsResponse.self)
            }
            _ = try readAll(server.baseURL, device)
            print(String(format: "server peak RSS holding 10,000 todos:   %.1f MB   (target <= 50 MB)", server.peakRSSMegabytes))
        }

        let server = try ServerProcess()
        defer { server.stop() }
        let (writer, connection) = try sequentialWrites(server, records: records)
        let modify = server.baseURL + address.path(of: .recordsModify, in: .private)

        // Full changes/zone read.
        let start = ContinuousClock.now
        let read = try readAllRaw(connection, writer)
        let elapsed = seconds(since: start)
        guard read == records else { throw BenchError("read \(read) of \(records) records") }
        print(String(format: "full changes/zone read:                 %.0f records/s  (%d records in %.2f s; target >= 100,000/s)", Double(read) / elapsed, read, elapsed))

        // Push latency: from a write's response to the other device's notification.
        let reader = try BenchAccounts.signIn(server.baseURL, account: "bench", device: "reader")
        _ = try HTTP.shared.post(
            server.baseURL + address.path(of: .subscriptionsModify, in: .private),
            ModifySubscriptionsRequest(operations: [.init(.create, Subscription(subscriptionID: TodoSchema.privateSubscriptionID, subscriptionType: .database))]),
            token: writer.token, as: SubscriptionsResponse.self)
        let created = try HTTP.shared.post(
            server.baseURL + address.path(of: .tokensCreate), CreateTokenRequest(), token: reader.token, as: CreateTokenResponse.self)
        _ = try HTTP.shared.post(
            server.baseURL + address.path(of: .tokensRegister), RegisterTokenRequest(apnsToken: created.apnsToken),
            token: reader.token, as: RegisterTokenRequest.self)
        let latencies = try measurePush(courier: created.webcourierURL, modify: modify, writer: writer, count: pushes, zone: todos)
        print(String(format: "push latency (write response -> notification, %d writes): p50 %.2f ms, p99 %.2f ms  (targets <= 2 ms, <= 10 ms)",
                     pushes, percentile(latencies, 0.5), percentile(latencies, 0.99)))

        try publicQueries(server, records: records)
    }

    /// `records/query` over `records` public todos: the time of one page (the board's poll, sorted by modification,
    /// and the default order by name) at its start and deep in the set, and the cloud's resident memory before and
    /// after paging through all of it.
    static func publicQueries(_ server: ServerProcess, records: Int) throws {
        let owner = try BenchAccounts.signIn(server.baseURL, account: "board", device: "writer")
        let connection = try RawHTTPConnection(port: server.port)
        let modifyPath = ContainerAddress.default.path(of: .recordsModify, in: .public)
        for batch in stride(from: 0, to: records, by: 200) {
            let operations = (batch..<min(batch + 200, records)).map { RecordOperation(.create, benchTodo($0)) }
            let answer = try connection.request("POST", modifyPath, body: Array(try JSONEncoder().encode(ModifyRecordsRequest(operations: operations))), token: owner.token)
            guard answer.status == 200 else { throw BenchError("public write failed: \(answer.status)") }
        }
        let queryPath = ContainerAddress.default.path(of: .recordsQuery, in: .public)
        let polls: [(String, Query)] = [
            ("the board's poll (modified after, by modification)", Query(
                recordType: TodoSchema.todoType, filterBy: [QueryFilter(.greaterThan, systemFieldName: "modifiedTimestamp", .timestamp(0))],
                sortBy: [QuerySort(systemFieldName: "modifiedTimestamp")])),
            ("by record name", Query(recordType: TodoSchema.todoType)),
        ]
        let rssBefore = residentMegabytes(pid: server.process.processIdentifier)
        for (name, query) in polls {
            var marker: String?
            var samples: [Double] = []
            var count = 0
            repeat {
                let body = try JSONEncoder().encode(QueryRequest(query: query, resultsLimit: 200, continuationMarker: marker))
                let start = ContinuousClock.now
                let answer = try connection.request("POST", queryPath, body: Array(body), token: nil)
                samples.append(seconds(since: start) * 1000)
                guard answer.status == 200 else { throw BenchError("records/query failed: \(answer.status)") }
                let page = try JSONDecoder().decode(QueryResponse.self, from: Data(answer.body))
                count += page.records.count
                marker = page.continuationMarker
            } while marker != nil
            guard count == records else { throw BenchError("query \(name) read \(count) of \(records)") }
            let first = samples[0]
            let sorted = samples.sorted()
            print(String(format: "records/query one page of 200 over %d public records, %@: first %.2f ms, p50 %.2f ms, p99 %.2f ms, last %.2f ms  (target <= 10 ms)",
                         records, name, first, percentile(sorted, 0.5), percentile(sorted, 0.99), samples[samples.count - 1]))
        }
        let rssAfter = residentMegabytes(pid: server.process.processIdentifier)
        print(String(format: "  cloud resident memory before and after paging through all of them twice: %.1f MB, %.1f MB", rssBefore, rssAfter))
    }

    /// Current resident set of a process in MB (VmRSS).
    static func residentMegabytes(pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }

    /// Sequential writes of `records` new todos in 200-record batches on one connection, timed; prints the figures
    /// and answers the writing device and its connection.
    static func sequentialWrites(_ server: ServerProcess, records: Int) throws -> (BenchDevice, RawHTTPConnection) {
        let writer = try BenchAccounts.signIn(server.baseURL, account: "bench", device: "writer")
        try createZone(server.baseURL, writer)
        let todos = ZoneID(zoneName: TodoSchema.zoneName)
        let bodies = try stride(from: 0, to: records, by: 200).map { batch in
            try JSONEncoder().encode(
                ModifyRecordsRequest(operations: (batch..<min(batch + 200, records)).map { RecordOperation(.create, benchTodo($0)) }, zoneID: todos))
        }
        let connection = try RawHTTPConnection(port: server.port)
        let modifyPath = ContainerAddress.default.path(of: .recordsModify, in: .private)
        let cloudBefore = cpuSeconds(pid: server.process.processIdentifier)
        let benchBefore = processCPUSeconds()
        let start = ContinuousClock.now
        for body in bodies {
            let answer = try connection.request("POST", modifyPath, body: Array(body), token: writer.token)
            guard answer.status == 200 else { throw BenchError("write failed: \(answer.status)") }
        }
        let elapsed = seconds(since: start)
        let cloudCPU = cpuSeconds(pid: server.process.processIdentifier) - cloudBefore
        let benchCPU = processCPUSeconds() - benchBefore
        print(String(format: "sequential writes, 200-record batches:  %.0f records/s  (%d records in %.2f s; target >= 40,000/s)", Double(records) / elapsed, records, elapsed))
        print(String(format: "  cloud CPU %.2f s (%.1f µs a record), this client's CPU %.2f s", cloudCPU, cloudCPU / Double(records) * 1e6, benchCPU))
        return (writer, connection)
    }

    private static func createZone(_ base: String, _ device: BenchDevice) throws {
        _ = try HTTP.shared.post(
            base + ContainerAddress.default.path(of: .zonesModify, in: .private),
            ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: TodoSchema.zoneName))]), token: device.token,
            as: ZonesResponse.self)
    }

    /// Reads the whole Todos zone page by page; returns the record count.
    static func readAll(_ base: String, _ device: BenchDevice) throws -> Int {
        let url = base + ContainerAddress.default.path(of: .changesZone, in: .private)
        var token: ChangeToken?
        var count = 0
        while true {
            let page = try HTTP.shared.post(
                url, ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: ZoneID(zoneName: TodoSchema.zoneName), syncToken: token)]),
                token: device.token, as: ZoneChangesResponse.self)
            guard let zone = page.zones.first, zone.serverErrorCode == nil else { throw BenchError("changes/zone failed") }
            count += zone.records.count
            token = zone.syncToken
            if !zone.moreComing { return count }
        }
    }

    /// Reads the whole Todos zone over a raw connection, scanning pages for their token only.
    static func readAllRaw(_ connection: RawHTTPConnection, _ device: BenchDevice) throws -> Int {
        let path = ContainerAddress.default.path(of: .changesZone, in: .private)
        var token: String?
        var count = 0
        while true {
            let tokenJSON = token.map { ",\"syncToken\":\"\($0)\"" } ?? ""
            let body = "{\"zones\":[{\"zoneID\":{\"zoneName\":\"\(TodoSchema.zoneName)\"}\(tokenJSON)}]}"
            let answer = try connection.request("POST", path, body: Array(body.utf8), token: device.token)
            guard answer.status == 200 else { throw BenchError("changes/zone failed: \(answer.status)") }
            let page = scanPage(answer.body)
            count += page.records
            token = page.token
            if !page.moreComing { return count }
        }
    }

    /// Writes one record at a time while another device long-polls; returns sorted latencies in ms.
    static func measurePush(courier: String, modify: String, writer: BenchDevice, count: Int, zone: ZoneID) throws -> [Double] {
        let arrivals = ArrivalLog()
        let poller = Thread {
            var ack = "none"
            while arrivals.wanted > 0 {
                guard let answer = try? HTTP.shared.get("\(courier)?timeout=10&ack=\(ack)") else { continue }
                if answer.status == 200, let push = try? JSONDecoder().decode(PushNotification.self, from: answer.body) {
                    ack = push.ck.nid
                    arrivals.arrived()
                }
            }
        }
        arrivals.wanted = count
        poller.start()
        func write(_ name: String, _ index: Int) throws -> ContinuousClock.Instant {
            var record = benchTodo(index)
            record.recordName = name
            let body = try JSONEncoder().encode(ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
            let answer = try HTTP.shared.send("POST", modify, body: body, token: writer.token)
            guard answer.status == 200 else { throw BenchError("push write failed") }
            return ContinuousClock.now
        }
        // Until its first poll reached an instance, the courier has no mailbox there (a device polls before it
        // fetches): a first write is repeated until its notification arrives, and only then are writes timed.
        var warmedUp = false
        for attempt in 0..<20 where !warmedUp {
            let before = arrivals.count
            _ = try write("push-warm-up-\(attempt)", attempt)
            warmedUp = arrivals.wait(beyond: before, timeout: 0.5) != nil
        }
        guard warmedUp else { throw BenchError("no notification reached the courier in 20 tries") }
        var latencies: [Double] = []
        for index in 0..<count {
            let before = arrivals.count
            let responded = try write("push-\(index)", index)
            guard let arrived = arrivals.wait(beyond: before, timeout: 5) else { throw BenchError("notification \(index) never came") }
            let delta = arrived - responded
            latencies.append(max(0, Double(delta.components.seconds) * 1000 + Double(delta.components.attoseconds) / 1e15))
            usleep(2_000)
        }
        arrivals.wanted = 0
        return latencies.sorted()
    }
}

/// Counts notification arrivals and when the last came.
final class ArrivalLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrivals: [ContinuousClock.Instant] = []
    private var remaining = 0

    var wanted: Int {
        get { condition.withLock { remaining } }
        set { condition.withLock { remaining = newValue } }
    }

    var count: Int { condition.withLock { arrivals.count } }

    func arrived() {
        condition.withLock {
            arrivals.append(.now)
            condition.broadcast()
        }
    }

    /// The instant of the arrival after `count`, waiting up to `timeout` seconds.
    func wait(beyond count: Int, timeout: Double) -> ContinuousClock.Instant? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while arrivals.count <= count {
            if !condition.wait(until: deadline) { return nil }
        }
        return arrivals[count]
    }
}
