import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// Two devices of one account syncing through the real cloud on loopback.
@Suite("Two devices through the real cloud", .serialized) struct TwoDeviceSyncTests {
    @Test func createEditCompleteTrashReachTheOtherDeviceByPush() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let b = try await cloud.device("B", listen: true)

        let created = try await a.engine.add(title: "Buy milk", priority: 2)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(created.key)?.title == "Buy milk" })
        #expect(try await b.store.todo(created.key)?.priority == 2)

        try await a.engine.edit(created.key, TodoEdit(title: "Buy oat milk", notes: "2 litres"))
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(created.key)?.notes == "2 litres" })
        #expect(try await b.store.todo(created.key)?.title == "Buy oat milk")

        try await a.engine.setCompleted(created.key)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(created.key)?.isCompleted == true })

        #expect(try await a.engine.trash(created.key) == .delete)
        await a.engine.waitUntilIdle()
        // Trashed as a stamped isTrashed (so a later edit elsewhere can bring it back): hidden on every device.
        #expect(try await eventually { try await b.store.todo(created.key)?.isTrashed == true })
        #expect(try await b.titles().isEmpty)

        let second = try await a.engine.add(title: "Second")
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(second.key) != nil })
        try await a.engine.delete(second.key)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(second.key)?.isTrashed == true })
        #expect(try await b.titles().isEmpty)

        #expect(try await a.store.pendingCount() == 0)
        let snapshot = await b.engine.snapshot()
        #expect(snapshot.connection == .online)
        await a.engine.stop()
        await b.engine.stop()
        await cloud.shutdown()
    }

    @Test func readersSeeLocalEditsAtOnceWithThePendingCount() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let (reader, wakeups) = await a.engine.changeReader()
        var iterator = wakeups.makeAsyncIterator()
        _ = await iterator.next()
        _ = try await a.engine.takeChanges(reader) { item, _ in item }
        let added = try await a.engine.add(title: "Shown at once")
        let state = try #require(await iterator.next())
        #expect(state.pendingCount == 1)
        #expect(state.statusLine == "online · 1 pending")
        let changes = try await a.engine.takeChanges(reader) { item, _ in item }
        #expect(changes.rows.map(\.title) == ["Shown at once"])
        #expect(changes.rows.first?.hasPendingChanges == true)
        await a.engine.sync(.localEdit)
        #expect(await a.engine.snapshot().pendingCount == 0)
        #expect(try await a.engine.takeChanges(reader) { item, _ in item }.rows.map(\.key) == [added.key])
        await a.engine.stop()
        await cloud.shutdown()
    }

    @Test func offlineEditsAndConcurrentEditsConvergeWithoutLoss() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let b = try await cloud.device("B")
        var keys: [RecordKey] = []
        for i in 0..<30 { keys.append(try await a.engine.add(title: "todo \(i)").key) }
        await a.engine.waitUntilIdle()
        await b.engine.sync(.manualRefresh)
        #expect(try await b.store.recordCount(in: .private) == 30)

        // A goes offline and makes 50 edits.
        a.transport.isOffline = true
        for i in 0..<25 {
            try await a.engine.edit(keys[i], TodoEdit(title: "A title \(i)"))
            try await a.engine.edit(keys[i], TodoEdit(priority: 3))
        }
        await a.engine.waitUntilIdle()
        #expect(await a.engine.snapshot().connection == .offline)
        #expect(await a.engine.snapshot().statusLine == "offline · 25 pending")

        // Meanwhile B edits some of the same todos: other fields (0..<10), and the same field later (20..<30).
        for i in 0..<10 { try await b.engine.edit(keys[i], TodoEdit(notes: "B notes \(i)")) }
        for i in 20..<30 { try await b.engine.edit(keys[i], TodoEdit(title: "B title \(i)")) }
        await b.engine.waitUntilIdle()
        #expect(try await b.store.pendingCount() == 0)

        // A comes back: the reachability probe finds the cloud and A sends and fetches.
        a.transport.isOffline = false
        a.clock.advance(by: 100)
        #expect(
            try await eventually {
                let online = await a.engine.snapshot().connection == .online
                return try await a.store.pendingCount() == 0 && online
            })
        await a.engine.waitUntilIdle()
        await b.engine.sync(.manualRefresh)
        await a.engine.sync(.manualRefresh)

        for i in 0..<30 {
            let item = try #require(try await a.store.todo(keys[i]))
            let expectedTitle = i >= 20 ? "B title \(i)" : (i < 25 ? "A title \(i)" : "todo \(i)")
            #expect(item.title == expectedTitle, "todo \(i): stamps \(item.editStamps ?? "-"), lost \(item.lostEdits ?? "-")")
            #expect(item.priority == (i < 25 ? 3 : 0), "todo \(i)")
            #expect(item.notes == (i < 10 ? "B notes \(i)" : ""), "todo \(i)")
        }
        #expect(try await contents(a.store) == contents(b.store))
        await a.engine.stop()
        await b.engine.stop()
        await cloud.shutdown()
    }

    @Test(arguments: [1, 4, 8]) func interruptedFetchResumesWithoutLossOrDuplicates(afterPages: Int) async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        for i in 0..<450 { try await a.engine.add(title: "bulk \(i)") }
        await a.engine.sync(.localEdit)
        #expect(try await a.store.pendingCount() == 0)

        let b = try await cloud.device("B", pageSize: 50)  // launch sync: everything
        #expect(try await b.store.recordCount() == 450)

        let c = try await cloud.device("C", pageSize: 50, sendsAutomatically: false)
        try await c.store.wipe()
        // The device restarts from an empty cache; the fetch is cut after `afterPages` pages.
        c.transport.plan(.init(pathContains: "changes/zone", skip: afterPages, count: 1))
        await c.engine.sync(.manualRefresh)
        #expect(await c.engine.snapshot().connection == .offline)
        #expect(try await c.store.recordCount() == afterPages * 50)
        #expect(try await c.store.zoneToken(.privateTodos) != nil)
        // An answer lost after the server served it also must not hurt.
        c.transport.plan(.init(pathContains: "changes/zone", skip: 1, count: 1, kind: .loseResponse))
        await c.engine.sync(.networkBack)
        await c.engine.sync(.networkBack)
        let names = try await c.store.todos().map(\.key.recordName)
        #expect(names.count == 450)
        #expect(Set(names).count == 450)
        #expect(try await contents(c.store) == contents(a.store))
        await cloud.shutdown()
    }

    /// A device's first download writes no history on any of its pages (only the first went into an empty zone),
    /// and what changes on the cloud afterwards does.
    @Test func aFirstDownloadOverManyPagesWritesNoHistory() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        var keys: [RecordKey] = []
        for i in 0..<230 { keys.append(try await a.engine.add(title: "bulk \(i)").key) }
        await a.engine.sync(.localEdit)
        let b = try await cloud.device("B", pageSize: 50)  // launch sync: five pages
        #expect(try await b.store.recordCount() == 230)
        for key in [keys[0], keys[60], keys[229]] { #expect(try await b.store.history(of: key).isEmpty) }

        _ = try await a.engine.edit(keys[229], TodoEdit(title: "bulk renamed"))
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        #expect(try await b.store.history(of: keys[229]).first?.changes == ["title: 'bulk renamed'"])
        await cloud.shutdown()
    }

    @Test func expiredChangeTokenRefetchesTheZoneAndKeepsPendingEdits() async throws {
        // No retention: compaction removes every tombstone at once, so B's token falls behind the feed's horizon.
        let cloud = try await TestCloud.start(tombstoneRetention: 0)
        let a = try await cloud.device("A")
        var keys: [RecordKey] = []
        for i in 0..<5 { keys.append(try await a.engine.add(title: "t\(i)").key) }
        await a.engine.waitUntilIdle()
        let b = try await cloud.device("B", sendsAutomatically: false)
        #expect(try await b.store.recordCount() == 5)

        try await a.engine.delete(keys[0])
        try await a.engine.delete(keys[1])
        await a.engine.waitUntilIdle()
        try await b.engine.edit(keys[4], TodoEdit(notes: "kept"))
        try await cloud.anonymousClient().compactForTesting()

        await b.engine.sync(.manualRefresh)
        #expect(try await b.store.todos().map(\.key).sorted() == Array(keys[2...]).sorted())
        #expect(try await b.store.pendingCount() == 0)
        await a.engine.sync(.manualRefresh)
        #expect(try await a.store.todo(keys[4])?.notes == "kept")
        #expect(try await contents(a.store) == contents(b.store))
        await cloud.shutdown()
    }

    @Test func purgedZoneIsPurgedLocallyAndRecreated() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        for i in 0..<3 { try await a.engine.add(title: "p\(i)") }
        await a.engine.waitUntilIdle()
        let b = try await cloud.device("B")
        #expect(try await b.store.recordCount() == 3)

        _ = try await a.client.modifyZones(.private, ModifyZonesRequest(operations: [.init(.purge, ZoneID(zoneName: "Todos"))]))
        await b.engine.sync(.manualRefresh)
        #expect(try await b.store.recordCount() == 0)
        #expect(try await b.store.syncState().createdCustomZone)
        try await b.engine.add(title: "after purge")
        await b.engine.waitUntilIdle()
        #expect(try await b.store.pendingCount() == 0)
        await a.engine.sync(.manualRefresh)
        #expect(try await a.titles() == ["after purge"])
        await cloud.shutdown()
    }

    @Test func sendIntoAPurgedZonePurgesHereTooAndRecreatesItEmpty() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let b = try await cloud.device("B", sendsAutomatically: false)
        for i in 0..<3 { try await b.engine.add(title: "b\(i)") }
        await b.engine.sync(.localEdit)
        let first = try #require(try await b.store.todos().first)
        try await b.engine.edit(first.key, TodoEdit(notes: "pending while purged"))
        _ = try await b.engine.add(title: "added while purged")

        _ = try await a.client.modifyZones(.private, ModifyZonesRequest(operations: [.init(.purge, ZoneID(zoneName: "Todos"))]))
        // Send only: USER_DELETED_ZONE does what the deletion seen on fetch does — purge here, recreate the zone empty.
        await b.engine.sync(.localEdit)
        #expect(try await b.store.pendingCount() == 0)
        #expect(try await b.store.recordCount() == 0)
        #expect(await b.engine.status().notices.contains { $0.kind == .dataDeleted })
        await a.engine.sync(.manualRefresh)
        #expect(try await a.titles().isEmpty)
        // The zone is there again: a new todo travels.
        try await b.engine.add(title: "after purge")
        await b.engine.sync(.localEdit)
        await a.engine.sync(.manualRefresh)
        #expect(try await a.titles() == ["after purge"])
        await cloud.shutdown()
    }

    @Test func throttlingAndTryAgainLaterAreRetriedAfterRetryAfter() async throws {
        let cloud = try await TestCloud.start()
        let admin = cloud.anonymousClient()
        let a = try await cloud.device("A", sendsAutomatically: false)
        try await a.engine.add(title: "throttled")
        try await admin.injectFault(FaultRequest(endpoint: "records/modify", serverErrorCode: .throttled, count: 2, retryAfter: 1.5))
        await a.engine.sync(.localEdit)
        #expect(try await a.store.pendingCount() == 0)
        #expect(await a.engine.retryWaits == [1.5, 1.5])

        let b = try await cloud.device("B", sendsAutomatically: false)
        try await admin.injectFault(FaultRequest(endpoint: "changes/zone", serverErrorCode: .tryAgainLater, count: 1, retryAfter: 2))
        try await admin.injectFault(FaultRequest(endpoint: "changes/database", serverErrorCode: .tryAgainLater, count: 2))
        try await a.engine.add(title: "second")
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        #expect(try await b.titles() == ["second", "throttled"])
        let waits = await b.engine.retryWaits
        #expect(waits.contains(2))
        #expect(waits.contains(0.5) && waits.contains(1.0))  // backoff (random 0.5 → no jitter) without retryAfter
        #expect(b.clock.sleeps.contains(2))
        await cloud.shutdown()
    }

    @Test func fatalErrorKeepsTheEditAndDoesNotRetryInALoop() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let huge = String(repeating: "x", count: 1_100_000)
        let item = try await a.engine.add(title: "too big", notes: huge)
        await a.engine.sync(.localEdit)
        var snapshot = await a.engine.snapshot()
        #expect(snapshot.pendingCount == 1)
        #expect(snapshot.failedCount == 1)
        #expect(snapshot.lastError != nil)
        #expect(try await a.store.todo(item.key)?.notes.count == huge.count)
        let sends = a.transport.sentPaths.filter { $0.hasSuffix("records/modify") }.count
        await a.engine.sync(.localEdit)
        #expect(a.transport.sentPaths.filter { $0.hasSuffix("records/modify") }.count == sends)
        // The user fixes it; the change goes out.
        try await a.engine.edit(item.key, TodoEdit(notes: "short"))
        await a.engine.sync(.localEdit)
        snapshot = await a.engine.snapshot()
        #expect(snapshot.pendingCount == 0)
        await cloud.shutdown()
    }

    @Test func accountSwitchWipesTheOldCache() async throws {
        let cloud = try await TestCloud.start()
        let device = try await cloud.device("A", account: "alice")
        try await device.engine.add(title: "alice's secret")
        await device.engine.waitUntilIdle()
        _ = try await device.client.createAccount(account: "bob", password: "password-bob")
        _ = try await device.client.signIn(account: "bob", password: "password-bob", deviceName: "A")
        await device.engine.sync(.manualRefresh)
        #expect(try await device.store.recordCount(in: .private) == 0)
        #expect(try await device.store.syncState().lastKnownUser != device.session.userRecordName)
        try await device.engine.add(title: "bob's todo")
        await device.engine.waitUntilIdle()
        #expect(try await device.titles() == ["bob's todo"])
        await cloud.shutdown()
    }

    @Test func revokedSessionShowsSignedOut() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let other = CloudClient(baseURL: cloud.baseURL, authToken: a.client.authToken)
        try await other.signOut()
        await a.engine.sync(.manualRefresh)
        let snapshot = await a.engine.snapshot()
        #expect(snapshot.connection == .signedOut)
        await #expect(throws: SyncEngineError.self) { try await a.engine.add(title: "nope") }
        await cloud.shutdown()
    }

    @Test func publicBoardPollingTrashAndPermissions() async throws {
        let cloud = try await TestCloud.start()
        let alice = try await cloud.device("A", account: "alice")
        let bob = try await cloud.device("B", account: "bob")
        let post = try await alice.engine.add(title: "Lunch at noon?", to: .public)
        #expect(await alice.engine.canUpdate(post))
        #expect(!(await alice.engine.canDelete(post)))
        await alice.engine.waitUntilIdle()

        await bob.engine.sync(.manualRefresh)
        let seen = try #require(try await bob.store.todo(post.key))
        #expect(seen.title == "Lunch at noon?")
        #expect(!(await bob.engine.canUpdate(seen)))
        guard case .refuse = try await bob.engine.trash(post.key) else {
            Issue.record("bob must not trash alice's post")
            return
        }
        await #expect(throws: SyncEngineError.self) { try await bob.engine.edit(post.key, TodoEdit(title: "hijack")) }

        // Polling picks up later changes, too, through the timer.
        try await alice.engine.edit(post.key, TodoEdit(title: "Lunch at one?"))
        await alice.engine.waitUntilIdle()
        await bob.engine.stop()
        let bobListening = bob.engine
        await bobListening.start(listenForPushes: true)
        bob.clock.advance(by: 300)
        #expect(try await eventually { try await bob.store.todo(post.key)?.title == "Lunch at one?" })

        #expect(try await alice.engine.trash(post.key) == .markTrashed)
        await alice.engine.waitUntilIdle()
        await bob.engine.sync(.manualRefresh)
        #expect(try await bob.store.todo(post.key)?.isTrashed == true)
        #expect(await bob.engine.snapshot().todos(in: .public).isEmpty)  // trashed are hidden
        try await alice.engine.untrash(post.key)
        await alice.engine.waitUntilIdle()
        await bob.engine.sync(.manualRefresh)
        #expect(await bob.engine.snapshot().todos(in: .public).map(\.title) == ["Lunch at one?"])
        #expect(try await alice.engine.trash(post.key) == .markTrashed)
        await alice.engine.waitUntilIdle()

        // Signed out: the board is readable, not writable.
        let anonymous = SyncEngine(
            client: cloud.anonymousClient(), store: try await TodoStore(path: ":memory:"),
            configuration: SyncConfiguration(deviceName: "kiosk"), clock: TestClock())
        await anonymous.start(listenForPushes: false)
        let snapshot = await anonymous.snapshot()
        #expect(snapshot.connection == .signedOut)
        let board = try await anonymous.store.todos(in: .public, includeTrashed: true)
        #expect(board.count == 1)
        #expect(!snapshot.canUpdate(board[0]))
        await alice.engine.stop()
        await bob.engine.stop()
        await cloud.shutdown()
    }

    @Test func concurrentOnlineEditsOfDifferentFieldsBothSurvive() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let item = try await a.engine.add(title: "shared")
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        try await a.engine.edit(item.key, TodoEdit(title: "title from A"))
        try await b.engine.edit(item.key, TodoEdit(priority: 3, isCompleted: true))
        await a.engine.sync(.localEdit)
        await b.engine.sync(.localEdit)  // CONFLICT → merge → resend
        await a.engine.sync(.manualRefresh)
        for device in [a, b] {
            let merged = try #require(try await device.store.todo(item.key))
            #expect(merged.title == "title from A" && merged.priority == 3 && merged.isCompleted)
        }
        #expect(try await contents(a.store) == contents(b.store))
        await cloud.shutdown()
    }

    @Test func uploadedRecordsKeepTheirFieldsAndTakeTheCloudsSystemFields() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let items = (0..<450).map { TodoItem(key: .privateTodo(String(format: "up-%04d", $0)), title: "todo \($0)", notes: "n\($0)", priority: $0 % 4) }
        try await a.store.saveLocalEdits(items, at: a.clock.nowMilliseconds())
        await a.engine.sync(.localEdit)
        #expect(try await a.store.pendingCount() == 0)
        // Each device copy has the cloud's change tag, created and modified, and the fields it sent.
        let names = Array(items.prefix(200).map(\.key.recordName))
        let lookup = try await a.client.lookupRecords(.private, LookupRecordsRequest(recordNames: names, zoneID: ZoneID(zoneName: "Todos")))
        for (item, result) in zip(items, lookup) {
            let server = try #require(result.record)
            let local = try #require(try await a.store.todo(item.key))
            #expect(local.system == SystemFields(changeTag: server.recordChangeTag, created: server.created, modified: server.modified))
            #expect(local.title == item.title && local.notes == item.notes && local.priority == item.priority)
            #expect(server.fields == local.fields)
        }
        // The adopted tags are current: edits go out as replaces without a conflict, and reach another device.
        try await a.engine.edit(items[3].key, TodoEdit(title: "edited once"))
        try await a.engine.edit(items[449].key, TodoEdit(priority: 0))
        await a.engine.sync(.localEdit)
        #expect(try await a.store.pendingCount() == 0)
        #expect(try await a.store.failedCount() == 0)
        let b = try await cloud.device("B", sendsAutomatically: false)
        #expect(try await contents(a.store) == contents(b.store))
        #expect(try await b.store.todo(items[3].key)?.title == "edited once")
        await cloud.shutdown()
    }

    @Test func anOutboxLargerThanOneReadGoesOutInOneSync() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let items = (0..<2_345).map { TodoItem(key: .privateTodo(String(format: "big-%05d", $0)), title: "todo \($0)") }
        try await a.store.saveLocalEdits(items, at: a.clock.nowMilliseconds())
        await a.engine.sync(.localEdit)
        #expect(try await a.store.pendingCount() == 0)
        #expect(try await a.store.todos().allSatisfy { $0.system.changeTag != nil && !$0.hasPendingChanges })
        #expect(await a.engine.snapshot().pendingCount == 0)
        let b = try await cloud.device("B", sendsAutomatically: false)
        #expect(try await b.store.recordCount() == items.count)
        await cloud.shutdown()
    }

    /// A pass reads its first outbox chunk while it fetches; when the fetch merged a change into a pending record,
    /// that chunk is stale (the cloud's old tag) and the send must carry what the fetch left instead.
    @Test func aPassSendsWhatItsFetchMergedNotTheOutboxItReadBefore() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let key = try await a.engine.add(title: "Milk", priority: 0).key
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        try await a.engine.edit(key, TodoEdit(title: "Oat milk"))
        try await b.engine.edit(key, TodoEdit(priority: 2))
        await b.engine.sync(.localEdit)
        #expect(await a.engine.snapshot().pendingCount == 1)
        let before = a.transport.sentPaths.count
        await a.engine.sync(.manualRefresh)
        let modifies = a.transport.sentPaths.dropFirst(before).filter { $0.contains("records/modify") }
        #expect(modifies.count == 1, "one save, on the tag the fetch brought (a stale one would conflict and go again)")
        await b.engine.sync(.manualRefresh)
        for device in [a, b] {
            let item = try #require(try await device.store.todo(key))
            #expect(item.title == "Oat milk" && item.priority == 2, "\(device.name)")
        }
        #expect(try await a.store.pendingCount() == 0)
        await cloud.shutdown()
    }

    @Test func anOutboxOfSeveralReadsSurvivesALostAnswerWhileTheNextReadIsUnderWay() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        // Three reads of the outbox (600, 2,000 and the rest); the sixth answer is lost while the second read is
        // taken in or the next one is under way: the batches beside it are confirmed, the rest is sent once back online.
        let items = (0..<3_100).map { TodoItem(key: .privateTodo(String(format: "read-%05d", $0)), title: "todo \($0)", priority: $0 % 4) }
        try await a.store.saveLocalEdits(items, at: a.clock.nowMilliseconds())
        a.transport.plan(.init(pathContains: "records/modify", skip: 5, count: 1, kind: .loseResponse))
        await a.engine.sync(.localEdit)
        let left = try await a.store.pendingCount()
        #expect(left > 0 && left < items.count)
        await a.engine.networkIsBack()
        await a.engine.waitUntilIdle()
        #expect(try await a.store.pendingCount() == 0)
        #expect(try await a.store.todos().allSatisfy { $0.system.changeTag != nil && !$0.hasPendingChanges })
        let b = try await cloud.device("B", sendsAutomatically: false)
        #expect(try await b.store.recordCount() == items.count)
        #expect(try await contents(a.store) == contents(b.store))
        await cloud.shutdown()
    }

    @Test func manyBatchesInFlightAreAllConfirmedAndALostAnswerIsResent() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let items = (0..<1_050).map { TodoItem(key: .privateTodo(String(format: "many-%05d", $0)), title: "todo \($0)") }
        try await a.store.saveLocalEdits(items, at: a.clock.nowMilliseconds())
        // The third batch's answer is lost (the device goes offline): the batches in flight beside it are still confirmed,
        // its own entries stay queued and, back online, the cloud's copies settle them.
        a.transport.plan(.init(pathContains: "records/modify", skip: 2, count: 1, kind: .loseResponse))
        await a.engine.sync(.localEdit)
        #expect(try await a.store.pendingCount() < items.count)
        await a.engine.networkIsBack()
        await a.engine.waitUntilIdle()
        #expect(try await a.store.pendingCount() == 0)
        #expect(try await a.store.todos().allSatisfy { $0.system.changeTag != nil && !$0.hasPendingChanges })
        await b.engine.sync(.manualRefresh)
        #expect(try await b.store.recordCount() == items.count)
        #expect(try await contents(a.store) == contents(b.store))
        // Snapshots keep the display order while records are patched in.
        try await a.engine.edit(items[7].key, TodoEdit(title: "edited"))
        await a.engine.sync(.localEdit)
        let shown = await a.engine.snapshot().todos(in: .private)
        #expect(shown.count == items.count && shown.contains { $0.title == "edited" })
        let stamps = shown.map { $0.system.created?.timestamp ?? 0 }
        #expect(stamps == stamps.sorted())
        await cloud.shutdown()
    }
}
