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
        await a.engine.sync(.localEdit)
        let upload = seconds(ContinuousClock.now - start)
        #expect(try await a.store.pendingCount() == 0)

        let b = try await cloud.device("B", sendsAutomatically: false)
        try await b.store.wipe()
        start = ContinuousClock.now
        await b.engine.sync(.launch)
        let initial = seconds(ContinuousClock.now - start)
        #expect(try await b.store.recordCount() == count + 200)

        start = ContinuousClock.now
        await b.engine.sync(.push(.private))
        let idle = seconds(ContinuousClock.now - start)

        let listener = try await cloud.device("C", listen: true)
        let target = items[0].key
        var latencies: [Double] = []
        for i in 0..<100 {
            let sent = ContinuousClock.now
            try await a.engine.edit(target, TodoEdit(title: "edit \(i)"))
            await a.engine.sync(.localEdit)
            _ = try await eventually(5) { try await listener.store.todo(target)?.title == "edit \(i)" }
            latencies.append(seconds(ContinuousClock.now - sent) * 1000)
        }
        latencies.sort()
        print(
            """
            BENCH one records/modify of 200 creates (client→cloud→client): \(String(format: "%.1f", rawModify * 1000)) ms
            BENCH upload \(count) offline edits: \(String(format: "%.3f", upload)) s
            BENCH initial sync \(count) todos: \(String(format: "%.3f", initial)) s
            BENCH sync with nothing to do: \(String(format: "%.1f", idle * 1000)) ms
            BENCH push edit→applied p50 \(String(format: "%.1f", latencies[latencies.count / 2])) ms, p99 \(String(format: "%.1f", latencies[latencies.count * 99 / 100])) ms
            """)
        await listener.engine.stop()
        await cloud.shutdown()
    }
}
