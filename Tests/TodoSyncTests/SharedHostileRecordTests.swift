import CloudClient
import CloudModel
import Foundation
import Testing
import TodoStore
import TodoSync

/// Another account owns a list and shares it: it can write any field of any type into the records its participant
/// fetches. Each record here carries one field at an extreme or of the wrong type; the participant's device reads each
/// number within its range (or as absent), and completing, skipping and editing them neither traps nor sticks.
@Suite("Hostile records in a list another account shares")
struct SharedHostileRecordTests {
    /// One field's hostile value each, on a daily repeating todo (so completing one makes a next occurrence).
    static let cases: [(String, [String: FieldValue])] = [
        // Ill-typed first: each teaches the owner's schema its wrong type (the owner's account bears it, nobody else's).
        ("occurrence string", ["occurrence": .string("9223372036854775807")]),
        ("priority string", ["priority": .string("high")]),
        ("due string", ["dueDate": .string("tomorrow"), "allDay": .string("yes")]),
        ("completed list", ["isCompleted": .list(.int64, [.int64(1), .int64(0)])]),
        ("trashed string", ["isTrashed": .string("1")]),
        ("notes list", ["notes": .list(.string, [.string("a"), .string("b")])]),
        ("tags scalar", ["tags": .string("solo")]),
        ("annotations int", ["annotations": .int64(.max)]),
        ("series int", ["series": .int64(.min)]),
        ("repeatFrom int", ["repeatFrom": .int64(1)]),
        ("stamps int", ["editStamps": .int64(.max)]),
        ("list string", ["list": .string("not-a-reference")]),
        ("repeat int", ["repeat": .int64(.max)]),
        // Then extremes of the right types (the schema has no type for these fields yet, or the right one).
        ("title int", ["title": .int64(.min)]),
        ("lostEdits timestamp", ["lostEdits": .timestamp(.max)]),
        ("interval max", ["repeat": .string("FREQ=DAILY;INTERVAL=9223372036854775807")]),
        ("interval zero", ["repeat": .string("FREQ=HOURLY;INTERVAL=0")]),
        ("count negative", ["repeat": .string("FREQ=WEEKLY;COUNT=-9223372036854775808")]),
        ("monthday max", ["repeat": .string("FREQ=MONTHLY;BYMONTHDAY=9223372036854775807")]),
        ("rule nonsense", ["repeat": .string("FREQ=SECONDLY;BYDAY=XX,99ZZ;UNTIL=0")]),
    ]

    @Test func everyFieldAtItsExtremeOrOfTheWrongTypeIsReadSafely() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let owner = try await cloud.device("owner", account: "mallory", sendsAutomatically: false)
        let device = try await cloud.device("victim", account: "alice", sendsAutomatically: false)
        let list = try await owner.engine.addList(title: "Mallory's list")
        await owner.engine.sync(.localEdit)
        try await owner.engine.share(list: list.key, with: "alice", permission: .readWrite)
        let invitation = try #require(try await device.engine.sharedWithMe().first)
        try await device.engine.accept(invitation.reference)

        let zone = ZoneID(zoneName: TodoSchema.zoneName)
        var planted: [String: String] = [:]
        var refused: [String] = []
        for (index, (label, hostile)) in Self.cases.enumerated() {
            var fields: [String: FieldValue] = ["title": .string("hostile \(label)"), "repeat": .string("FREQ=DAILY")]
            fields.merge(hostile) { _, new in new }
            let name = "shared-hostile-\(index)"
            let record = Record(
                recordName: name, recordType: TodoSchema.todoType, fields: fields, zoneID: zone, parent: ParentReference(recordName: list.key.recordName))
            let result = try await owner.client.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
            if result.first?.record != nil { planted[name] = label } else { refused.append(label) }
        }
        #expect(planted.count >= Self.cases.count - 3, "the cloud took the planted records; refused: \(refused)")
        // Extreme numbers of the right type on top: the schema knows these fields now, as whatever it learned first.
        let extremes: [(String, [String: FieldValue])] = [
            ("occurrence max", ["occurrence": .int64(.max)]), ("occurrence negative", ["occurrence": .int64(-7)]),
            ("priority max", ["priority": .int64(.max)]), ("priority negative", ["priority": .int64(-1)]),
            ("due max", ["dueDate": .timestamp(.max)]), ("due before 1970", ["dueDate": .timestamp(-86_400_000)]),
            ("due past 9999", ["dueDate": .timestamp(253_402_300_800_000)]),
        ]
        for (index, (label, hostile)) in extremes.enumerated() {
            var fields: [String: FieldValue] = ["title": .string("hostile \(label)"), "repeat": .string("FREQ=DAILY")]
            fields.merge(hostile) { _, new in new }
            let name = "shared-extreme-\(index)"
            let record = Record(
                recordName: name, recordType: TodoSchema.todoType, fields: fields, zoneID: zone, parent: ParentReference(recordName: list.key.recordName))
            let result = try await owner.client.modifyRecords(.private, ModifyRecordsRequest(operations: [RecordOperation(.create, record)], zoneID: zone))
            if result.first?.record != nil { planted[name] = label }
        }

