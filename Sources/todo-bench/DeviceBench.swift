import CloudClient
import CloudModel
import Foundation
import Synchronization
import TodoStore
import TodoSync

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench device`: the device figures of issue 3, against a cloud in a process of its own.
///
/// Devices A (uploads), B (fresh, syncs) and C (listens for pushes) run in this process; the peak RSS of an initial
/// sync is measured on the real `todo sync` binary in a child process, which does nothing else.
enum DeviceBench {
    static let password = "bench-password"

    /// With `tls`, the cloud serves HTTPS (a self-signed P-256 certificate the devices trust as their CA file).
    static func run(count: Int = 10_000, largeCount: Int = 100_000, edits: Int = 500, tls: Bool = false) async throws {
        print("== device benchmark (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores, cloud in its own process\(tls ? ", over TLS" : "")) ==")
        let todo = try todoExecutable()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-devbench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let certificate = tls ? try BenchCertificate(in: scratch) : nil
        let server = try ServerProcess(tls: certificate)
        defer { server.stop() }

        // Over TLS the cloud-alone and device-alone details are left out (they use the raw plain-HTTP client).
        let (a, items) = try await upload(count: count, server: server, in: scratch, details: !tls)

        // Initial sync of `count` todos: peak RSS (and time) of `todo sync` in a process that does only that.
        var rss: [Double] = []
        var walls: [Double] = []
        for run in 0..<3 {
            let directory = scratch.appendingPathComponent("rss-\(run)")
            let measured = try peakRSSOfChild(todo, [
                "sync", "--account", "upload", "--password", password, "--device", "rss\(run)", "--server", server.baseURL,
                "--data-dir", directory.path,
            ] + (certificate.map { ["--ca-file", $0.certificate.path] } ?? []))
            guard measured.status == 0 else { throw BenchError("todo sync exited with \(measured.status)") }
            rss.append(measured.megabytes)
            walls.append(measured.seconds)
        }
        let (b, initial) = try await initialSync("upload", device: "B", expecting: count, server: server, in: scratch)
        print(String(format: "initial sync of %d todos (in process):  %.3f s  (target <= 1 s)", count, initial))
        print(String(format: "  peak RSS of `todo sync` doing it:     %.1f–%.1f MB  (target <= 45 MB; 3 runs, whole process %.2f–%.2f s)",
                     rss.min() ?? 0, rss.max() ?? 0, walls.min() ?? 0, walls.max() ?? 0))

        // A sync with nothing to do, on the full device.
        var idle: [Double] = []
        for _ in 0..<21 {
            let idleStart = ContinuousClock.now
            await b.engine.sync(.push(.private))
            idle.append(seconds(since: idleStart) * 1000)
        }
        idle.sort()
        print(String(format: "sync with nothing to do, %d todos:     %.1f ms median, %.1f–%.1f ms  (target <= 10 ms; 21 runs)", count,
                     percentile(idle, 0.5), idle.first ?? 0, idle.last ?? 0))

        // Edit on A → applied in C's store, carried by a push.
        let c = try await open("upload", device: "C", server: server, in: scratch)
        await c.engine.start(listenForPushes: true)
        let target = items[0].key
        var latencies: [Double] = []
        for index in 0..<edits {
            let sent = ContinuousClock.now
            _ = try await a.engine.edit(target, TodoEdit(title: "edit \(index)"))
            await a.engine.sync(.localEdit)
            let deadline = ContinuousClock.now + .seconds(5)
            while try await c.store.todo(target)?.title != "edit \(index)" {
                guard ContinuousClock.now < deadline else { throw BenchError("edit \(index) never reached C") }
                try await Task.sleep(nanoseconds: 200_000)
            }
            latencies.append(seconds(since: sent) * 1000)
        }
        latencies.sort()
        print(String(format: "edit on A -> applied in C's store (push, %d edits): p50 %.1f ms, p99 %.1f ms  (targets <= 20 ms, <= 60 ms)",
                     edits, percentile(latencies, 0.5), percentile(latencies, 0.99)))
        await c.close()
        await b.close()
        await a.close()

        // The large device: `largeCount` todos written straight to the cloud, then one fresh device's initial sync.
        if largeCount > 0 && !tls {
            try UIBench.upload(largeCount, to: server, account: "large")
            let (large, elapsed) = try await initialSync("large", device: "fresh", expecting: largeCount, server: server, in: scratch)
            print(String(format: "initial sync of %d todos (in process): %.3f s  (target <= 10 s)", largeCount, elapsed))
            await large.close()
        }
    }

    /// Device A queues `count` new todos offline, then sends them; prints the figures and answers A and its todos.
    ///
    /// With `details`, also the device's steps without a network and the cloud alone on the same writes.
    static func upload(
        count: Int, server: ServerProcess, in scratch: URL, details: Bool = true
    ) async throws -> (DeviceSession, [TodoItem]) {
        var timing: TimingTransport?
        let a = try await open("upload", device: "A", server: server, in: scratch) { base in
            let wrapped = TimingTransport(wrapping: base)
            timing = wrapped
            return wrapped
        }
        guard let timing else { throw BenchError("no timing transport") }
        await a.engine.start(listenForPushes: false)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let items = (0..<count).map { index in
            var item = TodoItem(
                key: .privateTodo(String(format: "bench-%06d", index)), title: "Todo number \(index) with a realistic title",
                notes: index % 3 == 0 ? "some notes" : "", priority: index % 4)
            item.editStamps = "*=\(now + Int64(index)),0,0123456789abcdef"  // as `add` stamps a new todo
            return item
        }
        try await a.store.saveLocalEdits(items, at: now)
        timing.reset()
        let cpuBefore = processCPUSeconds()
        let serverBefore = cpuSeconds(pid: server.process.processIdentifier)
        let start = ContinuousClock.now
        await a.engine.sync(.localEdit)
        let upload = seconds(since: start)
        let uploadCPU = processCPUSeconds() - cpuBefore
        let serverCPU = cpuSeconds(pid: server.process.processIdentifier) - serverBefore
        let inFlight = timing.busySeconds()
        let left = try await a.store.pendingCount()
        guard left == 0 else { throw BenchError("upload left \(left) changes queued") }
        print(String(format: "upload of %d offline edits:            %.3f s  (target <= 0.35 s)", count, upload))
        print(String(format: "  device CPU %.3f s, cloud CPU %.3f s; a request in flight %.3f s, none in flight %.3f s (%d requests)",
                     uploadCPU, serverCPU, inFlight, upload - inFlight, timing.requests))
        guard details else { return (a, items) }
        let alone = try await engineAlone(items, server: server, in: scratch)
        print(String(format: "  device alone, the same upload against instant canned answers: %.3f s (CPU %.3f s)", alone.wall, alone.cpu))
        let parts = try await deviceParts(count: count, in: scratch)
        print("  its steps (CPU): \(parts)")
        let floor = try serverAlone(server, count: count)
        print(String(format: "  cloud alone: the same %d records as %d pre-encoded requests, <= 3 in flight: %.3f s", count,
                     (count + 199) / 200, floor))

        return (a, items)
    }

    /// The whole upload through the engine of a second device whose `records/modify` answers are canned in advance:
    /// what the device spends with no network and no cloud (other requests still go to the cloud).
    static func engineAlone(_ items: [TodoItem], server: ServerProcess, in scratch: URL) async throws -> (wall: Double, cpu: Double) {
        let canned = CannedTransport()
        let device = try await open("canned", device: "A2", server: server, in: scratch) { base in CannedModify(canned, base) }
        await device.engine.start(listenForPushes: false)
        try await device.store.saveLocalEdits(items, at: Int64(Date().timeIntervalSince1970 * 1000))
        // The answers, as the cloud would give them, for every batch the outbox can make.
        let pending = try await device.store.pendingChanges()
        for batch in OutboxBatcher.batches(pending) { canned.prepare(answeringFor: batch.request) }
        let cpuBefore = processCPUSeconds()
        let start = ContinuousClock.now
        await device.engine.sync(.localEdit)
        let wall = seconds(since: start)
        let cpu = processCPUSeconds() - cpuBefore
        let left = try await device.store.pendingCount()
        guard left == 0 else { throw BenchError("the canned upload left \(left) changes queued") }
        await device.close()
        return (wall, cpu)
    }

    /// The `todo` executable built beside this one.
    static func todoExecutable() throws -> String {
        let me = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let todo = me.deletingLastPathComponent().appendingPathComponent("todo").path
        guard FileManager.default.isExecutableFile(atPath: todo) else {
            throw BenchError("no todo executable at \(todo); build it first: swift build -c release --product todo")
        }
        return todo
    }

    /// A signed-in device of `account` with its cache under `directory`.
    static func open(
        _ account: String, device: String, server: ServerProcess, in directory: URL,
        wrap: (any HTTPTransport) -> any HTTPTransport = { $0 }
    ) async throws -> DeviceSession {
        var options = DeviceOptions(
            account: account, device: device, server: URL(string: server.baseURL), dataDirectory: directory, password: password,
            startsLocalServer: false, sendsAutomatically: false)
        if let tls = server.tls {
            options.transport = try CloudTransport.make(trust: TrustSettings(caFile: tls.certificate.path))
            // The raw bench client speaks plain HTTP only: the account is made through the device's own client.
            _ = try? await CloudClient(baseURL: URL(string: server.baseURL)!, transport: options.transport).createAccount(
                account: account, password: password)
        } else {
            BenchAccounts.create(server.baseURL, account: account)
        }
        options.transport = wrap(options.transport)
        return try await DeviceSession.open(options)
    }

    /// A fresh device of `account` and the seconds its launch sync takes to hold all `count` todos of the cloud.
    static func initialSync(
        _ account: String, device: String, expecting count: Int, server: ServerProcess, in directory: URL
    ) async throws -> (DeviceSession, Double) {
        let session = try await open(account, device: device, server: server, in: directory)
        await session.engine.loadFromStore()
        let start = ContinuousClock.now
        await session.engine.sync(.launch)
        let elapsed = seconds(since: start)
        let held = try await session.store.recordCount()
        guard held == count else { throw BenchError("device \(device) holds \(held) of \(count) todos") }
        return (session, elapsed)
    }

    /// Seconds the cloud takes for `count` new records as pre-encoded 200-record requests, at most three in flight.
    static func serverAlone(_ server: ServerProcess, count: Int) throws -> Double {
        let device = try BenchAccounts.signIn(server.baseURL, account: "floor", device: "raw")
        try createBenchTodosZone(server, token: device.token)
        let bodies = benchModifyBodies(count: count)
        let path = ContainerAddress.default.path(of: .recordsModify, in: .private)
        let port = server.port
        let next = LockedCounter()
        let failures = LockedCounter()
        let done = DispatchGroup()
        let start = ContinuousClock.now
        for _ in 0..<3 {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                guard let connection = try? RawHTTPConnection(port: port) else {
                    _ = failures.increment()
                    return
                }
                while true {
                    let index = next.increment() - 1
                    guard index < bodies.count else { break }
                    let answer = try? connection.request("POST", path, body: bodies[index], token: device.token)
                    if answer?.status != 200 { _ = failures.increment() }
                }
            }
        }
        done.wait()
        let elapsed = seconds(since: start)
        guard failures.value == 0 else { throw BenchError("\(failures.value) raw writes failed") }
        return elapsed
    }

    /// The device's own work for an upload of `count` edits, without a network, in CPU seconds: reading the outbox,
    /// encoding the requests and decoding canned answers, and applying the acknowledgements in one transaction per batch.
    static func deviceParts(count: Int, in directory: URL) async throws -> DeviceParts {
        let store = try await TodoStore(url: directory.appendingPathComponent("parts.sqlite"))
        let items = (0..<count).map { index in
            TodoItem(key: .privateTodo(String(format: "part-%06d", index)), title: "Todo number \(index) with a realistic title",
                     notes: index % 3 == 0 ? "some notes" : "", priority: index % 4)
        }
        try await store.saveLocalEdits(items, at: 1_790_000_000_000)

        var parts = DeviceParts()
        let canned = CannedTransport()
        let client = CloudClient(baseURL: URL(string: "http://127.0.0.1:9")!, transport: canned, authToken: "token")
        // As the engine goes: a chunk of the outbox, its batches sent (here: answered at once), each batch acknowledged.
        // Process CPU time, not wall time: nothing else runs in this process meanwhile, and other processes on the
        // machine do not inflate it.
        while true {
            var start = processCPUSeconds()
            let pending = try await store.pendingChanges(limit: CloudLimits.maxOperationsPerRequest * 10)
            parts.reads += processCPUSeconds() - start
            if pending.isEmpty { break }
            start = processCPUSeconds()
            let batches = OutboxBatcher.batches(pending)
            parts.batching += processCPUSeconds() - start
            for batch in batches {
                canned.prepare(answeringFor: batch.request)
                start = processCPUSeconds()
                let results = try await client.modifyRecords(.private, body: batch.requestBody)
                let end = processCPUSeconds()
                let called = canned.lastCalledCPU ?? end
                parts.encode += called - start
                parts.decode += end - called
                start = processCPUSeconds()
                var confirmed: [SentChange] = []
                confirmed.reserveCapacity(batch.changes.count)
                for (change, result) in zip(batch.changes, results) {
                    if case .record(let saved) = result { confirmed.append(SentChange(change, result: .saved(saved))) }
                }
                try await store.confirm(confirmed)
                parts.acks += processCPUSeconds() - start
            }
        }
        let left = try await store.pendingCount()
        guard left == 0 else { throw BenchError("acknowledgements left \(left) changes queued") }
        await store.close()
        return parts
    }
}

/// CPU seconds the device's own steps of an upload took.
struct DeviceParts: CustomStringConvertible {
    var reads = 0.0
    var batching = 0.0
    var encode = 0.0
    var decode = 0.0
    var acks = 0.0

    var description: String {
        String(
            format: "outbox reads %.3f s, batching %.3f s, request encode %.3f s, answer decode %.3f s, acknowledgements %.3f s",
            reads, batching, encode, decode, acks)
    }
}

/// Answers `records/modify` with the records it was given, saved with a change tag (fields only as `desiredKeys`
/// asks, as the cloud does): answers prepared in advance, found by the request's first record name (so the engine's
/// batching need not be known here).
final class CannedTransport: HTTPTransport, Sendable {
    private struct State {
        var answers: [String: Data] = [:]
        var called: Double?
    }
    private let state = Mutex(State())

    /// The process CPU time when the last request reached the transport (its body encoded).
    var lastCalledCPU: Double? { state.withLock { $0.called } }

    /// Prepares the answer to one request, as the cloud would write it.
    func prepare(answeringFor request: ModifyRecordsRequest) {
        var answer = RecordsResponseWriter(reserving: 300 * request.operations.count)
        for (index, operation) in request.operations.enumerated() {
            var record = operation.record
            if let keys = operation.desiredKeys ?? request.desiredKeys { record.fields = record.fields?.filter { keys.contains($0.key) } }
            record.recordChangeTag = "t\(index)"
            record.created = RecordStamp(timestamp: 1_790_000_000_000, userRecordName: "_bench", deviceID: "device")
            record.modified = record.created
            answer.record(record)
        }
        let name = request.operations.first?.record.recordName ?? ""
        let body = Data(answer.finish())
        state.withLock { $0.answers[name] = body }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let cpu = processCPUSeconds()
        let name = Self.firstRecordName(request.body ?? Data())
        let body = state.withLock { state in
            state.called = cpu
            return state.answers.removeValue(forKey: name)
        }
        guard let body else { return HTTPResponse(status: 500, body: Data("no canned answer for \(name)".utf8)) }
        return HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: body)
    }

    /// The value of the first `"recordName":"…"` in a request body (near its start).
    static func firstRecordName(_ body: Data) -> String {
        let bytes = [UInt8](body.prefix(1024))
        let needle = Array(#""recordName":""#.utf8)
        guard bytes.count > needle.count else { return "" }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] && Array(bytes[start..<start + needle.count]) == needle {
            let from = start + needle.count
            let end = bytes[from...].firstIndex(of: 0x22) ?? bytes.count
            return String(decoding: bytes[from..<end], as: UTF8.self)
        }
        return ""
    }
}

/// Serves `records/modify` from canned answers and passes every other request on.
final class CannedModify: HTTPTransport, @unchecked Sendable {
    private let canned: CannedTransport
    private let base: any HTTPTransport

    init(_ canned: CannedTransport, _ base: any HTTPTransport) {
        self.canned = canned
        self.base = base
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.url.path.hasSuffix(Endpoint.recordsModify.path) { return try await canned.send(request) }
        return try await base.send(request)
    }
}

/// Passes requests on and keeps when each was in flight, to tell waiting for the cloud from the device's own work.
final class TimingTransport: HTTPTransport, Sendable {
    private let base: any HTTPTransport
    private let intervals = Mutex<[(ContinuousClock.Instant, ContinuousClock.Instant)]>([])

    init(wrapping base: any HTTPTransport) { self.base = base }

    func reset() { intervals.withLock { $0.removeAll() } }

    var requests: Int { intervals.withLock { $0.count } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let start = ContinuousClock.now
        defer {
            let end = ContinuousClock.now
            intervals.withLock { $0.append((start, end)) }
        }
        return try await base.send(request)
    }

    /// Seconds during which at least one request was in flight (the union of the intervals).
    func busySeconds() -> Double {
        let sorted = intervals.withLock { $0 }.sorted { $0.0 < $1.0 }
        var total = Duration.zero
        var current: (ContinuousClock.Instant, ContinuousClock.Instant)?
        for interval in sorted {
            if let open = current, interval.0 <= open.1 {
                current = (open.0, max(open.1, interval.1))
            } else {
                if let open = current { total += open.1 - open.0 }
                current = interval
            }
        }
        if let open = current { total += open.1 - open.0 }
        return Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
    }
}

/// A counter shared by threads.
final class LockedCounter: Sendable {
    private let count = Mutex(0)

    /// Adds one and answers the new value.
    func increment() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }

    var value: Int { count.withLock { $0 } }
}

/// User + system CPU seconds of this process.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// User + system CPU seconds of another process, from `/proc/PID/stat` (clock-tick resolution).
func cpuSeconds(pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Runs `executable` with `arguments` through `todo-bench _peak-rss` and answers its peak RSS, exit status and wall time.
///
/// The measuring helper forks a small process of its own and execs the program in it, so the figure is the program's
/// own high-water mark and not this (large) process's, which a spawned child would inherit until its exec.
func peakRSSOfChild(_ executable: String, _ arguments: [String]) throws -> (megabytes: Double, status: Int32, seconds: Double) {
    let helper = Process()
    helper.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    helper.arguments = ["_peak-rss", executable] + arguments
    let pipe = Pipe()
    helper.standardOutput = pipe
    let start = ContinuousClock.now
    try helper.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    helper.waitUntilExit()
    let elapsed = seconds(since: start)
    let words = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
    guard helper.terminationStatus == 0, words.count >= 2, let kb = Double(words[0]), let status = Int32(words[1]) else {
        throw BenchError("_peak-rss failed: \(String(decoding: output, as: UTF8.self))")
    }
    return (kb / 1024, status, elapsed)
}

/// `todo-bench _peak-rss EXE ARGS...`: fork, exec, wait; prints the child's peak RSS in kB and its exit status.
///
/// Its own output is discarded; only this helper's two numbers reach standard output.
func measurePeakRSS(_ arguments: [String]) -> Int32 {
    guard let executable = arguments.first else { return 2 }
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let devnull = open("/dev/null", O_WRONLY)
    let pid = fork()
    if pid == 0 {
        dup2(devnull, 1)
        execv(executable, argv)
        _exit(127)
    }
    guard pid > 0 else { return 1 }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid else { return 1 }
    let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    print("\(usage.ru_maxrss) \(exited)")
    return 0
}
