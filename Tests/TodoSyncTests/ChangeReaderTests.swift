import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// What a reader keeps per record in these tests: enough to see titles, permissions and sharing change.
struct ReaderRow: Sendable, Hashable {
    var key: RecordKey
    var title: String
    var canUpdate: Bool
    var sharePermission: SharePermission?
    var sharedWith: [String]

    @Sendable static func make(_ item: TodoItem, _ context: RowContext) -> ReaderRow? {
        guard item.recordType != ShareSchema.recordType else { return nil }
        return ReaderRow(
            key: item.key, title: item.title, canUpdate: RecordPermissions.canUpdate(item, context.permissions),
            sharePermission: item.sharePermission, sharedWith: context.shares[item.key]?.members.map(\.account) ?? [])
    }
}

/// A reader's own copy of the rows, kept only by applying the changes it takes, as the terminal UI does.
struct ReaderModel {
    /// The reader's wakeups; the reader is registered while they are kept.
    var wakeups: AsyncStream<SyncSnapshot>?
    var rows: [RecordKey: ReaderRow] = [:]
    var takes = 0
    var reloads: [Set<DatabaseScope>] = []

    /// Per scope read again, the keys it has not confirmed yet.
    var unconfirmed: [DatabaseScope: Set<RecordKey>] = [:]

    mutating func apply(_ changes: VisibleChanges<ReaderRow>) {
        takes += 1
        #expect(Set(changes.rows.map(\.key)).count == changes.rows.count, "a record comes at most once a take")
        #expect(Set(changes.removed).isDisjoint(with: changes.rows.map(\.key)))
        if !changes.reloadStarted.isEmpty { reloads.append(changes.reloadStarted) }
        for scope in changes.reloadStarted { unconfirmed[scope] = Set(rows.keys.filter { $0.scope == scope }) }
        for key in changes.removed { rows[key] = nil }
        for row in changes.rows {
            rows[row.key] = row
            unconfirmed[row.key.scope]?.remove(row.key)
        }
        for scope in changes.reloadFinished {
            for key in unconfirmed[scope] ?? [] { rows[key] = nil }
            unconfirmed[scope] = nil
        }
    }

    /// Takes every chunk, as the app does.
    mutating func take(_ engine: SyncEngine, _ reader: ChangeReader, chunk: Int = 10_000) async throws {
        var more = true
        while more {
            let changes = try await engine.takeChanges(reader, chunk: chunk, makeRow: ReaderRow.make)
            more = changes.hasMore
            apply(changes)
        }
    }

    func titles(_ scope: DatabaseScope = .private) -> [String] { rows.values.filter { $0.key.scope == scope }.map(\.title).sorted() }
}

