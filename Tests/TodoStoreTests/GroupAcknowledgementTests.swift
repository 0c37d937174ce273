import CloudModel
import Foundation
import Testing
import TodoStore
import TestSupport

/// Acknowledgements of many records in one transaction (the engine commits the answers of several requests as one
/// group): the per-record "edited since sent" check holds for every record of the group.
@Suite("Group acknowledgements", .onThreadOfItsOwn) struct GroupAcknowledgementTests {
    /// The cloud's answer for a sent save: system fields only, as to `desiredKeys: []`.
    private func answer(_ change: PendingChange) -> SentChange {
        var record = serverRecord(change.key.recordName, title: "", tag: "s-\(change.key.recordName)", modifiedAt: 9_000)
        record.fields = [:]
        return SentChange(change, result: .saved(record))
    }

    @Test func manyConfirmationsClearOnlyTheEntriesNotTouchedSinceTheyWereSent() async throws {
        try await withTemporaryStore { store, _ in
            // More than three requests' worth, as a group commit of the engine holds.
            let count = 640
            let names = (0..<count).map { String(format: "bulk-%04d", $0) }
            try await store.addLocalRecords(names.map { TodoItem(key: .privateTodo($0), title: "sent \($0)") }, at: 1)
            let sent = try await store.pendingChanges()
            #expect(sent.count == count)
            // While in flight: every 7th edited, every 11th deleted locally, every 13th dropped and queued anew.
            var edited: Set<String> = [], deleted: Set<String> = [], requeued: Set<String> = []
            for (index, name) in names.enumerated() {
                let key = RecordKey.privateTodo(name)
                if index % 7 == 3 {
                    var item = try #require(try await store.todo(key))
                    item.title = "edited \(name)"
                    try await store.saveLocalEdit(item, at: 2)
                    edited.insert(name)
                } else if index % 11 == 5 {
                    try await store.deleteLocally(key, at: 2)
                    deleted.insert(name)
                } else if index % 13 == 6 {
                    try await store.discardPendingChange(key)
                    try await store.saveLocalEdit(TodoItem(key: key, title: "anew \(name)"), at: 2)
                    requeued.insert(name)
                }
            }
            try await store.confirm(sent.map(answer))

            let pending = Dictionary(uniqueKeysWithValues: try await store.pendingChanges().map { ($0.key.recordName, $0) })
            #expect(Set(pending.keys) == edited.union(deleted).union(requeued))
            for name in names {
                let item = try await store.todo(.privateTodo(name))
                if deleted.contains(name) {
                    // The cloud has it now: the delete goes out, with the tag it answered.
                    #expect(item == nil)
                    #expect(pending[name]?.action == .delete(recordType: TodoSchema.todoType, changeTag: "s-\(name)"))
                    continue
                }
                let stored = try #require(item)
                #expect(stored.system.changeTag == "s-\(name)" && stored.system.modified?.timestamp == 9_000)
                if edited.contains(name) {
                    #expect(stored.title == "edited \(name)" && stored.hasPendingChanges)
                    #expect(pending[name]?.baseFields?["title"] == .string("sent \(name)"))
                } else if requeued.contains(name) {
                    #expect(stored.title == "anew \(name)" && stored.hasPendingChanges)
                } else {
                    #expect(stored.title == "sent \(name)" && stored.localEditedAt == nil && !stored.hasPendingChanges)
                    #expect(stored.system.created == RecordStamp(timestamp: 500, userRecordName: "_u1", deviceID: "d1"))
                }
            }
        }
    }

