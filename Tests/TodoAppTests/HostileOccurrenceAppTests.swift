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

/// The app's keys on records whose numbers are at their extremes, written raw into the cloud by another client.
@Suite("Hostile record numbers in the app", .serialized)
@MainActor
struct HostileOccurrenceAppTests {
    /// A repeating todo whose `occurrence` is Int64.max (and extreme priority and due date) is shown, and Space
    /// completes it: no trap, and the series ends there instead of overflowing into a next occurrence.
    @Test func spaceCompletesAnOccurrenceAtTheLimit() async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let app = try await cloud.app("alice")
        defer { Task { await app.close() } }

        let client = CloudClient(baseURL: cloud.server.baseURL)
        _ = try await client.signIn(account: "alice", password: "password-alice", deviceName: "raw")
        let zone = ZoneID(zoneName: TodoSchema.zoneName)
        let record = Record(
            recordName: "planted-series", recordType: TodoSchema.todoType,
            fields: [
                "title": .string("Planted"), "repeat": .string("FREQ=DAILY"), "occurrence": .int64(.max), "priority": .int64(.min),
                "dueDate": .timestamp(.max), "allDay": .int64(0),
            ], zoneID: zone)
        let saved = try await client.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
        #expect(saved.first?.record != nil, "\(saved)")

        await app.engine.sync(.manualRefresh)
        #expect(await app.settle { !$0.rows(titled: "Planted").isEmpty })
        let row = try #require(app.rows(titled: "Planted").first)
        #expect(row.priority == 0 && row.due == nil, "out-of-range numbers are not shown as they came")
        await app.press(.char(" "))
        await app.settle()
        #expect(await app.settle { $0.rows(titled: "Planted").first?.isCompleted == true }, "Space completed it")
        let series = try await app.session.store.todos(in: .private, includeTrashed: true).filter { $0.seriesName == "planted-series" }
        #expect(series.count == 1, "no next occurrence past the limit: \(series.map(\.key.recordName))")
    }
}
