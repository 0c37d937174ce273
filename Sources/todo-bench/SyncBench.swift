import Foundation
import TodoStore
import TodoSync

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench sync [TODOS [RUNS [BASELINE-DIR]]]`: `todo sync` sending TODOS todos created offline, the real binary
/// as a whole process, with its CPU time and the cloud's beside the wall time.
///
/// With BASELINE-DIR (a directory holding another build's `todo` and `todo-bench`), that build runs too — its own
/// cloud and its own `todo` — alternating with this one run by run, so both meet the same machine load: before and
/// after in one run.
enum SyncBench {
    /// One build under test: its `todo` and the cloud its `todo-bench` serves.
    struct Build {
        var name: String
        var todo: String
        var bench: String
    }

    /// What one `todo sync` took.
    struct Measured {
        var wall: Double
        var deviceCPU: Double
        var cloudCPU: Double
    }

    static func run(count: Int, runs: Int, baseline: String?) async throws {
        print("== todo sync sending \(count) todos created offline: whole processes, release build, "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores ==")
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var builds = [Build(name: "this build", todo: try DeviceBench.todoExecutable(), bench: me)]
        if let baseline {
            let directory = URL(fileURLWithPath: baseline)
            let other = Build(
                name: "baseline", todo: directory.appendingPathComponent("todo").path,
                bench: directory.appendingPathComponent("todo-bench").path)
            for path in [other.todo, other.bench] where !FileManager.default.isExecutableFile(atPath: path) {
                throw BenchError("no executable at \(path)")
            }
            builds.insert(other, at: 0)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let servers = try builds.map { try ServerProcess(executable: $0.bench) }
        defer { for server in servers { server.stop() } }
        var results = Array(repeating: [Measured](), count: builds.count)
        for run in 0..<runs {
            // Which build goes first alternates too: the run after another pays for some of its leftovers (page
            // cache, the other cloud's background work), and the same build always second measured ~0.04 s apart.
            let order = run % 2 == 0 ? Array(builds.indices) : Array(builds.indices.reversed())
            for index in order {
                let directory = scratch.appendingPathComponent("\(index)-\(run)")
                results[index].append(try await once(builds[index].todo, server: servers[index], count: count, account: "sync\(run)", in: directory))
            }
        }
        for (index, build) in builds.enumerated() {
            let measured = results[index]
            print(String(format: "%@: wall %@; todo CPU %.3f s, cloud CPU %.3f s (medians)  (target <= 0.2 s)",
                         build.name, CreateBench.summary(measured.map(\.wall)), CreateBench.median(measured.map(\.deviceCPU)),
                         CreateBench.median(measured.map(\.cloudCPU))))
        }
        if results.count == 2 {
            // Run by run (the two builds back to back), so a drift of the machine's speed moves both sides.
            let wall = zip(results[1], results[0]).map { $0.wall / $1.wall }
            let cpu = zip(results[1], results[0]).map { $0.deviceCPU / max($1.deviceCPU, 0.001) }
            print(String(format: "this build / baseline, paired run by run: wall %.3f (%.3f–%.3f), todo CPU %.3f (medians of %d pairs)",
                         CreateBench.median(wall), wall.min() ?? 0, wall.max() ?? 0, CreateBench.median(cpu), wall.count))
        }
    }

    /// A fresh device of `account` signed in to `server`, `count` todos written to its outbox offline, then one
    /// `todo sync` sending them: its wall time, its CPU time and the cloud's meanwhile.
    static func once(_ todo: String, server: ServerProcess, count: Int, account: String, in directory: URL) async throws -> Measured {
        let (arguments, cache) = try await offlineDevice(todo, server: server.baseURL, count: count, account: account, in: directory)
        // The clouds' background work (the WAL checkpoint after a quiet 0.1 s: the last run's records, this account)
        // ends before the clock starts, so no run pays for the one before it.
        try await Task.sleep(for: .milliseconds(400))
        let cloudBefore = cpuSeconds(pid: server.process.processIdentifier)
        let childrenBefore = childrenCPUSeconds()
        let result = try runProcess(todo, ["sync"] + arguments)
        let deviceCPU = childrenCPUSeconds() - childrenBefore
        let cloudCPU = cpuSeconds(pid: server.process.processIdentifier) - cloudBefore
        let check = try await TodoStore(url: cache)
        let left = try await check.pendingCount()
        await check.close()
        guard result.status == 0, left == 0 else {
            throw BenchError("todo sync exited with \(result.status), \(left) left: \(result.outputText) \(result.errorText)")
        }
        return Measured(wall: result.seconds, deviceCPU: deviceCPU, cloudCPU: cloudCPU)
    }

    /// Signs a fresh device of `account` in to the cloud at `server` (creating the account and its zone, as a device
    /// did before) and writes `count` todos to its outbox offline; returns the `todo` arguments that address it and its
    /// cache file.
    static func offlineDevice(
        _ todo: String, server: String, count: Int, account: String, in directory: URL
    ) async throws -> (arguments: [String], cache: URL) {
        let arguments = [
            "--account", account, "--password", DeviceBench.password, "--device", "main", "--server", server,
            "--data-dir", directory.path,
        ]
        BenchAccounts.create(server, account: account)
        let signIn = try runProcess(todo, ["sync"] + arguments)
        guard signIn.status == 0 else { throw BenchError("todo sync (sign-in) exited with \(signIn.status): \(signIn.errorText)") }
        let options = DeviceOptions(account: account, device: "main", server: URL(string: server), dataDirectory: directory)
        let store = try await TodoStore(url: options.cacheFile)
        let items = (0..<count).map { index in
            // Named as the app and `todo add` name them, one at a time.
            TodoItem(key: .privateTodo(RecordNames.next()), title: "Offline todo number \(index) with a realistic title",
                     notes: index % 3 == 0 ? "some notes" : "", priority: index % 4)
        }
        try await store.addLocalRecords(items, at: Int64(Date().timeIntervalSince1970 * 1000))
        await store.close()
        return (arguments, options.cacheFile)
    }
}

/// User + system CPU seconds of this process's children that ended and were waited for.
func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
