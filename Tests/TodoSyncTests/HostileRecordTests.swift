import CloudClient
import CloudModel
import Foundation
import Testing
import TodoPlanning
import TodoStore
import TodoSync

/// Records written raw into the cloud (not through a `TodoItem`), each field at its extreme or malformed: the device
/// fetches them, and completing, skipping, editing and syncing them neither traps nor loses anything.
@Suite("Hostile record fields through the real cloud")
struct HostileRecordTests {
    /// One field's hostile value, on a daily repeating todo (so completing it makes a next occurrence).
    static let cases: [(String, [String: FieldValue])] = {
        let max = Int64.max
        let min = Int64.min
        let cases: [(String, [String: FieldValue])] = [
            ("occurrence max", ["occurrence": .int64(max)]),
            ("occurrence max-1", ["occurrence": .int64(max - 1)]),
            ("occurrence min", ["occurrence": .int64(min)]),
            ("occurrence 0", ["occurrence": .int64(0)]),
            ("occurrence last", ["occurrence": .int64(TodoItem.occurrenceRange.upperBound)]),
            ("priority max", ["priority": .int64(max)]),
            ("priority min", ["priority": .int64(min)]),
            ("due max", ["dueDate": .timestamp(max), "allDay": .int64(0)]),
            ("due min", ["dueDate": .timestamp(min), "allDay": .int64(1)]),
            ("due year 10000", ["dueDate": .timestamp(253_402_300_800_000)]),
            ("completed min", ["isCompleted": .int64(min)]),
            ("allDay max", ["allDay": .int64(max), "dueDate": .timestamp(1_800_000_000_000)]),
            ("interval max", ["repeat": .string("FREQ=DAILY;INTERVAL=\(max)")]),
            ("count min", ["repeat": .string("FREQ=DAILY;COUNT=\(min)")]),
            ("count max", ["repeat": .string("FREQ=DAILY;COUNT=\(max)")]),
            ("monthday min", ["repeat": .string("FREQ=MONTHLY;BYMONTHDAY=\(min)")]),
            ("until far", ["repeat": .string("FREQ=YEARLY;UNTIL=99999999T999999Z")]),
            ("rule garbage", ["repeat": .string("FREQ=\u{0}\u{FFFF};;;=")]),
            ("stamps max", ["editStamps": .string("*=\(max),\(max),x;title=\(max),\(max),y")]),
            ("stamps min", ["editStamps": .string("*=\(min),\(min),x;title=\(min),\(min),")]),
            ("lost edits max", ["lostEdits": .string("[{\"field\":\"title\",\"value\":\"x\",\"lostAt\":\(max),\"wonAt\":\(max),\"id\":\"a\"}]")]),
            ("annotations odd", ["annotations": .list(.string, [.string("9999-12-31T23:59:59Z end"), .string("-0001-01-01T00:00:00Z x"), .string("")])]),
            ("tags ints", ["tags": .list(.int64, [.int64(max), .int64(min)])]),
        ]
        // (Ill-typed known fields are not planted: the cloud's schema would learn the wrong type for the whole account.)
        return cases
    }()

    @Test func extremeAndMalformedFieldsNeitherTrapNorStick() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let planter = try await cloud.device("planter", sendsAutomatically: false)
        let device = try await cloud.device("victim", sendsAutomatically: false)
        await device.engine.sync(.manualRefresh)  // the zone exists before the planter writes into it
        await planter.engine.sync(.manualRefresh)

