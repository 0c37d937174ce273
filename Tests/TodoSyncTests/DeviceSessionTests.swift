import CloudClient
import CloudModel
import Foundation
import Testing
import TodoStore
import TodoSync

@Suite("Device sessions: accounts, credentials, files", .serialized) struct DeviceSessionTests {
    func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func firstUseCreatesTheAccountKeepsSecretsPrivateAndReopens() async throws {
        let cloud = try await TestCloud.start()
        let data = temporaryDirectory("session")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = DeviceOptions(
            account: "carol", device: "laptop", server: cloud.baseURL, dataDirectory: data, startsLocalServer: false,
            environment: ["HOME": data.path])
        let session = try await DeviceSession.open(options)
        let credentials = try #require(session.credentials)
        #expect(try mode(options.credentialsFile) == 0o600)
        #expect(try mode(options.passwordFile) == 0o600)
        #expect(options.cacheFile.path.hasPrefix(data.path))
        await session.engine.start(listenForPushes: false)
        try await session.engine.add(title: "from the laptop")
        await session.engine.waitUntilIdle()
        await session.close()

        // A second device of the same account on this machine signs in with the kept password.
        var phone = options
        phone.device = "phone"
        let second = try await DeviceSession.open(phone)
        #expect(second.credentials?.userRecordName == credentials.userRecordName)
        #expect(second.credentials?.deviceID != credentials.deviceID)
        await second.engine.start(listenForPushes: false)
        #expect(try await second.store.todos().map(\.title) == ["from the laptop"])

        // Signing out sticks until signing in again.
        try await second.signOut()
        #expect(await second.engine.snapshot().connection == .signedOut)
        await second.close()
        let reopened = try await DeviceSession.open(phone)
        #expect(reopened.credentials == nil)
        await reopened.engine.start(listenForPushes: false)
        #expect(await reopened.engine.snapshot().connection == .signedOut)
        await reopened.close()
        try await DeviceSession.signInAgain(phone)
        let back = try await DeviceSession.open(phone)
        #expect(back.credentials != nil)
        await back.close()

        // The kept session is reused while it works.
        let again = try await DeviceSession.open(options)
        #expect(again.credentials?.ckWebAuthToken == credentials.ckWebAuthToken)
        await again.close()
        await cloud.shutdown()
    }

    @Test func wrongPasswordIsSaidClearly() async throws {
        let cloud = try await TestCloud.start()
        let data = temporaryDirectory("session")
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try await cloud.anonymousClient().createAccount(account: "dave", password: "correct-horse")
        let options = DeviceOptions(
            account: "dave", server: cloud.baseURL, dataDirectory: data, password: "wrong-password", startsLocalServer: false,
            environment: [:])
        await #expect(throws: DeviceSessionError.self) { try await DeviceSession.open(options) }
        await cloud.shutdown()
    }

    @Test func unreachableCloudIsSaidClearly() async throws {
        let data = temporaryDirectory("session")
        defer { try? FileManager.default.removeItem(at: data) }
        let options = DeviceOptions(
            account: "erin", server: URL(string: "http://127.0.0.1:9")!, dataDirectory: data, password: "password-erin",
            startsLocalServer: false, environment: [:])
        await #expect(throws: DeviceSessionError.self) { try await DeviceSession.open(options) }
    }
}

