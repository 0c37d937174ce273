import CloudModel
import CloudServer
import Foundation
import Synchronization
import TodoStore


/// A `todo server` child process on a free loopback port with a throwaway data directory.
final class ServerProcess {
    /// The cloud's process (a new one after `restart()`).
    var process = Process()
    /// The loopback port the cloud listens on.
    private(set) var port: Int
    let directory: URL
    /// The certificate the cloud serves HTTPS with, nil for plain HTTP.
    let tls: BenchCertificate?
    var baseURL: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// Starts the cloud of `executable` (a `todo-bench`; this one when nil), over HTTPS when `tls` is given.
    ///
    /// The port is a random one below Linux's range of outgoing ports (32768 and up), where the bench's own
    /// connections would otherwise take it now and then (`EADDRINUSE`); a cloud that still cannot listen exits, and
    /// another port is tried, up to five.
    init(executable: String? = nil, extraArguments: [String] = [], tls: BenchCertificate? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-bench-\(UUID().uuidString)")
        port = Int.random(in: 20_000...32_000)
        self.tls = tls
        let executable = try executable ?? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        for _ in 0..<5 {
            // The same server code `todo server` runs, in a child process of its own so its memory is its own.
            process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments =
                ["_server", "\(port)", directory.path] + extraArguments
                + (tls.map { ["--tls-cert", $0.certificate.path, "--tls-key", $0.key.path] } ?? [])
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, process.isRunning {
                // Over HTTPS the raw client cannot ask /health: the lock file says when the cloud listens.
                if tls != nil ? ServerLockFile.running(in: directory) != nil : (try? HTTP.shared.get(baseURL + EndpointAPI.healthPath))?.status == 200 {
                    return
                }
                usleep(50_000)
            }
            guard !process.isRunning else { break }
            port = Int.random(in: 20_000...32_000)
        }
        if process.isRunning { process.terminate() }
        throw BenchError("server did not start")
    }

    /// Peak resident set of the server process, in MB (VmHWM).
    var peakRSSMegabytes: Double {
        peakRSS(pid: process.processIdentifier)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Peak resident set size of a process in MB.
func peakRSS(pid: Int32) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kb / 1024
    }
    return 0
}

/// A tiny synchronous JSON-over-HTTP client for benchmarks, over pooled keep-alive sockets.
///
/// No URLSession: linking FoundationNetworking (libcurl, TLS and Kerberos libraries) would add megabytes to every
/// bench process, the measured app child included, that the `todo` binary does not carry.
final class HTTP: Sendable {
    static let shared = HTTP()
    private let idle = Mutex<[Int: [Pooled]]>([:])

    /// A connection is either idle here or with the one request using it, never shared.
    private struct Pooled: @unchecked Sendable {
        let connection: RawHTTPConnection
    }

    struct Answer {
        var status: Int
        var body: Data
    }

    func get(_ url: String) throws -> Answer { try send("GET", url, body: nil, token: nil) }

    func send(_ method: String, _ url: String, body: Data?, token: String?) throws -> Answer {
        guard let components = URLComponents(string: url), let port = components.port else { throw BenchError("bad URL \(url)") }
        let path = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let bytes = body.map { [UInt8]($0) } ?? []
        // A pooled connection the server closed meanwhile fails once; a fresh one does not.
        if let pooled = take(port), let answer = try? pooled.request(method, path, body: bytes, token: token) {
            give(pooled, port)
            return Answer(status: answer.status, body: Data(answer.body))
        }
        let connection = try RawHTTPConnection(port: port)
        let answer = try connection.request(method, path, body: bytes, token: token)
        give(connection, port)
        return Answer(status: answer.status, body: Data(answer.body))
    }

    private func take(_ port: Int) -> RawHTTPConnection? { idle.withLock { $0[port]?.popLast() }?.connection }

    private func give(_ connection: RawHTTPConnection, _ port: Int) {
        let pooled = Pooled(connection: connection)
        idle.withLock { $0[port, default: []].append(pooled) }
    }

    func post<T: Encodable, A: Decodable>(_ url: String, _ body: T, token: String?, as: A.Type) throws -> A {
        let answer = try send("POST", url, body: try JSONEncoder().encode(body), token: token)
        guard (200..<300).contains(answer.status) else {
            throw BenchError("\(url) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self).prefix(300))")
        }
        return try JSONDecoder().decode(A.self, from: answer.body)
    }
}