        var names: [String: String] = [:]
        for (index, (label, hostile)) in Self.cases.enumerated() {
            var fields: [String: FieldValue] = ["title": .string("hostile \(label)"), "repeat": .string("FREQ=DAILY")]
            fields.merge(hostile) { _, new in new }
            let name = "hostile-\(index)"
            let record = Record(recordName: name, recordType: TodoSchema.todoType, fields: fields, zoneID: ZoneID(zoneName: TodoSchema.zoneName))
            let request = ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: record.zoneID, atomic: false)
            let result = try await planter.client.modifyRecords(.private, request)
            if result.first?.record != nil { names[name] = label }
        }
        #expect(names.count >= Self.cases.count - 5, "the cloud took most planted records: \(names.values.sorted())")

        await device.engine.sync(.manualRefresh)
        for (name, label) in names.sorted(by: { $0.key < $1.key }) {
            let key = RecordKey.privateTodo(name)
            let item = try #require(try await device.store.todo(key), "\(label) reached the device")
            #expect(TodoItem.priorityRange.contains(Int64(item.priority)), "\(label): priority \(item.priority)")
            #expect(TodoItem.occurrenceRange.contains(Int64(item.occurrence)), "\(label): occurrence \(item.occurrence)")
            // Every step either works or is refused with words; none traps.
            let steps: [(String, () async throws -> Void)] = [
                ("done", { _ = try await device.engine.setCompleted(key, true) }),
                ("undone", { _ = try await device.engine.setCompleted(key, false) }),
                ("skip", { _ = try await device.engine.skip(key) }),
                ("unskip", { _ = try await device.engine.unskip(key) }),
                ("edit", { _ = try await device.engine.edit(key, TodoEdit(title: "edited \(label)", priority: 2)) }),
                ("due", { _ = try await device.engine.edit(key, TodoEdit(due: .some(DueDate(Date(timeIntervalSince1970: 1_800_000_000), allDay: true)))) }),
            ]
            for (step, run) in steps {
                do {
                    try await run()
                } catch let error as SyncEngineError {
                    #expect(!error.description.isEmpty, "\(label) \(step)")
                } catch {
                    Issue.record("\(label) \(step): \(error)")
                }
            }
        }
        // The planter edits them too, so the victim merges its edits with the hostile stamps.
        for name in names.keys {
            let record = Record(
                recordName: name, recordType: TodoSchema.todoType, fields: ["notes": .string("planter again")],
                zoneID: ZoneID(zoneName: TodoSchema.zoneName))
            _ = try await planter.client.modifyRecords(
                .private, ModifyRecordsRequest(operations: [RecordOperation(.forceUpdate, record)], zoneID: record.zoneID, atomic: false))
        }
        await device.engine.sync(.manualRefresh)
        await device.engine.sync(.manualRefresh)
        _ = try await device.engine.conflicts()
        let lastError = await device.engine.status().lastError ?? ""
        #expect(try await device.store.pendingCount() == 0, "everything was sent: \(lastError)")
        let last = try #require(names.first { $0.value == "occurrence last" }?.key)
        let ended = try #require(try await device.store.todo(.privateTodo(last)))
        #expect(ended.title == "edited occurrence last", "the last occurrence a series can have can be completed and edited")
    }
}

/// The outbox never lets one record hold the others hostage.
@Suite("Oversized records in the outbox, through the real cloud")
struct OutboxHostageTests {
    /// A record past the request limit (17 MB) and one past the record limit (1.5 MB) among 198 small ones, all in one
    /// batch's reach: the small ones reach the cloud, each large one is set aside by itself, named by its title.
    @Test func oversizedRecordsAreSetAsideAndTheRestSent() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        await a.engine.sync(.manualRefresh)
        for index in 0..<99 { _ = try await a.engine.add(title: "small \(index)") }
        let huge = try await a.engine.add(title: "Huge notes", notes: String(repeating: "x", count: 17 * 1_048_576))
        let large = try await a.engine.add(title: "Large notes", notes: String(repeating: "y", count: 1_572_864))
        for index in 99..<198 { _ = try await a.engine.add(title: "small \(index)") }

        await a.engine.sync(.localEdit)
        #expect(try await a.store.failedCount() == 2, "only the two large ones are refused")
        #expect(try await a.store.pendingCount() == 2)
        let refused = try await a.store.pendingChanges(includeFailed: true)
        #expect(Set(refused.map(\.key)) == [huge.key, large.key])
        for change in refused { #expect(change.failedReason?.contains("1 MB") == true, "\(change.failedReason ?? "")") }
        let lastError = await a.engine.status().lastError ?? ""
        #expect(lastError.contains("'Huge notes'") || lastError.contains("'Large notes'"), "the message names the todo: \(lastError)")

        await b.engine.sync(.manualRefresh)
        let titles = try await b.titles()
        #expect(titles.count == 198 && titles.allSatisfy { $0.hasPrefix("small ") }, "\(titles.count) reached the other device")
    }
}
