import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// What the engine's everyday work costs, counted at the device's transport (requests) and at its store
/// (`TodoStore.counters`: sync-state reads, reads of a record by key, outbox read connections). One push costs the
/// listening device at most three requests: see `PushBudgetTests`.
@Suite("The request and read budgets of a device")
struct SyncBudgetTests {
    /// The rows a reader (the terminal app's way of reading) holds, newest take last.
    actor HeldRows {
        private var rows: [RecordKey: TodoItem] = [:]

        func take(_ changes: VisibleChanges<TodoItem>) {
            for key in changes.removed { rows[key] = nil }
            for item in changes.rows { rows[item.key] = item }
        }

        func row(_ key: RecordKey) -> TodoItem? { rows[key] }
    }

    /// Takes changes on every wakeup, as the app does, until cancelled.
    private static func readLikeTheApp(_ engine: SyncEngine, into held: HeldRows) async -> Task<Void, Never> {
        let (reader, wakeups) = await engine.changeReader()
        return Task {
            for await _ in wakeups {
                var more = true
                while more {
                    guard let changes = try? await engine.takeChanges(reader, makeRow: { item, _ in item }) else { break }
                    more = changes.hasMore
                    await held.take(changes)
                }
            }
        }
    }

    @Test func oneEditInTheAppSendsOneRequestAndReadsItsRecordAtMostTwice() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop")
        let held = HeldRows()
        let app = await Self.readLikeTheApp(device.engine, into: held)
        defer { app.cancel() }
        let milk = try await device.engine.add(title: "Milk").key
        #expect(await eventually { await held.row(milk)?.hasPendingChanges == false })
        await device.engine.waitUntilIdle()

        // An edit of the fields, and a todo marked done (the app's commonest edits), each as the app makes it.
        let edits: [(name: String, make: @Sendable () async throws -> Void, shown: @Sendable (TodoItem) -> Bool)] = [
            ("edit", { _ = try await device.engine.edit(milk, TodoEdit(title: "Oat milk")) }, { $0.title == "Oat milk" }),
            ("done", { _ = try await device.engine.setCompleted(milk) }, { $0.isCompleted }),
        ]
        for edit in edits {
            let before = device.transport.sentPaths.count
            device.store.counters.start()
            try await edit.make()
            await device.engine.waitUntilIdle()
            // The app shows the edit, then (once the cloud confirmed it) no longer as pending.
            #expect(
                await eventually {
                    guard let row = await held.row(milk) else { return false }
                    return edit.shown(row) && !row.hasPendingChanges
                })
            let spent = Array(device.transport.sentPaths.dropFirst(before))
            #expect(spent.count == 1 && spent.first?.hasSuffix("records/modify") == true, "\(edit.name): \(spent)")
            let reads = device.store.counters.counts.recordReads[milk, default: 0]
            #expect(reads <= 2, "\(edit.name): the record was read \(reads) times")
        }
    }

    @Test func aFreshAccountsFirstSendingPassSendsEachTodoOnce() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", account: "newcomer", sendsAutomatically: false, launches: false)
        for number in 1...450 { _ = try await device.engine.add(title: "Todo \(number)") }
        await device.engine.sync(.localEdit)
        // After the account's creation and the sign-in: the zone, the subscriptions, three batches of todos, each
        // sent once, and the public board's first poll.
        let paths = device.transport.sentPaths.dropFirst(2).map { $0.split(separator: "/").suffix(3).joined(separator: "/") }
        #expect(
            paths == ["private/zones/modify", "private/subscriptions/modify", "shared/subscriptions/modify"]
                + Array(repeating: "private/records/modify", count: 3) + ["public/records/query"], "\(paths)")
        #expect(try await device.store.pendingCount() == 0)
        #expect(try await device.store.todos(in: .private).count == 450)
    }

    @Test func onePassReadsItsSyncStateOnceAndTheOutboxOnOneConnection() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", sendsAutomatically: false)
        await device.engine.stop()  // the launch's read connection closes; counting starts without one
        device.store.counters.start()
        for number in 1...3 { _ = try await device.engine.add(title: "Todo \(number)") }
        // A full pass: the account, both databases, the outbox, the public board.
        await device.engine.sync(.manualRefresh)
        #expect(device.store.counters.counts.syncStateReads == 1)
        _ = try await device.engine.add(title: "One more")
        await device.engine.sync(.localEdit)
        #expect(device.store.counters.counts.syncStateReads == 2)
        // Both passes read the outbox (the first one ahead, while the account check waited) on one connection.
        #expect(device.store.counters.counts.outboxReaders == 1)
        #expect(try await device.store.pendingCount() == 0)
    }

    @Test func theAccountIsCheckedOnLaunchWhenTheNetworkIsBackAndAfterARefusedToken() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", sendsAutomatically: false)
        func checks() -> Int { device.transport.sentPaths.filter { $0.hasSuffix("users/caller") }.count }
        #expect(checks() == 1)  // the launch

        // Everyday passes do not ask who is signed in.
        _ = try await device.engine.add(title: "Milk")
        await device.engine.sync(.localEdit)
        await device.engine.sync(.push(.private))
        await device.engine.sync(.push(nil))
        await device.engine.sync(.publicPollTimer)
        #expect(checks() == 1)

        await device.engine.sync(.networkBack)
        #expect(checks() == 2)

        // A refused token: signed in again, the pass starts over with the account check.
        let token = device.session.ckWebAuthToken
        await device.engine.setSignInRenewal { token }
        try await cloud.anonymousClient().injectFault(FaultRequest(endpoint: "records/modify", serverErrorCode: .authenticationFailed, count: 1))
        _ = try await device.engine.add(title: "Bread")
        await device.engine.sync(.localEdit)
        #expect(checks() == 3)
        #expect(try await device.store.pendingCount() == 0)
    }
}