/// A signed-in bench device.
struct BenchDevice {
    var token: String
    var user: String
}

/// Account and device set-up against a cloud.
enum BenchAccounts {
    /// Creates `account` with the bench password (devices sign in to accounts that exist; none is created on the way).
    static func create(_ base: String, account: String) {
        _ = try? HTTP.shared.send(
            "POST", base + ContainerAddress.default.path(of: .createAccount),
            body: try JSONEncoder().encode(CreateAccountRequest(account: account, password: "bench-password")), token: nil)
    }

    static func signIn(_ base: String, account: String, device: String) throws -> BenchDevice {
        let address = ContainerAddress.default
        let password = "bench-password"
        _ = try? HTTP.shared.send(
            "POST", base + address.path(of: .createAccount),
            body: try JSONEncoder().encode(CreateAccountRequest(account: account, password: password)), token: nil)
        let answer = try HTTP.shared.post(
            base + address.path(of: .signIn), SignInRequest(account: account, password: password, deviceName: device),
            token: nil, as: SignInResponse.self)
        return BenchDevice(token: answer.ckWebAuthToken, user: answer.userRecordName)
    }
}

/// A record name as devices make them (`RecordNames`: a version 7 UUID), fixed by `index` so runs compare: the time
/// part ascends with the index, the random part is mixed from it.
func benchRecordName(_ index: Int) -> String {
    var mix = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
    mix ^= mix >> 29
    return RecordNames.format(millis: UInt64(1_790_000_000_000 + index), random: (mix >> 52, mix))
}

/// A realistic todo record for benchmarks.
func benchTodo(_ index: Int) -> Record {
    let titles = ["Buy milk", "Call the plumber", "Renew passport", "写周报", "Book dentist", "Pay electricity bill", "整理书架", "Plan trip to Kyoto"]
    return Record(
        recordName: benchRecordName(index), recordType: TodoSchema.todoType,
        fields: [
            "title": .string("\(titles[index % titles.count]) #\(index)"),
            "notes": .string(index % 3 == 0 ? "Remember to check the details before Friday." : ""),
            "isCompleted": .int64(Int64(index % 5 == 0 ? 1 : 0)), "priority": .int64(Int64(index % 4)),
            "isTrashed": .int64(0), "dueDate": .timestamp(1_790_000_000_000 + Int64(index) * 3_600_000),
            // Every record a device of this version creates carries when it was made.
            "editStamps": .string("*=\(1_790_000_000_000 + Int64(index)),0,0123456789abcdef"),
        ])
}

/// `benchTodo` as people plan: one or two tags, due within the next months (half at a time of day), some repeating.
func plannedBenchTodo(_ index: Int) -> Record {
    var record = benchTodo(index)
    let tags = ["home", "garden", "work", "errand", "call", "read"]
    var own = [tags[index % tags.count]]
    if index % 3 == 0 { own.append(tags[(index / 3 + 1) % tags.count]) }
    record.fields?["tags"] = .list(.string, own.map(FieldValue.string))
    // From now on, a few an hour: some overdue, some today, most later.
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    record.fields?["dueDate"] = .timestamp(now - 3 * 86_400_000 + Int64(index) * 600_000)
    record.fields?["allDay"] = .int64(index % 2 == 0 ? 1 : 0)
    if index % 10 == 0 { record.fields?["repeat"] = .string("FREQ=WEEKLY") }
    return record
}

/// Percentile of sorted samples.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// A benchmark failure, said plainly.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `records/modify` bodies creating `benchTodo(0..<count)` in the Todos zone, 200 records each (non-atomic).
func benchModifyBodies(count: Int, planned: Bool = false) -> [[UInt8]] {
    stride(from: 0, to: count, by: 200).map { batch in
        var body = ModifyRecordsRequestWriter(reserving: 64 * 1024)
        for index in batch..<min(batch + 200, count) {
            body.operation(RecordOperation(.create, planned ? plannedBenchTodo(index) : benchTodo(index)))
        }
        return body.finish(zoneID: ZoneID(zoneName: "Todos"), atomic: false, desiredKeys: nil)
    }
}

/// Creates the Todos zone of a bench account.
func createBenchTodosZone(_ server: ServerProcess, token: String) throws {
    _ = try HTTP.shared.post(
        server.baseURL + ContainerAddress.default.path(of: .zonesModify, in: .private),
        ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: TodoSchema.zoneName))]), token: token,
        as: ZonesResponse.self)
}
