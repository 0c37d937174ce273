import CloudClient
import CloudModel
import Foundation
import SQLiteDB
import TestSupport
import Testing
import TodoStore
import TodoSync

/// The engine never stalls, says what it undid, sees other processes' writes, and deletes data the same way on
/// every device: through the real cloud.
@Suite("Liveness through the real cloud", .serialized) struct LivenessSyncTests {
    @Test func stopDuringARetryWaitReturnsAtOnceAndTheWaitIsClamped() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", sendsAutomatically: false)
        _ = try await device.engine.add(title: "Waits for the cloud")
        // The cloud asks for an absurd wait; the engine clamps it and waits (the test clock parks waits of a minute or more).
        try await cloud.anonymousClient().injectFault(
            FaultRequest(endpoint: "records/modify", serverErrorCode: .throttled, count: 20, retryAfter: 1e12))
        // The test clock never lets the retry wait's time pass: a stop that waited for the pass would never return,
        // so its return, and the parked sleeper gone, show the wait was cancelled.
        for attempt in 1...5 {
            let pass = Task { await device.engine.sync(.localEdit) }
            #expect(await eventually { device.clock.waiting > 0 })
            let waits = await device.engine.retryWaits
            #expect(waits == Array(repeating: RetryPolicy().longestWait, count: attempt))
            await device.engine.stop()
            await pass.value
            #expect(device.clock.waiting == 0, "the retry wait was left parked")
        }
        #expect(try await device.store.pendingCount() == 1)  // nothing lost: it waits in the outbox
    }

    @Test func aFailedOutboxReadStillConfirmsTheBatchesInFlight() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", sendsAutomatically: false)
        let items = (0..<900).map { TodoItem(key: .privateTodo(String(format: "todo-%04d", $0)), title: "Todo \($0)") }
        try await device.store.saveLocalEdits(items, at: 1)
        // One outbox row past the first chunk (800 rows: four requests in flight) cannot be read: reading the next
        // chunk throws while the first four batches travel.
        try SQLiteDatabase.allowBlocking {
            try SQLiteDatabase(path: device.store.path).execute("UPDATE outbox SET base_fields = 'not json' WHERE record_name = 'todo-0850'")
        }
        await device.engine.sync(.localEdit)
        // The 800 sent were confirmed (not left to be sent again), the rest waits.
        #expect(try await device.store.pendingCount() == 100)
        #expect(await device.engine.status().lastError != nil)
        let observer = try await cloud.device("phone")
        #expect(try await observer.store.recordCount() == 800)
    }

    @Test func retryDelaysFromTheNetworkAreAlwaysFiniteAndClamped() {
        let policy = RetryPolicy()
        for retryAfter in [Double.infinity, 1e300, 2e10, -.infinity, .nan, -5] {
            let delay = policy.delay(attempt: 3, retryAfter: retryAfter, random: 0.5)
            #expect(delay.isFinite && delay >= 0 && delay <= policy.longestWait, "retryAfter \(retryAfter) gave \(delay)")
        }
        #expect(policy.delay(attempt: 0, retryAfter: .infinity, random: 0.5) == policy.longestWait)
        #expect(policy.delay(attempt: 40, retryAfter: nil, random: .nan).isFinite)
    }

    @Test func anEditRevertedByTheOwnerIsSaidInTheSnapshotAndKeptForStatus() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let alice = try await cloud.device("laptop", account: "alice")
        let bob = try await cloud.device("phone", account: "bob", sendsAutomatically: false)
        let list = try await alice.engine.addList(title: "Groceries")
        let apples = try await alice.engine.add(title: "Apples", toList: list.key)
        await alice.engine.waitUntilIdle()
        try await alice.engine.share(list: list.key, with: "bob", permission: .readWrite)
        await bob.engine.sync(.manualRefresh)
        let invitation = try #require(await bob.engine.snapshot().invitations.first)
        try await bob.engine.accept(invitation.reference)
        let bobsApples = RecordKey(
            scope: .shared, zoneName: TodoSchema.zoneName, zoneOwner: alice.session.userRecordName, recordName: apples.key.recordName)
        let bobsList = RecordKey(
            scope: .shared, zoneName: TodoSchema.zoneName, zoneOwner: alice.session.userRecordName, recordName: list.key.recordName)

        // Offline on bob's side, the owner lowers his access; his edit and his new todo are refused and undone.
        try await bob.engine.edit(bobsApples, TodoEdit(title: "Rotten apples"))
        let pears = try await bob.engine.add(title: "Pears", toList: bobsList)
        try await alice.engine.share(list: list.key, with: "bob", permission: .readOnly)
        await bob.engine.sync(.localEdit)

        #expect(try await bob.store.todo(bobsApples)?.title == "Apples")
        #expect(try await bob.store.todo(pears.key) == nil)  // no ghost of the refused todo
        #expect(try await bob.store.pendingCount() == 0)
        let notices = await bob.engine.status().notices
        #expect(notices.contains { $0.kind == .reverted && $0.text.contains("Rotten apples") })
        #expect(notices.contains { $0.kind == .reverted && $0.text.contains("Pears") })
        #expect(notices.map(\.sequence) == notices.map(\.sequence).sorted())
        // `todo status` reads them from the cache, in another process.
        let kept = await bob.engine.recentNotices()
        #expect(kept.filter { $0.kind == .reverted }.count == 2)
    }

    @Test func unsentChangesInAListNoLongerSharedAreSaidToBeReverted() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let alice = try await cloud.device("laptop", account: "alice")
        let bob = try await cloud.device("phone", account: "bob", sendsAutomatically: false)
        let list = try await alice.engine.addList(title: "Groceries")
        await alice.engine.waitUntilIdle()
        try await alice.engine.share(list: list.key, with: "bob", permission: .readWrite)
        await bob.engine.sync(.manualRefresh)
        try await bob.engine.accept(try #require(await bob.engine.status().invitations.first).reference)
        let bobsList = RecordKey(
            scope: .shared, zoneName: TodoSchema.zoneName, zoneOwner: alice.session.userRecordName, recordName: list.key.recordName)
        _ = try await bob.engine.add(title: "Pears", toList: bobsList)
        try await alice.engine.removeParticipant(list: list.key, account: "bob")
        await bob.engine.sync(.manualRefresh)
        #expect(try await bob.store.todos(in: .shared).isEmpty)
        #expect(try await bob.store.pendingCount() == 0)
        #expect(await bob.engine.status().notices.contains { $0.kind == .reverted && $0.text.contains("'Pears'") })
    }

    @Test func writesOfAnotherProcessReachTheReaderAndOwnWritesDoNotCount() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", sendsAutomatically: false)
        let (reader, wakeups) = await device.engine.changeReader()
        defer { withExtendedLifetime(wakeups) {} }  // the reader stays registered while its stream is kept
        _ = try await device.engine.takeChanges(reader) { item, _ in item.title }
        await device.engine.watchCacheForOtherWriters(every: 3600)  // checked by hand below

        // Our own write: the reader takes it as a key, and the cache watch sees nothing foreign.
        _ = try await device.engine.add(title: "Mine")
        let version = try await device.store.dataVersion()
        #expect(try await device.store.dataVersion() == version)
        let own = try await device.engine.takeChanges(reader) { item, _ in item.title }
        #expect(own.rows == ["Mine"])
        await device.engine.checkCacheForOtherWriters()
        let none = try await device.engine.takeChanges(reader) { item, _ in item.title }
        #expect(none.rows.isEmpty && none.reloadStarted.isEmpty)

        // Another process (the command line) writes to the same file: the next check reads the cache again.
        let path = device.store.path
        let other = try await TodoStore(url: URL(fileURLWithPath: path))
        try await other.saveLocalEdit(TodoItem(key: .privateTodo("from-the-cli"), title: "From the CLI"), at: 1)
        await other.close()
        await device.engine.checkCacheForOtherWriters()
        var rows: [String] = []
        var more = true
        while more {
            let changes = try await device.engine.takeChanges(reader) { item, _ in item.title }
            rows += changes.rows
            more = changes.hasMore
        }
        #expect(Set(rows) == ["Mine", "From the CLI"])
        #expect(await device.engine.status().pendingCount == 2)
    }

    @Test func thePublicBoardIsPolledOftenWhileItsTabShows() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        // Waits of 10 s and more are parked until the test lets time pass.
        let alice = try await cloud.device("laptop", account: "alice", listen: true, instantWaitsBelow: 10)
        defer { Task { await alice.engine.stop() } }
        let bob = try await cloud.device("phone", account: "bob")
        _ = try await bob.engine.add(title: "Garage sale", to: .public)
        await bob.engine.waitUntilIdle()
        #expect(await eventually { alice.clock.sleeps.contains(300) })  // the background interval

        // Switching to the tab polls at once (the last poll is older than a few seconds) and every 30 s after.
        alice.clock.advance(by: 6)
        await alice.engine.setPublicBoardVisible(true)
        await alice.engine.waitUntilIdle()
        #expect(try await alice.titles(.public) == ["Garage sale"])
        #expect(await eventually { alice.clock.sleeps.last == 30 })
        _ = try await bob.engine.add(title: "Lost cat", to: .public)
        await bob.engine.waitUntilIdle()
        alice.clock.advance(by: 30)
        #expect(try await eventually { try await alice.titles(.public) == ["Garage sale", "Lost cat"] })

        // Off screen again: back to every 5 minutes.
        await alice.engine.setPublicBoardVisible(false)
        #expect(await eventually { alice.clock.sleeps.last == 300 })
        _ = try await bob.engine.add(title: "Free chairs", to: .public)
        await bob.engine.waitUntilIdle()
        // 30 s later the poll still waits out its 300 s (no new wait was asked for); at 300 s it fetches.
        let waits = alice.clock.sleeps.count
        alice.clock.advance(by: 30)
        #expect(alice.clock.sleeps.count == waits && alice.clock.sleeps.last == 300)
        #expect(try await alice.titles(.public) == ["Garage sale", "Lost cat"])
        alice.clock.advance(by: 270)
        #expect(try await eventually { try await alice.titles(.public) == ["Free chairs", "Garage sale", "Lost cat"] })
    }

    @Test func userDeletedZoneSeenOnFetchPurgesAndRecreatesTheZone() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let a = try await cloud.device("laptop")
        let b = try await cloud.device("phone")
        _ = try await a.engine.add(title: "One")
        _ = try await a.engine.add(title: "Two")
        await a.engine.waitUntilIdle()
        await b.engine.sync(.manualRefresh)
        #expect(try await b.titles() == ["One", "Two"])

        try await purgeTodosZone(a)
        await b.engine.sync(.manualRefresh)
        #expect(try await b.titles().isEmpty)
        #expect(await b.engine.status().notices.contains { $0.kind == .dataDeleted })
        // The zone exists again, empty: a new todo from b syncs to a, and nothing old came back.
        _ = try await b.engine.add(title: "After")
        await b.engine.waitUntilIdle()
        await a.engine.sync(.manualRefresh)
        #expect(try await a.titles() == ["After"])
    }

    /// The user deletes their data from device `device` (CloudKit's purge of the zone).
    func purgeTodosZone(_ device: TestDevice) async throws {
        let results = try await device.client.modifyZones(
            .private, ModifyZonesRequest(operations: [.init(.purge, ZoneKey.privateTodos.zoneID)]))
        #expect(results.allSatisfy { $0.error == nil })
    }
}