        await device.engine.sync(.manualRefresh)
        let ownerName = owner.session.userRecordName
        for (name, label) in planted.sorted(by: { $0.key < $1.key }) {
            let key = RecordKey(scope: .shared, zoneName: TodoSchema.zoneName, zoneOwner: ownerName, recordName: name)
            let item = try #require(try await device.store.todo(key), "\(label) reached the participant")
            #expect(TodoItem.priorityRange.contains(Int64(item.priority)), "\(label): priority \(item.priority)")
            #expect(TodoItem.occurrenceRange.contains(Int64(item.occurrence)), "\(label): occurrence \(item.occurrence)")
            if let due = item.dueDate {
                #expect(TodoItem.dueRange.contains(Int64((due.timeIntervalSince1970 * 1000).rounded())), "\(label): due \(due)")
            }
            let expectedUnreadable: [String: [String]] = [
                "due string": ["allDay", "dueDate"], "priority string": ["priority"], "occurrence string": ["occurrence"],
                "tags scalar": ["tags"], "due past 9999": ["dueDate"], "due max": ["dueDate"],
            ]
            if let fields = expectedUnreadable[label] { #expect(item.unreadableFields == fields, "\(label): \(item.unreadableFields)") }
            for stamp in [item.system.created, item.system.modified] {
                if let stamp { #expect(TodoItem.stampRange.contains(stamp.timestamp), "\(label): stamp \(stamp.timestamp)") }
            }
            let steps: [(String, () async throws -> Void)] = [
                ("done", { _ = try await device.engine.setCompleted(key, true) }),
                ("undone", { _ = try await device.engine.setCompleted(key, false) }),
                ("skip", { _ = try await device.engine.skip(key) }),
                ("unskip", { _ = try await device.engine.unskip(key) }),
                ("edit", { _ = try await device.engine.edit(key, TodoEdit(title: "edited \(label)", priority: 2)) }),
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
        // What the owner's schema refuses comes back set aside with words; nothing waits forever or traps.
        await device.engine.sync(.localEdit)
        await device.engine.sync(.manualRefresh)
        for change in try await device.store.pendingChanges(includeFailed: true) where change.failedReason != nil {
            #expect(change.failedReason?.isEmpty == false)
        }
        #expect(try await device.store.pendingCount() == (try await device.store.failedCount()), "whatever is not sent is set aside, not retried forever")
    }

    /// A cloud's created and modified stamps are read only when a cloud could have written them (1970 to 9999).
    @Test func systemStampsOutsideTheirRangeAreReadAsAbsent() {
        for time in [Int64.min, -1, 253_402_300_800_000, .max] {
            var record = Record(recordName: "r", recordType: TodoSchema.todoType, fields: ["title": .string("t")])
            record.created = RecordStamp(timestamp: time, userRecordName: "_mallory")
            record.modified = RecordStamp(timestamp: time, userRecordName: "_mallory")
            let item = TodoItem(record: record, scope: .shared)
            #expect(item.system.created == nil && item.system.modified == nil, "\(time)")
        }
        var record = Record(recordName: "r", recordType: TodoSchema.todoType, fields: ["title": .string("t")])
        record.modified = RecordStamp(timestamp: 1_800_000_000_000, userRecordName: "_mallory")
        #expect(TodoItem(record: record, scope: .shared).system.modified?.timestamp == 1_800_000_000_000)
    }
}
