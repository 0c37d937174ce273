import CloudClient
import CloudModel
import CloudServer
import Foundation
import Terminal
import Testing
import TodoStore
import TodoSync
import TodoUI

/// A record whose known fields came in a form this device cannot read: the app's detail view names them, as
/// `todo info` does, and the rest of the todo still shows.
@Suite("Unreadable fields in the app's details", .serialized)
@MainActor
struct UnreadableFieldsAppTests {
    @Test func theDetailViewNamesTheFieldsTakenAsAbsent() async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let app = try await cloud.app("alice")
        defer { Task { await app.close() } }

        // Another device of the same account (a raw client) writes a priority as text and a due date past year 9999.
        let raw = CloudClient(baseURL: cloud.server.baseURL)
        _ = try await raw.signIn(account: "alice", password: "password-alice", deviceName: "raw")
        let zone = ZoneID(zoneName: TodoSchema.zoneName)
        let record = Record(
            recordName: "odd-fields", recordType: TodoSchema.todoType,
            fields: ["title": .string("Odd fields"), "priority": .string("high"), "notes": .string("still read")], zoneID: zone)
        _ = try await raw.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))

        await app.engine.sync(.manualRefresh)
        #expect(await app.settle { !$0.rows(titled: "Odd fields").isEmpty }, "the todo shows")
        let row = try #require(app.rows(titled: "Odd fields").first)
        #expect(row.unreadableFields == ["priority"], "\(row.unreadableFields)")

        await app.press(.char("o"))
        let screen = app.state.rendered().text
        #expect(screen.contains("Not read"), "the details name what was not read:\n\(screen)")
        #expect(screen.contains("priority: in a form this device cannot read"), "\(screen)")
        #expect(screen.contains("still read"), "the readable fields still show:\n\(screen)")
        #expect(screen.contains("Priority") && screen.contains("none"), "the unreadable priority is taken as absent:\n\(screen)")
    }
}
