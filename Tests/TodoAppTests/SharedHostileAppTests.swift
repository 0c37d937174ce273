import CloudClient
import CloudModel
import CloudServer
import Foundation
import Terminal
import Testing
import TodoApp
import TodoStore
import TodoSync
import TodoUI

/// The app's keys on records another account planted in the list it shares: numbers at their extremes and fields of
/// the wrong type. Every row shows within its ranges, and Space, skip, edit and details on each neither trap nor stick.
@Suite("Hostile records of a shared list in the app", .serialized)
@MainActor
struct SharedHostileAppTests {
    static let planted: [(String, [String: FieldValue])] = [
        ("occurrence as text", ["occurrence": .string("9223372036854775807")]),
        ("priority as text", ["priority": .string("high")]),
        ("due as text", ["dueDate": .string("tomorrow"), "allDay": .string("yes")]),
        ("done as a list", ["isCompleted": .list(.int64, [.int64(1)])]),
        ("tags as text", ["tags": .string("solo")]),
        ("notes as a list", ["notes": .list(.string, [.string("a"), .string("b")])]),
        ("repeat as a number", ["repeat": .int64(.max)]),
        ("interval at the limit", ["repeat": .string("FREQ=DAILY;INTERVAL=9223372036854775807")]),
        ("count below zero", ["repeat": .string("FREQ=WEEKLY;COUNT=-9223372036854775808")]),
        ("lost edits as a time", ["lostEdits": .timestamp(.max)]),
    ]

    @Test func everyKeyOnEveryHostileRowWorksOrRefuses() async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let owner = try await cloud.app("mallory")
        defer { Task { await owner.close() } }
        let app = try await cloud.app("alice")
        defer { Task { await app.close() } }

        let list = try await owner.engine.addList(title: "Planted list")
        await owner.engine.sync(.localEdit)
        try await owner.engine.share(list: list.key, with: "alice", permission: .readWrite)
        let invitation = try #require(try await app.engine.sharedWithMe().first)
        try await app.engine.accept(invitation.reference)

        let raw = CloudClient(baseURL: cloud.server.baseURL)
        _ = try await raw.signIn(account: "mallory", password: "password-mallory", deviceName: "raw")
        let zone = ZoneID(zoneName: TodoSchema.zoneName)
        var titles: [String] = []
        for (index, (label, hostile)) in Self.planted.enumerated() {
            var fields: [String: FieldValue] = ["title": .string("Planted \(label)"), "repeat": .string("FREQ=DAILY")]
            fields.merge(hostile) { _, new in new }
            let record = Record(
                recordName: "planted-\(index)", recordType: TodoSchema.todoType, fields: fields, zoneID: zone,
                parent: ParentReference(recordName: list.key.recordName))
            let saved = try await raw.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
            if saved.first?.record != nil { titles.append("Planted \(label)") }
        }
        #expect(titles.count >= Self.planted.count - 2, "the cloud took the planted records: \(titles)")

        await app.engine.sync(.manualRefresh)
        #expect(await app.settle { harness in titles.allSatisfy { !harness.rows(titled: $0).isEmpty } }, "every planted row shows")
        await app.press(.tab)
        let count = app.state.visibleCount
        #expect(count >= titles.count, "the Shared tab shows the list and its todos: \(count)")
        for _ in 0..<count {
            await app.press(.char(" "))
            await app.settle()
            await app.press(.char(">"))
            await app.settle()
            await app.press(.char("o"), .escape, .char("e"))
            await app.type(" edited")
            await app.press(.enter)
            await app.settle()
            await app.press(.escape, .char("j"))
        }
        await app.engine.sync(.manualRefresh)
        await app.settle()
        for row in Tab.allCases.flatMap({ app.state.rows(in: $0) }) {
            #expect((0...3).contains(row.priority), "\(row.title): priority \(row.priority)")
        }
        // Whatever the owner's schema refuses is set aside in words; nothing waits to be retried forever.
        #expect(try await app.session.store.pendingCount() == (try await app.session.store.failedCount()))
    }
}
