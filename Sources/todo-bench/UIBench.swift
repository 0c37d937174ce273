import CloudModel
import Foundation
import Terminal
import TodoApp
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
            // A fresh process, as a launch would be: its first frame, its keys, its memory.
            let child = Process()
            child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            child.arguments = ["_ui-frame", server.baseURL, directory.path, account, "\(count)"]
            try child.run()
            child.waitUntilExit()
            guard child.terminationStatus == 0 else { throw BenchError("ui child failed") }
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
        for body in benchModifyBodies(count: count) {
            let answer = try connection.request(
                "POST", ContainerAddress.default.databasePath(.private, "records/modify"), body: body, token: device.token)
            guard answer.status == 200 else { throw BenchError("upload failed: \(answer.status)") }
        }
    }

    /// Child mode: measure the first frame, keys and memory of a launch over a filled cache.
    @MainActor
    static func frame(server: String, directory: String, account: String, count: Int) async throws {
        let options = deviceOptions(server: server, directory: URL(fileURLWithPath: directory), account: account)
        let size = TerminalSize(width: 120, height: 40)
        let start = ContinuousClock.now
        guard var state = await TerminalApp.firstState(options, size: size) else { throw BenchError("no cache") }
        var screen = Screen(width: size.width, height: size.height)
        render(state, into: &screen)
        let first = seconds(since: start) * 1000
        guard state.rows(in: .todos).count == count else { throw BenchError("cache holds \(state.rows(in: .todos).count) todos") }

        var keys: [Key] = Array(repeating: .char("j"), count: 60) + Array(repeating: .char("k"), count: 20)
        keys += [.char("G"), .char("g"), .pageDown, .pageDown, .pageDown, .pageUp, .char("c"), .char("c"), .tab, .tab, .tab]
        keys += [.char("/"), .char("m"), .char("i"), .char("l"), .char("k"), .backspace, .backspace, .escape, .char("?"), .escape]
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
        samples.sort()
        let firstRSS = peakRSS(pid: getpid())
        // Then as the running app: the sync engine connects, syncs, and its snapshot replaces the cached rows.
        let session = try await DeviceSession.open(options)
        await session.engine.start(listenForPushes: false)
        let snapshot = await session.engine.snapshot()
        func rows() -> (rows: [TodoRow], status: SyncStatus) { AppBridge.update(from: snapshot) }
        let (live, status) = rows()
        state.update(rows: consume live, status: status)
        render(state, into: &screen)
        guard state.rows(in: .todos).count == count else { throw BenchError("the engine shows \(state.rows(in: .todos).count) todos") }
        let rss = peakRSS(pid: getpid())
        if count <= 10_000 {
            print(String(format: "first frame from a cache of %6d todos:  %.1f ms  (target <= 150 ms; before any network)", count, first))
        } else {
            print(String(format: "first frame from a cache of %6d todos:  %.1f ms", count, first))
        }
        print(String(format: "key -> frame with %6d todos (%d keys): p50 %.2f ms, max %.2f ms (key %@)  (target <= 10 ms)", count, samples.count,
                     percentile(samples, 0.5), samples.last ?? 0, slowest.key.label))
        print(String(format: "peak RSS of the app process with %6d todos: %.1f MB up to the first frame, %.1f MB running (engine + UI)  (target <= 80 MB at 100,000)", count, firstRSS, rss))
        await session.engine.stop()
        await session.close()
    }
}
