import CloudModel
import Foundation
import Terminal
import Testing
import TodoApp
import TodoPlanning
import TodoStore
import TodoSync
import TodoUI

/// One row per record, always: the app's rows against the real cloud across a public post, a share, a permission
/// change, a revert and an undo.
@Suite("No ghost rows, through the real cloud", .serialized)
@MainActor
struct GhostRowTests {
    @Test func aPublicPostIsOneRowThatStopsBeingPending() async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let alice = try await cloud.app("alice")
        defer { Task { await alice.close() } }
        await alice.press(.backTab)  // the Public tab
        #expect(alice.state.tab == .public)
        await alice.press(.char("a"))
        await alice.type("Bake sale on Friday")
        await alice.press(.enter)
        await alice.settle()
        let posts = alice.rows(titled: "Bake sale on Friday")
        #expect(posts.count == 1)
        #expect(posts.first?.isPending == false)
        #expect(alice.state.selectedRow?.title == "Bake sale on Friday")
        // Deleting it (asks first) removes the one row; undo brings the same one back.
        await alice.press(.char("d"), .char("y"))
        await alice.settle()
        #expect(alice.rows(titled: "Bake sale on Friday").isEmpty)
        await alice.press(.char("u"))
        await alice.settle()
        #expect(alice.rows(titled: "Bake sale on Friday").map(\.id) == posts.map(\.id))
    }

    @Test func aParticipantsTodoSurvivesShareRevertAndUndoAsOneRow() async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let alice = try await cloud.app("alice")
        let bob = try await cloud.app("bob")
        defer { Task { await alice.close(); await bob.close() } }

        let list = try await alice.engine.addList(title: "Groceries")
        _ = try await alice.engine.add(title: "Apples", toList: list.key)
        await alice.engine.waitUntilIdle()
        try await alice.engine.share(list: list.key, with: "bob", permission: .readWrite)
        await bob.engine.sync(.manualRefresh)
        let invitation = try #require(await bob.engine.status().invitations.first)
        try await bob.engine.accept(invitation.reference)
        await bob.settle()

        // Bob adds into alice's list from the Shared tab: one row, confirmed.
        await bob.press(.tab)
        #expect(bob.state.tab == .shared)
        #expect(bob.state.selectedRow?.title == "Groceries")
        await bob.press(.char("a"))
        await bob.type("Pears")
        await bob.press(.enter)
        await bob.settle()
        var pears = bob.rows(titled: "Pears")
        #expect(pears.count == 1)
        #expect(pears.first?.isPending == false)
        await alice.engine.sync(.manualRefresh)
        #expect(try await alice.engine.todos(inList: list.key).map(\.title).sorted() == ["Apples", "Pears"])

        // Bob deletes it (asks first), then alice makes the list read-only: bob's undo is refused and leaves no row.
        let pearsID = try #require(pears.first?.id)
        _ = bob.state.perform(.bottom)
        #expect(bob.state.selectedRow?.id == pearsID)
        await bob.press(.char("d"), .char("y"))
        await bob.settle()
        #expect(bob.rows(titled: "Pears").isEmpty)
        try await alice.engine.share(list: list.key, with: "bob", permission: .readOnly)
        await bob.engine.sync(.manualRefresh)
        await bob.settle()
        await bob.press(.char("u"))
        await bob.settle()
        #expect(bob.rows(titled: "Pears").isEmpty, "the refused undo left a row behind")
        #expect(bob.state.message?.kind == .error)

        // Alice makes it read-write again; an edit bob queued before learning of a new lowering is reverted, said so,
        // and leaves exactly the owner's row.
        try await alice.engine.share(list: list.key, with: "bob", permission: .readWrite)
        await bob.engine.sync(.manualRefresh)
        await bob.settle()
        let apples = try #require(bob.rows(titled: "Apples").first)
        let applesKey = try #require(AppBridge.recordKey(apples.id))
        try await alice.engine.share(list: list.key, with: "bob", permission: .readOnly)
        _ = try await bob.engine.edit(applesKey, TodoEdit(title: "Rotten apples"))
        await bob.settle()
        #expect(bob.rows(titled: "Apples").count + bob.rows(titled: "Rotten apples").count == 1)
        await bob.engine.sync(.localEdit)
        await bob.settle()
        #expect(bob.rows(titled: "Apples").count == 1)
        #expect(bob.rows(titled: "Rotten apples").isEmpty)
        #expect(bob.state.message?.text.contains("Your change to 'Rotten apples' was reverted") == true)
        pears = bob.rows(titled: "Pears")
        #expect(pears.isEmpty)
    }
}

/// Undo of a delete through the real cloud: the same record comes back, done as it was, on every device.
@Suite("Undo through the real cloud", .serialized)
@MainActor
struct UndoThroughTheCloudTests {
    @Test(arguments: [true, false])
    func undoOfADeleteRestoresTheSameRecordDone(afterTheDeleteWasSent: Bool) async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let laptop = try await cloud.app("alice", device: "laptop")
        let phone = try await cloud.app("alice", device: "phone")
        defer { Task { await laptop.close(); await phone.close() } }
        await laptop.press(.char("a"))
        await laptop.type("Renew passport")
        await laptop.press(.enter)
        await laptop.settle()
        await laptop.press(.char(" "))  // done
        await laptop.settle()
        let id = try #require(laptop.rows(titled: "Renew passport").first?.id)
        let key = try #require(AppBridge.recordKey(id))
        // An annotation (not shown in the row) comes back with it too.
        let note = Annotation(entry: Date(timeIntervalSince1970: 1_790_000_000), text: "photo booth on 3rd floor")
        _ = try await laptop.engine.edit(key, TodoEdit(annotate: [note]))
        await laptop.settle()

        await laptop.press(.char("g"), .char("d"), .char("y"))
        if afterTheDeleteWasSent {
            await laptop.settle()
            await phone.engine.sync(.manualRefresh)
            // A private todo is deleted as a stamped trash (so it can be ordered against edits elsewhere): hidden.
            #expect(try await phone.engine.todo(key).map(\.isTrashed) ?? true)
        }
        await laptop.press(.char("u"))
        await laptop.settle()
        await laptop.engine.sync(.localEdit)
        await laptop.settle()

        let rows = laptop.rows(titled: "Renew passport")
        #expect(rows.map(\.id) == [id])
        #expect(rows.first?.isCompleted == true)
        #expect(await laptop.engine.status().pendingCount == 0)
        await phone.engine.sync(.manualRefresh)
        let there = try await phone.engine.todo(key)
        #expect(there?.title == "Renew passport")
        #expect(there?.isCompleted == true)
        #expect(there?.annotations == [note])
    }
}
