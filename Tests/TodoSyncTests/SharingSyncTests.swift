import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// Sharing a list between accounts, device to device, through the real cloud.
@Suite("Sharing through the real cloud", .serialized) struct SharingSyncTests {
    /// The shared-database key of a record in `owner`'s Todos zone.
    func sharedKey(_ recordName: String, owner: TestDevice) -> RecordKey {
        RecordKey(scope: .shared, zoneName: TodoSchema.zoneName, zoneOwner: owner.session.userRecordName, recordName: recordName)
    }

    @Test func shareAcceptEditLowerRevokeFromDeviceToDevice() async throws {
        let cloud = try await TestCloud.start()
        let alice = try await cloud.device("laptop", account: "alice", listen: true)
        let bob = try await cloud.device("phone", account: "bob", listen: true)
        let carol = try await cloud.device("tablet", account: "carol")

        let groceries = try await alice.engine.addList(title: "Groceries")
        let apples = try await alice.engine.add(title: "Apples", toList: groceries.key)
        let secret = try await alice.engine.addList(title: "Secret")
        _ = try await alice.engine.add(title: "Hidden", toList: secret.key)
        _ = try await alice.engine.add(title: "Loose, unshared")
        await alice.engine.waitUntilIdle()

        // Invite: bob's device learns of it through the push on his shared-changes subscription.
        try await alice.engine.share(list: groceries.key, with: "bob", permission: .readWrite)
        #expect(await eventually { await bob.engine.snapshot().invitations.count == 1 })
        let invitation = try #require(await bob.engine.snapshot().invitations.first)
        #expect(invitation.share.rootTitle == "Groceries")
        #expect(invitation.share.owner.account == "alice")
        #expect(invitation.permission == .readWrite)

        // Accept: the owner's zone appears in bob's shared database with exactly the list, its todo and the share.
        try await bob.engine.accept(invitation.reference)
        let shared = try await bob.store.todos(in: .shared)
        #expect(Set(shared.map(\.title)).isSuperset(of: ["Groceries", "Apples"]))
        #expect(!shared.contains { $0.title == "Hidden" || $0.title == "Secret" || $0.title == "Loose, unshared" })
        #expect(await bob.engine.snapshot().todos(in: .shared).allSatisfy { $0.sharePermission == .readWrite })
        #expect(try await bob.store.todos(in: .private).isEmpty)

        // Bob completes a todo and adds one: alice's device gets both by push.
        let bobsApples = sharedKey(apples.key.recordName, owner: alice)
        let bobsList = sharedKey(groceries.key.recordName, owner: alice)
        #expect(await bob.engine.canUpdate(try #require(try await bob.engine.todo(bobsApples))))
        try await bob.engine.setCompleted(bobsApples)
        let pears = try await bob.engine.add(title: "Pears", toList: bobsList)
        await bob.engine.waitUntilIdle()
        #expect(try await bob.store.pendingCount() == 0)
        #expect(try await eventually { try await alice.store.todo(apples.key)?.isCompleted == true })
        let alicesPears = RecordKey.privateTodo(pears.key.recordName)
        #expect(try await eventually { try await alice.store.todo(alicesPears)?.listName == groceries.key.recordName })
        #expect(try await alice.store.todo(alicesPears)?.system.modified?.userRecordName == bob.session.userRecordName)

        // The list itself stays the owner's.
        await #expect(throws: SyncEngineError.self) { try await bob.engine.deleteList(bobsList) }
        await #expect(throws: SyncEngineError.self) { try await bob.engine.edit(bobsList, TodoEdit(title: "Mine now")) }

        // Alice lowers bob to read-only. His device learns it by push; the UI check refuses at once.
        try await alice.engine.share(list: groceries.key, with: "bob", permission: .readOnly)
        #expect(await eventually {
            await bob.engine.snapshot().todos(in: .shared).first { $0.key == bobsApples }?.sharePermission == .readOnly
        })
        await #expect(throws: SyncEngineError.self) { try await bob.engine.setCompleted(bobsApples, false) }

        // An edit bob's device queued before it knew (offline) is refused by the cloud and reverted, not retried.
        try await bob.store.saveLocalEdit(
            {
                var item = try #require(try await bob.store.todo(bobsApples))
                item.title = "Rotten apples"
                return item
            }(), at: 1)
        await bob.engine.sync(.localEdit)
        #expect(try await bob.store.pendingCount() == 0)
        #expect(try await bob.store.todo(bobsApples)?.title == "Apples")
        #expect(await bob.engine.snapshot().lastError?.contains("reverted") == true)
        #expect(try await alice.store.todo(apples.key)?.title == "Apples")

        // Carol, a third account, sees nothing of it.
        await carol.engine.sync(.manualRefresh)
        #expect(try await carol.store.todos(in: .shared).isEmpty)
        #expect(try await carol.engine.sharedWithMe().isEmpty)

        // Alice stops sharing: bob's local copy disappears.
        try await alice.engine.stopSharing(list: groceries.key)
        #expect(try await eventually { try await bob.store.todos(in: .shared).isEmpty })
        #expect(await bob.engine.snapshot().todos(in: .shared).isEmpty)

        await alice.engine.stop()
        await bob.engine.stop()
        await cloud.shutdown()
    }

    @Test func aReadWriteParticipantsOfflineEditsSyncLikeAnyOther() async throws {
        let cloud = try await TestCloud.start()
        let alice = try await cloud.device("laptop", account: "alice")
        let bob = try await cloud.device("phone", account: "bob")
        let chores = try await alice.engine.addList(title: "Chores")
        let dishes = try await alice.engine.add(title: "Dishes", toList: chores.key)
        try await alice.engine.share(list: chores.key, with: "bob", permission: .readWrite)
        let invitation = try #require(try await bob.engine.sharedWithMe().first)
        try await bob.engine.accept(invitation.reference)

        // Bob goes offline: his edits wait in the outbox and show at once.
        bob.transport.isOffline = true
        let bobsDishes = sharedKey(dishes.key.recordName, owner: alice)
        try await bob.engine.edit(bobsDishes, TodoEdit(notes: "with the good soap"))
        let laundry = try await bob.engine.add(title: "Laundry", toList: sharedKey(chores.key.recordName, owner: alice))
        await bob.engine.waitUntilIdle()
        #expect(await bob.engine.snapshot().connection == .offline)
        #expect(try await bob.store.pendingCount() == 2)
        // Meanwhile alice edits another field of the same todo.
        try await alice.engine.edit(dishes.key, TodoEdit(priority: 3))
        await alice.engine.waitUntilIdle()

        // Back online: bob's edits merge field by field with alice's and reach her.
        bob.transport.isOffline = false
        bob.clock.advance(by: 100)
        #expect(
            try await eventually {
                let online = await bob.engine.snapshot().connection == .online
                return try await bob.store.pendingCount() == 0 && online
            })
        await bob.engine.waitUntilIdle()
        await alice.engine.sync(.manualRefresh)
        let merged = try #require(try await alice.store.todo(dishes.key))
        #expect(merged.notes == "with the good soap")
        #expect(merged.priority == 3)
        #expect(try await alice.store.todo(.privateTodo(laundry.key.recordName))?.listName == chores.key.recordName)
        await cloud.shutdown()
    }

    @Test func leavingAndDecliningRemoveTheShareFromTheParticipant() async throws {
        let cloud = try await TestCloud.start()
        let alice = try await cloud.device("laptop", account: "alice")
        let bob = try await cloud.device("phone", account: "bob")
        let trip = try await alice.engine.addList(title: "Trip")
        _ = try await alice.engine.add(title: "Book hotel", toList: trip.key)
        let garden = try await alice.engine.addList(title: "Garden")
        try await alice.engine.share(list: trip.key, with: "bob", permission: .readWrite)
        try await alice.engine.share(list: garden.key, with: "bob", permission: .readOnly)

        let invitations = try await bob.engine.sharedWithMe()
        #expect(Set(invitations.map { $0.share.rootTitle }) == ["Trip", "Garden"])
        let tripShare = try #require(invitations.first { $0.share.rootTitle == "Trip" })
        let gardenShare = try #require(invitations.first { $0.share.rootTitle == "Garden" })
        try await bob.engine.leave(gardenShare.reference)  // decline
        try await bob.engine.accept(tripShare.reference)
        #expect(try await bob.store.todos(in: .shared).contains { $0.title == "Book hotel" })
        #expect(!(try await bob.store.todos(in: .shared).contains { $0.title == "Garden" }))

        try await bob.engine.leave(list: sharedKey(trip.key.recordName, owner: alice))
        #expect(try await bob.store.todos(in: .shared).isEmpty)
        let owned = try await alice.engine.ownedShares()
        #expect(owned.allSatisfy { $0.participants.isEmpty || !$0.participants.contains { $0.account == "bob" } })

        // Sharing needs the list in the cloud and an owner; other accounts' lists cannot be shared onward.
        await #expect(throws: (any Error).self) { try await alice.engine.share(list: trip.key, with: "nobody-\(UUID())", permission: .readOnly) }
        await cloud.shutdown()
    }
}