/// Figures for the note; run with `TODO_BENCH=1` (release build for the real numbers).
@Suite("Benchmarks", .serialized, .enabled(if: ProcessInfo.processInfo.environment["TODO_BENCH"] != nil))
struct SyncBenchmarks {
    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// User + system CPU seconds of the whole process (cloud and devices).
    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// A line of `/proc/self/status` in kB (`VmHWM`, `VmRSS`), nil where there is none.
    func statusKB(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).filter(\.isNumber))
        }
        return nil
    }

    /// Polls `condition` every millisecond (the 20 ms of `eventually` would hide the latency being measured).
    func soon(_ seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return try await condition()
    }

    @Test func figures() async throws {
        let cloud = try await TestCloud.start()
        let count = Int(ProcessInfo.processInfo.environment["TODO_BENCH_COUNT"] ?? "10000") ?? 10_000
        let a = try await cloud.device("A", sendsAutomatically: false)
        let now = a.clock.nowMilliseconds()
        let items = (0..<count).map { i in
            TodoItem(key: .privateTodo(String(format: "bench-%06d", i)), title: "Todo number \(i) with a realistic title", notes: i % 3 == 0 ? "some notes" : "", priority: i % 4)
        }
        try await a.store.saveLocalEdits(items, at: now)
        // The cloud's share: one records/modify of 200 creates, straight from the client.
        let raw = (0..<200).map { i in
            RecordOperation(.create, TodoItem(key: .privateTodo("raw-\(i)"), title: "raw \(i)").record)
        }
        var start = ContinuousClock.now
        _ = try await a.client.modifyRecords(.private, ModifyRecordsRequest(operations: raw, zoneID: ZoneID(zoneName: "Todos"), atomic: false))
        let rawModify = seconds(ContinuousClock.now - start)
        start = ContinuousClock.now
        let cpuBefore = cpuSeconds()
        await a.engine.sync(.localEdit)
        let upload = seconds(ContinuousClock.now - start)
        let uploadCPU = cpuSeconds() - cpuBefore
        #expect(try await a.store.pendingCount() == 0)

        let b = try await cloud.device("B", sendsAutomatically: false)
        try await b.store.wipe()
        // Peak RSS of the initial sync: reset the high-water mark (Linux clear_refs 5) so it covers this sync only.
        // The figure is of the whole test process, so it includes the in-process cloud and device A.
        let rssBefore = statusKB("VmRSS") ?? 0
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        start = ContinuousClock.now
        await b.engine.sync(.launch)
        let initial = seconds(ContinuousClock.now - start)
        let peak = statusKB("VmHWM") ?? 0
        #expect(try await b.store.recordCount() == count + 200)

        start = ContinuousClock.now
        await b.engine.sync(.push(.private))
        let idle = seconds(ContinuousClock.now - start)

        // The same initial sync as a device of its own: `todo sync` in a child process, its peak RSS measured by
        // /usr/bin/time (getrusage of a forked child would count the pages it shared with this process before exec).
        var child = "no todo binary next to the tests, or no /usr/bin/time"
        let todo = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("todo")
        if FileManager.default.isExecutableFile(atPath: todo.path), FileManager.default.isExecutableFile(atPath: "/usr/bin/time") {
            let data = temporaryDirectory("bench-rss")
            defer { try? FileManager.default.removeItem(at: data) }
            let report = data.appendingPathComponent("maxrss")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            process.arguments = [
                "-f", "%M", "-o", report.path, todo.path, "sync", "--account", "alice", "--password", "password-alice",
                "--device", "rss", "--server", cloud.baseURL.absoluteString, "--data-dir", data.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            let launched = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            let elapsed = seconds(ContinuousClock.now - launched)
            let kb = Int((try? String(contentsOf: report, encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? "") ?? 0
            child = "\(String(format: "%.3f", elapsed)) s, peak RSS \(kb / 1024) MB (exit \(process.terminationStatus))"
        }

        let listener = try await cloud.device("C", listen: true)
        let target = items[0].key
        var latencies: [Double] = []
        let edits = Int(ProcessInfo.processInfo.environment["TODO_BENCH_EDITS"] ?? "500") ?? 500
        for i in 0..<edits {
            let sent = ContinuousClock.now
            try await a.engine.edit(target, TodoEdit(title: "edit \(i)"))
            await a.engine.sync(.localEdit)
            #expect(try await soon(5) { try await listener.store.todo(target)?.title == "edit \(i)" })
            latencies.append(seconds(ContinuousClock.now - sent) * 1000)
        }
        latencies.sort()
        print(
            """
            BENCH one records/modify of 200 creates (client→cloud→client): \(String(format: "%.1f", rawModify * 1000)) ms
            BENCH upload \(count) offline edits: \(String(format: "%.3f", upload)) s (process CPU \(String(format: "%.2f", uploadCPU)) s)
            BENCH initial sync \(count) todos: \(String(format: "%.3f", initial)) s, peak RSS (VmHWM, whole process) \(peak / 1024) MB, \(rssBefore / 1024) MB before
            BENCH initial sync \(count) todos by `todo sync` in a child process: \(child)
            BENCH sync with nothing to do: \(String(format: "%.1f", idle * 1000)) ms
            BENCH push edit→applied (\(edits) edits, \(count + 200)-todo devices) p50 \(String(format: "%.1f", latencies[latencies.count / 2])) ms, p99 \(String(format: "%.1f", latencies[latencies.count * 99 / 100])) ms
            """)
        await listener.engine.stop()
        await cloud.shutdown()
    }
}