    @Test func confirmationsOfOtherKindsInOneCallKeepTheirOrderPerRecord() async throws {
        try await withTemporaryStore { store, _ in
            try await store.applyZoneChanges(
                .privateTodos, records: [serverRecord("old", title: "Old", tag: "t1")], token: nil, moreComing: false)
            try await store.deleteLocally(.privateTodo("old"), at: 1)
            for name in ["a", "b"] { try await store.saveLocalEdit(TodoItem(key: .privateTodo(name), title: name), at: 1) }
            let sent = try await store.pendingChanges()
            let byName = Dictionary(uniqueKeysWithValues: sent.map { ($0.key.recordName, $0) })
            let a = try #require(byName["a"]), b = try #require(byName["b"]), old = try #require(byName["old"])
            // A save without its queue position (found by key), a delete, a save named twice, and a plain one.
            var byKey = answer(a)
            byKey.sequence = 0
            try await store.confirm([byKey, SentChange(old, result: .deleted), answer(b), answer(b)])
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.todo(.privateTodo("a"))?.system.changeTag == "s-a")
            #expect(try await store.todo(.privateTodo("b"))?.system.changeTag == "s-b")
            #expect(try await store.todo(.privateTodo("b"))?.hasPendingChanges == false)
            #expect(try await store.todo(.privateTodo("old")) == nil)
        }
    }

    @Test func aLargeGroupOfSavesAndDeletesClearsOnlyWhatWasSentAsItIs() async throws {
        try await withTemporaryStore { store, _ in
            // 100 records the cloud has; 60 deleted here, 40 edited here; all sent in one group.
            let names = (0..<100).map { String(format: "mixed-%03d", $0) }
            try await store.applyZoneChanges(
                .privateTodos, records: names.map { serverRecord($0, title: "cloud \($0)", tag: "t-\($0)") }, token: nil,
                moreComing: false)
            for (index, name) in names.enumerated() {
                if index < 60 {
                    try await store.deleteLocally(.privateTodo(name), at: 1)
                } else {
                    var item = try #require(try await store.todo(.privateTodo(name)))
                    item.title = "mine \(name)"
                    try await store.saveLocalEdit(item, at: 1)
                }
            }
            let sent = try await store.pendingChanges()
            #expect(sent.count == 100)
            // While in flight: a deleted one is created again here (its entry becomes a save), an edited one edited again.
            try await store.saveLocalEdit(TodoItem(key: .privateTodo("mixed-007"), title: "back again"), at: 2)
            var again = try #require(try await store.todo(.privateTodo("mixed-077")))
            again.title = "mine twice"
            try await store.saveLocalEdit(again, at: 2)
            try await store.confirm(sent.map { $0.isDelete ? SentChange($0, result: .deleted) : answer($0) })

            let pending = try await store.pendingChanges()
            #expect(Set(pending.map(\.key.recordName)) == ["mixed-007", "mixed-077"])
            #expect(try await store.todo(.privateTodo("mixed-008")) == nil)
            #expect(try await store.todo(.privateTodo("mixed-007"))?.title == "back again")
            let settled = try #require(try await store.todo(.privateTodo("mixed-078")))
            #expect(settled.system.changeTag == "s-mixed-078" && !settled.hasPendingChanges && settled.title == "mine mixed-078")
            let edited = try #require(try await store.todo(.privateTodo("mixed-077")))
            #expect(edited.system.changeTag == "s-mixed-077" && edited.hasPendingChanges && edited.title == "mine twice")
        }
    }

    @Test func aLargeGroupNamingARecordTwiceIsConfirmedInOrder() async throws {
        try await withTemporaryStore { store, _ in
            let names = (0..<50).map { "twice-\($0)" }
            try await store.addLocalRecords(names.map { TodoItem(key: .privateTodo($0), title: $0) }, at: 1)
            let sent = try await store.pendingChanges()
            // The first answer for twice-0 is older; the second (later in the group) is the one kept.
            var older = answer(sent[0])
            if case .saved(var record) = older.result {
                record.recordChangeTag = "older"
                older.result = .saved(record)
            }
            try await store.confirm([older] + sent.map(answer))
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.todo(.privateTodo("twice-0"))?.system.changeTag == "s-twice-0")
        }
    }
}