@Suite("Change readers: one copy of the rows, kept by changes") struct ChangeReaderTests {
    @Test func aReaderKeptByChangesMatchesTheStoreAndReloadsOnlyAtFirst() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        let b = try await cloud.device("B", listen: true)
        let milk = try await a.engine.add(title: "Milk")
        let bread = try await a.engine.add(title: "Bread")
        _ = try await a.engine.add(title: "Eggs")
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.titles().count == 3 })

        let (reader, wakeups) = await b.engine.changeReader()
        var model = ReaderModel(wakeups: wakeups)
        try await model.take(b.engine, reader)
        #expect(model.reloads == [Set(DatabaseScope.allCases)])
        #expect(model.titles() == ["Bread", "Eggs", "Milk"])
        // Nothing written since: nothing to take.
        let nothing = try await b.engine.takeChanges(reader, makeRow: ReaderRow.make)
        #expect(nothing.rows.isEmpty && nothing.removed.isEmpty && nothing.reloadStarted.isEmpty)

        // Another device edits, adds and deletes; B fetches by push, and the reader's copy follows key by key.
        try await a.engine.edit(milk.key, TodoEdit(title: "Oat milk"))
        _ = try await a.engine.add(title: "Jam")
        try await a.engine.delete(bread.key)
        await a.engine.waitUntilIdle()
        #expect(try await eventually {
            try await model.take(b.engine, reader)
            return model.titles() == ["Eggs", "Jam", "Oat milk"]
        })
        // And a local edit on B.
        try await b.engine.setCompleted(milk.key)
        try await model.take(b.engine, reader)
        #expect(model.titles() == (try await b.titles()))
        #expect(model.reloads.count == 1)

        await a.engine.stop()
        await b.engine.stop()
        await cloud.shutdown()
    }

    @Test func rowsReadForAFirstFrameNeedNoReloadAfterwards() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A")
        _ = try await a.engine.add(title: "First")
        _ = try await a.engine.add(title: "Second")
        await a.engine.waitUntilIdle()

        await a.engine.stop()
        // As the app launches: one engine reads the first frame, then the session's engine (not started, its kept
        // state not read yet) takes over the rows.
        let first = SyncEngine(
            client: a.client, store: a.store, configuration: SyncConfiguration(deviceName: "A", deviceID: a.session.deviceID, account: "alice"))
        await first.loadFromStore()
        let cached = try await first.visibleRows(makeRow: ReaderRow.make)
        var model = ReaderModel()
        model.apply(cached)
        #expect(model.titles() == ["First", "Second"])
        let session = SyncEngine(
            client: a.client, store: a.store, configuration: SyncConfiguration(deviceName: "A", deviceID: a.session.deviceID, account: "alice"))
        let (reader, wakeups) = await session.changeReader(current: cached.context)
        model.wakeups = wakeups
        try await model.take(session, reader)  // the app's first wakeup may come before the engine starts
        await session.start(listenForPushes: false)
        try await model.take(session, reader)
        #expect(model.reloads == [Set(DatabaseScope.allCases)])  // only the first frame's own read

        let third = try await session.add(title: "Third")
        let changes = try await session.takeChanges(reader, makeRow: ReaderRow.make)
        #expect(changes.reloadStarted.isEmpty)
        #expect(changes.rows.map(\.key) == [third.key])
        await session.stop()
        await cloud.shutdown()
    }

    @Test func aScopeReadAgainInChunksMissesNothingWrittenMeanwhile() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        var keys: [RecordKey] = []
        for index in 0..<9 { keys.append(try await a.engine.add(title: "Todo \(index)").key) }
        keys.sort { $0.recordName < $1.recordName }  // the order chunks come in

        // Rows on screen from before, one of them no longer in the cache; a reader without context reads all again.
        let (reader, wakeups) = await a.engine.changeReader()
        var model = ReaderModel(wakeups: wakeups)
        let phantom = RecordKey.privateTodo("gone-meanwhile")
        model.rows[phantom] = ReaderRow(key: phantom, title: "Gone", canUpdate: true, sharePermission: nil, sharedWith: [])
        let first = try await a.engine.takeChanges(reader, chunk: 3, makeRow: ReaderRow.make)
        #expect(first.reloadStarted == Set(DatabaseScope.allCases))
        #expect(first.hasMore)
        #expect(first.rows.map(\.key) == Array(keys.prefix(3)))
        model.apply(first)
        #expect(model.rows[phantom] != nil)  // still on screen until the read ends

        // Meanwhile: a record already read changes, one not read yet goes, one is added.
        try await a.engine.edit(keys[0], TodoEdit(title: "Edited after its chunk"))
        try await a.engine.delete(keys[8])
        _ = try await a.engine.add(title: "Added meanwhile")
        try await model.take(a.engine, reader, chunk: 3)
        #expect(model.rows[phantom] == nil)
        #expect(model.titles() == (try await a.titles()))
        #expect(model.titles().contains("Edited after its chunk"))
        #expect(model.reloads.count == 1)
        await a.engine.stop()
        await cloud.shutdown()
    }

    @Test func sharesReachTheirListsAndGrantsAndSigningOutLocksEveryRow() async throws {
        let cloud = try await TestCloud.start()
        let alice = try await cloud.device("laptop", account: "alice", listen: true)
        let bob = try await cloud.device("phone", account: "bob", listen: true)
        let (alicesReader, alicesWakeups) = await alice.engine.changeReader()
        let (bobsReader, bobsWakeups) = await bob.engine.changeReader()
        var alicesModel = ReaderModel(wakeups: alicesWakeups)
        var bobsModel = ReaderModel(wakeups: bobsWakeups)
        try await alicesModel.take(alice.engine, alicesReader)
        try await bobsModel.take(bob.engine, bobsReader)

        let trip = try await alice.engine.addList(title: "Trip")
        let tickets = try await alice.engine.add(title: "Tickets", toList: trip.key)
        await alice.engine.waitUntilIdle()
        try await alicesModel.take(alice.engine, alicesReader)
        #expect(alicesModel.rows[trip.key]?.sharedWith == [])

        // Sharing writes only the share record; the owner's list row learns whom it is shared with.
        try await alice.engine.share(list: trip.key, with: "bob", permission: .readWrite)
        try await alicesModel.take(alice.engine, alicesReader)
        #expect(alicesModel.rows[trip.key]?.sharedWith == ["bob"])

        // Bob accepts: the list and its todo arrive with the grant of the share.
        #expect(await eventually { await bob.engine.snapshot().invitations.count == 1 })
        let invitation = try #require(await bob.engine.snapshot().invitations.first)
        try await bob.engine.accept(invitation.reference)
        try await bobsModel.take(bob.engine, bobsReader)
        let bobsTickets = RecordKey(
            scope: .shared, zoneName: TodoSchema.zoneName, zoneOwner: alice.session.userRecordName, recordName: tickets.key.recordName)
        #expect(bobsModel.rows[bobsTickets]?.sharePermission == .readWrite)
        #expect(bobsModel.rows[bobsTickets]?.canUpdate == true)

        // Alice lowers him to read-only: only the share record changes, yet every row of the list follows.
        try await alice.engine.share(list: trip.key, with: "bob", permission: .readOnly)
        #expect(try await eventually {
            try await bobsModel.take(bob.engine, bobsReader)
            return bobsModel.rows[bobsTickets]?.sharePermission == .readOnly
        })
        #expect(bobsModel.rows[bobsTickets]?.canUpdate == false)
        #expect(bobsModel.reloads.last == [.shared])

        // Signed out, the rows stay (what the cache holds is still shown), each read-only.
        await alice.engine.signedOut("signed out for the test", ended: true)
        try await alicesModel.take(alice.engine, alicesReader)
        #expect(alicesModel.rows[tickets.key] != nil)
        #expect(alicesModel.rows.values.allSatisfy { !$0.canUpdate })

        await alice.engine.stop()
        await bob.engine.stop()
        await cloud.shutdown()
    }
}
