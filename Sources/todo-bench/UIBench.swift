import CloudModel
import Foundation
import Terminal
import TodoApp
import TodoPlanning
import TodoSync
import TodoUI

/// `todo-bench ui`: first frame from a cache of 10,000 todos, key → frame and peak RSS with 100,000.
enum UIBench {
    static func run() async throws {
        print("== terminal app benchmark (release build) ==")
        let server = try ServerProcess()
        defer { server.stop() }
        for count in [10_000, 100_000] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-uibench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let account = "ui\(count)"
            try upload(count, to: server, account: account)
            let options = deviceOptions(server: server.baseURL, directory: directory, account: account)
            let session = try await DeviceSession.open(options)
            await session.engine.sync(.launch)
            await session.close()
            if count == 100_000 {
                try loadingKeys(server: server, directory: directory, account: account, count: count)
                try nextProcess(server: server, directory: directory, account: account, count: count)
            }
            // A fresh process, as a launch would be: its first frame, its keys, its memory.
            fflush(nil)  // this process's lines before the child's
            let child = Process()
            child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            child.arguments = ["_ui-frame", server.baseURL, directory.path, account, "\(count)"]
            try child.run()
            child.waitUntilExit()
            guard child.terminationStatus == 0 else { throw BenchError("ui child failed") }
        }
    }

    /// The real `todo` (beside this program, or `BENCH_TODO`) under a pseudo-terminal over the filled cache: keys
    /// while rows load, and a filter typed then (`BENCH_LAUNCHES` launches of each, 5 by default).
    static func loadingKeys(server: ServerProcess, directory: URL, account: String, count: Int) throws {
        let me = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let environment = ProcessInfo.processInfo.environment
        let todo = environment["BENCH_TODO"] ?? me.deletingLastPathComponent().appendingPathComponent("todo").path
        guard FileManager.default.isExecutableFile(atPath: todo) else {
            print("(no \(todo): build it too, `swift build -c release`, for the keys while rows load)")
            return
        }
        let arguments = [
            "--account", account, "--password", "bench-password", "--device", "main", "--server", server.baseURL, "--data-dir", directory.path,
        ]
        let launches = environment["BENCH_LAUNCHES"].flatMap(Int.init) ?? 5
        // "Call the plumber #…" is every eighth todo's title.
        let expected = (0..<count).count { $0 % 8 == 1 }
        let figures = try LoadingKeysBench.run(todo: todo, arguments: arguments, count: count, launches: launches, word: "plumber", expected: expected)
        let keys = figures.keys.sorted()
        let slowest = figures.keys.indices.max { figures.keys[$0] < figures.keys[$1] }.map { figures.keyNames[$0] } ?? "-"
        print(String(
            format: "todo (the app) under a pty over %d cached todos, navigation keys (j/k/G/g/PageDown/PageUp) while rows load, key -> frame: %d keys in %d launches, p50 %.1f ms, p99 %.1f ms, max %.1f ms (key %@)%@  (target p99 <= 50 ms)",
            count, keys.count, launches, percentile(keys, 0.5), percentile(keys, 0.99), keys.last ?? 0, slowest,
            figures.unanswered > 0 ? ", \(figures.unanswered) keys unanswered within 3 s" : ""))
        let afterRead = figures.filterAfterRead.sorted()
        let afterKey = figures.filterAfterLastKey.sorted()
        print(String(
            format: "  filter '/plumber' typed key by key while rows load (%d of %d launches typed it all before the rows were read): rows read -> filter applied to all %d matches: %@; last key -> applied: median %.0f ms, max %.0f ms  (target <= 300 ms)",
            figures.filterTypedWhileLoading, launches, expected,
            afterRead.isEmpty ? "not shown by this build" : String(format: "median %.0f ms, max %.0f ms", percentile(afterRead, 0.5), afterRead.last ?? 0),
            percentile(afterKey, 0.5), afterKey.last ?? 0))
        let peaks = figures.appPeak.sorted()
        print(String(
            format: "  the app's own peak RSS (VmHWM) once all %d rows were read and filtered: median %.1f MB, max %.1f MB over %d launches  (target <= 80 MB)",
            count, percentile(peaks, 0.5), peaks.last ?? 0, peaks.count))
    }

    /// `todo next --offline` (the release `todo` beside this program, or `BENCH_TODO`) over the filled cache as a whole
    /// process, start to exit, `BENCH_LAUNCHES` times (5 by default).
    static func nextProcess(server: ServerProcess, directory: URL, account: String, count: Int) throws {
        let me = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let environment = ProcessInfo.processInfo.environment
        let todo = environment["BENCH_TODO"] ?? me.deletingLastPathComponent().appendingPathComponent("todo").path
        guard FileManager.default.isExecutableFile(atPath: todo) else { return }
        let launches = environment["BENCH_LAUNCHES"].flatMap(Int.init) ?? 5
        var samples: [Double] = []
        for _ in 0..<launches {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: todo)
            process.arguments = [
                "next", "--offline", "--account", account, "--password", "bench-password", "--device", "main", "--server", server.baseURL,
                "--data-dir", directory.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            samples.append(seconds(since: start) * 1000)
            guard process.terminationStatus == 0 else { throw BenchError("todo next exited \(process.terminationStatus)") }
        }
        samples.sort()
        print(String(
            format: "todo next --offline over %d cached todos, as a whole process (%d runs): median %.0f ms, max %.0f ms  (target <= 150 ms)",
            count, launches, percentile(samples, 0.5), samples.last ?? 0))
    }

    /// Sorts `count` rows like the bench's todos as the loader does once all are read, 5 times.
    static func sortRows(count: Int) {
        let titles = ["Buy milk", "Call the plumber", "Renew passport", "写周报", "Book dentist", "Pay electricity bill", "整理书架", "Plan trip to Kyoto"]
        let now = Date()
        var rows: [TodoRow] = []
        rows.reserveCapacity(count)
        for index in 0..<count {
            let id = String(format: "0192f%07d-aaaa-7bbb-8ccc-dddddddddddd", index)
            let title = "\(titles[index % titles.count]) #\(index)"
            let notes = index % 3 == 0 ? "Remember to check the details before Friday." : ""
            let due = TodoPlanning.DueDate(now.addingTimeInterval(Double(index) * 600), allDay: index % 2 == 0)
            let tags = index % 3 == 0 ? ["garden", "home"] : ["work"]
            rows.append(TodoRow(id: id, title: title, notes: notes, isCompleted: index % 5 == 0, due: due, priority: index % 4, tags: tags))
        }
        for _ in 0..<5 {
            let start = ContinuousClock.now
            let sorted = LoadedRows(rows, order: .priority)
            print(String(format: "sorted %d rows in %.0f ms", sorted.count, seconds(since: start) * 1000))
        }
    }

    static func deviceOptions(server: String, directory: URL, account: String) -> DeviceOptions {
        DeviceOptions(
            account: account, device: "main", server: URL(string: server), dataDirectory: directory, password: "bench-password",
            startsLocalServer: false)
    }

    /// Writes `count` todos straight to the cloud as `account`.
    static func upload(_ count: Int, to server: ServerProcess, account: String) throws {
        let device = try BenchAccounts.signIn(server.baseURL, account: account, device: "uploader")
        try createBenchTodosZone(server, token: device.token)
        let connection = try RawHTTPConnection(port: server.port)
        for body in benchModifyBodies(count: count, planned: true) {
            let answer = try connection.request(
                "POST", ContainerAddress.default.path(of: .recordsModify, in: .private), body: body, token: device.token)
            guard answer.status == 200 else { throw BenchError("upload failed: \(answer.status)") }
        }
    }

    /// Child mode: measure the first frame, keys and memory of a launch over a filled cache.
    @MainActor
    static func frame(server: String, directory: String, account: String, count: Int) async throws {
        let options = deviceOptions(server: server, directory: URL(fileURLWithPath: directory), account: account)
        let size = TerminalSize(width: 120, height: 40)
        stage("start")
        // As the app does: a frame at once (the loading line), then the cache read chunk by chunk off the main
        // actor, each chunk merged into the rows and drawn as it comes.
        let start = ContinuousClock.now
        let inbox = UpdateInbox()
        // BENCH_ONE_CHUNK=1: every row in one take, as the app read its cache before it drew anything (a baseline).
        let firstChunk = ProcessInfo.processInfo.environment["BENCH_ONE_CHUNK"] == nil ? TerminalApp.firstChunk : Int.max
        let loader = Task.detached { await TerminalApp.loadCachedRows(options, into: inbox, firstChunk: firstChunk) }
        var state = AppState(status: SyncStatus(account: account, device: "main", connection: .connecting), size: size)
        state.showLoading(FetchProgress(fetched: 0))
        var screen = Screen(width: size.width, height: size.height)
        render(state, into: &screen)
        let loadingFrame = seconds(since: start) * 1000
        var firstRows: Double?
        var firstRowCount = 0
        var loaded = false
        var chunks = 0
        var readAt: Double?
        var selectedFirst: String?
        while !loaded {
            let updates = inbox.drain()
            if updates.isEmpty {
                try await Task.sleep(nanoseconds: 200_000)
                continue
            }
            for update in updates {
                let applyStart = ContinuousClock.now
                state.receive(update)
                switch update {
                case .loaded(let rows, _):
                    chunks += 1
                    if ProcessInfo.processInfo.environment["BENCH_STAGES"] != nil {
                        let applied = seconds(since: applyStart) * 1000
                        print(String(format: "  take %d: %d rows (all read so far, sorted off the key loop) swapped in at %.1f ms, in %.2f ms",
                                     chunks, rows.count, seconds(since: start) * 1000 - applied, applied))
                    }
                case .loading(let progress):
                    loaded = progress == nil
                    if let progress, progress.total == progress.fetched { readAt = seconds(since: start) * 1000 }
                default:
                    break
                }
            }
            render(state, into: &screen)
            if firstRows == nil, state.visibleCount > 0 {
                firstRows = seconds(since: start) * 1000
                firstRowCount = state.rows(in: .todos).count
                selectedFirst = state.selectedRow?.id
            }
        }
        let allRows = seconds(since: start) * 1000
        guard let context = await loader.value else { throw BenchError("no cache") }
        stage("first frame")
        _ = selectedFirst
        guard state.rows(in: .todos).count == count else { throw BenchError("cache holds \(state.rows(in: .todos).count) todos") }

        var keys: [Key] = Array(repeating: .char("j"), count: 60) + Array(repeating: .char("k"), count: 20)
        keys += [.char("G"), .char("g"), .pageDown, .pageDown, .pageDown, .pageUp, .char("c"), .char("c"), .tab, .tab, .tab]
        keys += [.char("/"), .char("m"), .char("i"), .char("l"), .char("k"), .backspace, .backspace, .escape, .char("?"), .escape]
        /// Each key reduced and a whole frame drawn: the milliseconds of each, sorted, and the slowest key.
        func timed(_ keys: [Key]) -> (samples: [Double], slowest: (key: Key, ms: Double)) {
            var samples: [Double] = []
            var slowest: (key: Key, ms: Double) = (.escape, 0)
            for key in keys {
                let keyStart = ContinuousClock.now
                _ = state.reduce(key)
                var next = Screen(width: size.width, height: size.height)
                render(state, into: &next)
                screen = next
                let ms = seconds(since: keyStart) * 1000
                samples.append(ms)
                if ms > slowest.ms { slowest = (key, ms) }
            }
            return (samples.sorted(), slowest)
        }
        let (samples, slowest) = timed(keys)
        stage("navigation keys")
        // The Next view (N): every open todo scored and ranked as todo next ranks them, and its first frame; then back.
        var nextSamples: [Double] = []
        for _ in 0..<5 {
            state.now = Date()
            nextSamples += timed([.char("N")]).samples
            stage("Next view")
            _ = state.reduce(.char("N"))
        }
        nextSamples.sort()
        // A filter with tags and dates typed key by key (each key filters all rows again), then cleared.
        let filterKeys: [Key] = [.char("/")] + "+garden due.before:eow pri:1+".map { Key.char($0) } + [.enter, .char("j"), .char("/"), .escape]
        let filterSamples = timed(filterKeys).samples
        stage("filter")
        let firstRSS = peakRSS(pid: getpid())

        // Then as the app runs: it connects, registers as the engine's reader with the first frame's context, and
        // the launch sync's changes (none here) reach the screen.
        let session = try await DeviceSession.open(options)
        let (reader, wakeups) = await session.engine.changeReader(current: context)
        await session.engine.start(listenForPushes: false)
        let status = AppBridge.status(from: await session.engine.status())
        _ = try await drain(reader, of: session.engine, into: &state, status: status)
        render(state, into: &screen)
        stage("connected")
        let runningRSS = peakRSS(pid: getpid())

        // Another device edits 1,000 todos; this one fetches them, and the reader makes 1,000 rows and merges them.
        let editor = try BenchAccounts.signIn(server, account: account, device: "editor")
        let connection = try RawHTTPConnection(port: URLComponents(string: server)?.port ?? 0)
        for batch in stride(from: 0, to: 1_000, by: 200) {
            var body = ModifyRecordsRequestWriter(reserving: 64 * 1024)
            for index in batch..<batch + 200 {
                var record = benchTodo(index)
                record.fields?["title"] = .string("Edited elsewhere #\(index)")
                body.operation(RecordOperation(.forceUpdate, record))
            }
            let bytes = body.finish(zoneID: ZoneID(zoneName: "Todos"), atomic: nil, desiredKeys: nil)
            let answer = try connection.request(
                "POST", ContainerAddress.default.path(of: .recordsModify, in: .private), body: bytes, token: editor.token)
            guard answer.status == 200 else { throw BenchError("edit failed: \(answer.status)") }
        }
        let pushStart = ContinuousClock.now
        await session.engine.sync(.push(.private))
        let pushed = try await drain(reader, of: session.engine, into: &state, status: status)
        guard pushed.rows == 1_000, !pushed.reloaded else { throw BenchError("the push gave \(pushed.rows) rows") }
        render(state, into: &screen)
        let pushMs = seconds(since: pushStart) * 1000
        stage("1,000 edits merged")
        let pushRSS = peakRSS(pid: getpid())

        // The worst case: everything read again (an expired token, signing in again) while the old rows are on screen.
        let (fresh, freshWakeups) = await session.engine.changeReader(current: nil)
        let reload = try await drain(fresh, of: session.engine, into: &state, status: status)
        guard reload.reloaded else { throw BenchError("a reader without context did not read everything again") }
        render(state, into: &screen)
        stage("reloaded")
        guard state.rows(in: .todos).count == count else { throw BenchError("the engine shows \(state.rows(in: .todos).count) todos") }
        let reloadRSS = peakRSS(pid: getpid())
        print(String(
            format: "first frame from a cache of %6d todos (in process, before any network): loading line %.1f ms, first %d rows drawn %.1f ms (target <= 300 ms), all rows read %.1f ms, sorted and drawn %.1f ms in %d takes%@",
            count, loadingFrame, firstRowCount, firstRows ?? 0, readAt ?? 0, allRows, chunks, count <= 10_000 ? " (target <= 150 ms)" : ""))
        print(String(format: "key -> frame with %6d todos (%d keys): p50 %.2f ms, max %.2f ms (key %@)  (target <= 10 ms)", count, samples.count,
                     percentile(samples, 0.5), samples.last ?? 0, slowest.key.label))
        print(String(format: "Next view (N) over %6d todos, key -> first frame (%d times): p50 %.1f ms, max %.1f ms  (target <= 100 ms at 100,000)",
                     count, nextSamples.count, percentile(nextSamples, 0.5), nextSamples.last ?? 0))
        print(String(format: "filter '+garden due.before:eow pri:1+' typed key by key over %6d todos (%d keys): p50 %.2f ms, max %.2f ms  (target <= 10 ms)",
                     count, filterSamples.count, percentile(filterSamples, 0.5), filterSamples.last ?? 0))
        print(String(format: "1,000 todos edited on another device, fetched, merged and drawn with %6d todos: %.0f ms", count, pushMs))
        print(String(
            format: "peak RSS of the app process with %6d todos (target <= 80 MB at 100,000):\n  %.1f MB to the first frame, %.1f MB connected and synced, %.1f MB after 1,000 edits from another device, %.1f MB after reading everything again (worst case)",
            count, firstRSS, runningRSS, pushRSS, reloadRSS))
        withExtendedLifetime((wakeups, freshWakeups)) {}  // the readers stay registered until here
        await session.engine.stop()
        await session.close()
    }

    /// Takes every chunk of changes for `reader` and applies each, as the app's bridge does; answers the rows taken
    /// and whether a scope was read again.
    @MainActor
    static func drain(
        _ reader: ChangeReader, of engine: SyncEngine, into state: inout AppState, status: SyncStatus
    ) async throws -> (rows: Int, reloaded: Bool) {
        var rows = 0
        var reloaded = false
        var more = true
        while more {
            let changes = try await engine.takeChanges(reader, makeRow: AppBridge.row)
            more = changes.hasMore
            rows += changes.rows.count
            reloaded = reloaded || !changes.reloadStarted.isEmpty
            state.apply(AppBridge.rowChanges(consume changes), status: status)
        }
        return (rows, reloaded)
    }
}

/// With `BENCH_STAGES` set, prints the process's memory at a stage of the UI benchmark (resident, peak, anonymous
/// and file-backed), to see where memory goes.
func stage(_ name: String) {
    guard ProcessInfo.processInfo.environment["BENCH_STAGES"] != nil,
        let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    else { return }
    let wanted = ["VmRSS", "VmHWM", "RssAnon", "RssFile"]
    let lines = status.split(separator: "\n").filter { line in wanted.contains { line.hasPrefix($0) } }
    print(name + ": " + lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }.joined(separator: " | "))
}
