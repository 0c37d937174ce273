import CloudModel
import Foundation
import SQLiteDB
import TestSupport
import Testing
import TodoStore

/// A store in a fresh temporary file, removed at the end of the test.
func withTemporaryStore<T>(_ body: (TodoStore, URL) async throws -> T) async throws -> T {
    let directory = ScratchDirectory.path("todostore")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("cache.sqlite")
    let store = try await TodoStore(url: url)
    return try await body(store, url)
}

/// The steps SQLite plans for `sql` on `db`, joined, with `count` text arguments bound (`EXPLAIN QUERY PLAN`).
func queryPlan(_ sql: String, arguments count: Int, on db: SQLiteDatabase) throws -> String {
    let arguments = (0..<count).map { _ in SQLValue.text("x") }
    return try db.query("EXPLAIN QUERY PLAN " + sql, arguments) { $0.text(3) }.joined(separator: " | ")
}

func serverRecord(
    _ name: String, title: String, tag: String = "t1", notes: String = "", extra: [String: FieldValue] = [:], modifiedAt: Int64 = 1_000
) -> Record {
    var fields: [String: FieldValue] = [
        "title": .string(title), "notes": .string(notes), "isCompleted": .int64(0), "priority": .int64(1), "isTrashed": .int64(0),
    ]
    for (k, v) in extra { fields[k] = v }
    var record = Record(
        recordName: name, recordType: TodoSchema.todoType, recordChangeTag: tag, fields: fields, zoneID: ZoneID(zoneName: "Todos"))
    record.created = RecordStamp(timestamp: 500, userRecordName: "_u1", deviceID: "d1")
    record.modified = RecordStamp(timestamp: modifiedAt, userRecordName: "_u1", deviceID: "d1")
    return record
}

@Suite("TodoStore", .onThreadOfItsOwn) struct TodoStoreTests {
    @Test func migrationsCreateTheSchemaAndReopenKeepsData() async throws {
        try await withTemporaryStore { store, url in
            #expect(try await store.schemaVersion() == TodoStore.currentSchemaVersion)
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "Milk")], token: ChangeToken(rawValue: "z1"), moreComing: false)
            await store.close()
            let reopened = try await TodoStore(url: url)
            #expect(try await reopened.schemaVersion() == TodoStore.currentSchemaVersion)
            #expect(try await reopened.todos().map(\.title) == ["Milk"])
            #expect(try await reopened.zoneToken(.privateTodos) == ChangeToken(rawValue: "z1"))
        }
    }

    @Test func aFirstVersionCacheIsUpgradedInPlace() async throws {
        try await withTemporaryStore { store, url in
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "Milk")], token: ChangeToken(rawValue: "z1"), moreComing: false)
            await store.close()
            // Make the file what the first release left: its schema only.
            try SQLiteDatabase.allowBlocking {
                let raw = try SQLiteDatabase(path: url.path)
                try raw.execute(
                    """
                    DROP INDEX records_trashed; DROP INDEX records_open_due; DROP INDEX records_depends; DROP INDEX records_extra;
                    DROP INDEX records_type; DROP INDEX records_lost; DROP INDEX outbox_failed; DROP TABLE announced_losses;
                    DROP TABLE history; DROP INDEX records_until; ALTER TABLE records DROP COLUMN wait_at; ALTER TABLE records DROP COLUMN scheduled_at;
                    ALTER TABLE records DROP COLUMN until_at; ALTER TABLE records DROP COLUMN start_at; ALTER TABLE records DROP COLUMN depends;
                    ALTER TABLE records DROP COLUMN edit_stamps; ALTER TABLE records DROP COLUMN lost_edits;
                    ALTER TABLE records DROP COLUMN tags; ALTER TABLE records DROP COLUMN all_day; ALTER TABLE records DROP COLUMN repeat_rule;
                    ALTER TABLE records DROP COLUMN repeat_from_completion; ALTER TABLE records DROP COLUMN series;
                    ALTER TABLE records DROP COLUMN occurrence; ALTER TABLE records DROP COLUMN annotations; PRAGMA user_version = 1;
                    """)
            }
            let upgraded = try await TodoStore(url: url)
            #expect(try await upgraded.schemaVersion() == TodoStore.currentSchemaVersion)
            #expect(try await upgraded.todos().map(\.title) == ["Milk"])
            await upgraded.close()
            let indexes = try SQLiteDatabase.allowBlocking {
                try SQLiteDatabase(path: url.path).query(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('records_type', 'outbox_failed') ORDER BY name"
                ) { $0.text(0) }
            }
            #expect(indexes == ["outbox_failed", "records_type"])
        }
    }

    @Test func closedStoreRefusesClearly() async throws {
        try await withTemporaryStore { store, _ in
            await store.close()
            await #expect(throws: StoreError.closed) { try await store.todos() }
        }
    }

    @Test func recordsAndTokenCommitTogetherPerPage() async throws {
        try await withTemporaryStore { store, _ in
            try await store.applyZoneChanges(
                .privateTodos, records: (0..<3).map { serverRecord("r\($0)", title: "T\($0)") }, token: ChangeToken(rawValue: "p1"),
                moreComing: true)
            #expect(try await store.zoneToken(.privateTodos)?.rawValue == "p1")
            #expect(try await store.recordCount() == 3)
            try await store.applyZoneChanges(
                .privateTodos, records: [Record.tombstone(recordName: "r1", zoneID: ZoneID(zoneName: "Todos"))],
                token: ChangeToken(rawValue: "p2"), moreComing: false)
            #expect(try await store.zoneToken(.privateTodos)?.rawValue == "p2")
            #expect(try await store.todos().map(\.key.recordName) == ["r0", "r2"])
        }
    }

    @Test func reapplyingAPageIsIdempotent() async throws {
        try await withTemporaryStore { store, _ in
            let page = (0..<5).map { serverRecord("r\($0)", title: "T\($0)") }
            try await store.applyZoneChanges(.privateTodos, records: page, token: ChangeToken(rawValue: "a"), moreComing: false)
            try await store.applyZoneChanges(.privateTodos, records: page, token: ChangeToken(rawValue: "a"), moreComing: false)
            #expect(try await store.recordCount() == 5)
        }
    }

    @Test func unknownFieldsAndSystemFieldsRoundTrip() async throws {
        try await withTemporaryStore { store, _ in
            let extra: [String: FieldValue] = [
                "color": .string("blue"), "labels": .list(.string, [.string("a"), .string("b")]),
                "location": .unknown(type: "LOCATION", value: .object(["latitude": .double(1.5)])),
            ]
            let record = serverRecord("x", title: "With extras", tag: "tag9", extra: extra)
            try await store.applyZoneChanges(.privateTodos, records: [record], token: nil, moreComing: false)
            let item = try #require(try await store.todo(.privateTodo("x")))
            #expect(item.extraFields == extra)
            #expect(item.system.changeTag == "tag9")
            #expect(item.system.created?.deviceID == "d1")
            #expect(item.system.modified?.timestamp == 1_000)
            #expect(item.record.fields == record.fields)
            #expect(item.record.recordChangeTag == "tag9")
        }
    }

    @Test func editAndOutboxRowAreWrittenTogetherAndCoalesce() async throws {
        try await withTemporaryStore { store, _ in
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "Old")], token: nil, moreComing: false)
            var item = try #require(try await store.todo(.privateTodo("a")))
            item.title = "New"
            try await store.saveLocalEdit(item, at: 2_000)
            item.notes = "more"
            try await store.saveLocalEdit(item, at: 3_000)
            let pending = try await store.pendingChanges()
            #expect(pending.count == 1)
            #expect(pending[0].revision == 2)
            #expect(pending[0].baseFields?["title"] == .string("Old"))  // the base of the FIRST edit
            guard case .save(let saved) = pending[0].action else { Issue.record("expected a save"); return }
            #expect(saved.title == "New" && saved.notes == "more" && saved.system.changeTag == "t1")
            #expect(saved.localEditedAt == 3_000)
            #expect(try await store.todo(.privateTodo("a"))?.hasPendingChanges == true)
        }
    }

    @Test func pendingChangesPageByQueuePosition() async throws {
        try await withTemporaryStore { store, _ in
            let items = (0..<5).map { TodoItem(key: .privateTodo("p\($0)"), title: "t\($0)") }
            try await store.saveLocalEdits(items, at: 1_000)
            let first = try await store.pendingChanges(limit: 2)
            #expect(first.map(\.key.recordName) == ["p0", "p1"])
            #expect(first[0].sequence < first[1].sequence)
            // Editing a queued record again keeps its place: a reader past it does not see it twice.
            var again = items[0]
            again.title = "edited"
            try await store.saveLocalEdit(again, at: 2_000)
            let rest = try await store.pendingChanges(limit: 10, after: first.last?.sequence)
            #expect(rest.map(\.key.recordName) == ["p2", "p3", "p4"])
            #expect(try await store.pendingChanges().map(\.key.recordName) == ["p0", "p1", "p2", "p3", "p4"])
            #expect(try await store.pendingChanges(after: rest.last?.sequence).isEmpty)
        }
    }

    @Test func deleteOfANeverUploadedRecordLeavesNothingToSend() async throws {
        try await withTemporaryStore { store, _ in
            try await store.saveLocalEdit(TodoItem(key: .privateTodo("new"), title: "Draft"), at: 1)
            #expect(try await store.pendingCount() == 1)
            try await store.deleteLocally(.privateTodo("new"), at: 2)
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.recordCount() == 0)
        }
    }

    @Test func deleteOfAnUploadedRecordQueuesADeleteWithItsTag() async throws {
        try await withTemporaryStore { store, _ in
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "A", tag: "t7")], token: nil, moreComing: false)
            var item = try #require(try await store.todo(.privateTodo("a")))
            item.title = "edited"
            try await store.saveLocalEdit(item, at: 5)
            try await store.deleteLocally(.privateTodo("a"), at: 6)
            let pending = try await store.pendingChanges()
            #expect(pending.count == 1)
            #expect(pending.first?.action == .delete(recordType: "Todo", changeTag: "t7"))
            try await store.confirmDeleted(.privateTodo("a"), revision: pending[0].revision)
            #expect(try await store.pendingCount() == 0)
        }
    }

    @Test func fetchDoesNotOverwriteAPendingEdit() async throws {
        try await withTemporaryStore { store, _ in
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "One")], token: nil, moreComing: false)
            var item = try #require(try await store.todo(.privateTodo("a")))
            item.title = "Mine"
            try await store.saveLocalEdit(item, at: 10)
            let summary = try await store.applyZoneChanges(
                .privateTodos, records: [serverRecord("a", title: "Theirs", tag: "t2")], token: nil, moreComing: false)
            #expect(summary.keptForPendingEdit == 1)
            #expect(try await store.todo(.privateTodo("a"))?.title == "Mine")
        }
    }

    @Test func confirmationClearsOnlyTheRevisionSent() async throws {
        try await withTemporaryStore { store, _ in
            let key = RecordKey.privateTodo("n")
            try await store.saveLocalEdit(TodoItem(key: key, title: "v1"), at: 1)
            let sent = try await store.pendingChanges()[0]
            var item = try #require(try await store.todo(key))
            item.title = "v2"
            try await store.saveLocalEdit(item, at: 2)  // edited while the send was in flight
            try await store.confirmSaved(key, revision: sent.revision, serverRecord: serverRecord("n", title: "v1", tag: "s1"))
            let pending = try await store.pendingChanges()
            #expect(pending.count == 1)
            guard case .save(let next) = pending[0].action else { Issue.record("expected a save"); return }
            #expect(next.title == "v2" && next.system.changeTag == "s1")
            try await store.confirmSaved(key, revision: pending[0].revision, serverRecord: serverRecord("n", title: "v2", tag: "s2"))
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.todo(key)?.system.changeTag == "s2")
        }
    }

    @Test func theWALIsCheckpointedBesideTheEditsAndSurvivesReopening() async throws {
        try await withTemporaryStore { store, url in
            func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0 }
            let before = size()
            let notes = String(repeating: "n", count: 2_000)
            // Well over the 1,000 pages (4 MB) of WAL after which a checkpoint is due.
            for batch in 0..<3 {
                let items = (0..<1_000).map { TodoItem(key: .privateTodo("w\(batch)-\($0)"), title: "t", notes: notes) }
                try await store.saveLocalEdits(items, at: 1)
            }
            #expect(await eventually(30) { size() >= before + 4_000_000 })
            await store.close()
            let reopened = try await TodoStore(url: url)
            #expect(try await reopened.recordCount() == 3_000)
            #expect(try await reopened.pendingCount() == 3_000)
            #expect(try await reopened.todo(.privateTodo("w2-999"))?.notes == notes)
            await reopened.close()
        }
    }

    @Test func anAcknowledgementWithoutFieldsAdoptsTheSystemFieldsAndKeepsTheSentOnes() async throws {
        try await withTemporaryStore { store, _ in
            let key = RecordKey.privateTodo("s")
            var item = TodoItem(key: key, title: "Sent", notes: "n", priority: 2)
            item.setList("L")
            try await store.saveLocalEdit(item, at: 7)
            let sent = try await store.pendingChanges()[0]
            #expect(sent.sequence > 0)
            // As a cloud answers `desiredKeys: []`: system fields, no field values.
            var answer = serverRecord("s", title: "", tag: "s1", modifiedAt: 2_000)
            answer.fields = [:]
            try await store.confirm([SentChange(sent, result: .saved(answer))])
            #expect(try await store.pendingCount() == 0)
            let stored = try #require(try await store.todo(key))
            #expect(stored.title == "Sent" && stored.notes == "n" && stored.priority == 2 && stored.listName == "L")
            #expect(stored.system == SystemFields(changeTag: "s1", created: answer.created, modified: answer.modified))
            #expect(stored.localEditedAt == nil && !stored.hasPendingChanges)
        }
    }

    @Test func anEditWhileInFlightKeepsItsFieldsAndTakesTheSentOnesAsBase() async throws {
        try await withTemporaryStore { store, _ in
            let key = RecordKey.privateTodo("e")
            try await store.saveLocalEdit(TodoItem(key: key, title: "v1"), at: 1)
            let sent = try await store.pendingChanges()[0]
            var item = try #require(try await store.todo(key))
            item.title = "v2"
            try await store.saveLocalEdit(item, at: 2)  // edited while the save was in flight
            var answer = serverRecord("e", title: "", tag: "s1")
            answer.fields = [:]
            try await store.confirm([SentChange(sent, result: .saved(answer))])
            let pending = try await store.pendingChanges()
            #expect(pending.count == 1)
            guard case .save(let next) = pending[0].action else { Issue.record("expected a save"); return }
            #expect(next.title == "v2" && next.system.changeTag == "s1")
            // The server now holds v1: the merge base of the pending edit.
            #expect(pending[0].baseFields?["title"] == .string("v1"))
        }
    }

    @Test func anAcknowledgementClearsOnlyTheEntryItWasSentFrom() async throws {
        try await withTemporaryStore { store, _ in
            let key = RecordKey.privateTodo("again")
            try await store.saveLocalEdit(TodoItem(key: key, title: "first"), at: 1)
            let sent = try await store.pendingChanges()[0]
            // While it is in flight the entry is dropped and the record queued anew: same key, same revision, new entry.
            try await store.discardPendingChange(key)
            try await store.saveLocalEdit(TodoItem(key: key, title: "second"), at: 2)
            let queued = try await store.pendingChanges()[0]
            #expect(queued.revision == sent.revision && queued.sequence != sent.sequence)
            try await store.confirm([SentChange(sent, result: .saved(serverRecord("again", title: "first", tag: "s1")))])
            let pending = try await store.pendingChanges()
            #expect(pending.count == 1)
            guard case .save(let next) = pending.first?.action else { Issue.record("expected a save"); return }
            #expect(next.title == "second" && next.system.changeTag == "s1")
        }
    }

    /// A batch of confirmations as the engine makes them (each with its queue position), with every kind of
    /// change made while the batch was in flight: answers the confirmations.
    private func batchInFlight(_ store: TodoStore) async throws -> [SentChange] {
        // Uploaded before: "deleted" and "recreated" (their deletes are sent).
        try await store.applyZoneChanges(
            .privateTodos, records: [serverRecord("deleted", title: "D", tag: "t1"), serverRecord("recreated", title: "R", tag: "t1")],
            token: nil, moreComing: false)
        try await store.deleteLocally(.privateTodo("deleted"), at: 1)
        try await store.deleteLocally(.privateTodo("recreated"), at: 1)
        for name in ["clean", "quote\"é\\name", "edited", "gone", "requeued"] {
            try await store.saveLocalEdit(TodoItem(key: .privateTodo(name), title: "sent \(name)", priority: 1), at: 2)
        }
        let sent = try await store.pendingChanges()
        #expect(sent.count == 7 && sent.allSatisfy { $0.sequence > 0 })
        // While the batch is in flight:
        var edited = try #require(try await store.todo(.privateTodo("edited")))
        edited.title = "edited meanwhile"
        try await store.saveLocalEdit(edited, at: 3)
        try await store.deleteLocally(.privateTodo("gone"), at: 3)
        try await store.discardPendingChange(.privateTodo("requeued"))
        try await store.saveLocalEdit(TodoItem(key: .privateTodo("requeued"), title: "queued anew"), at: 3)
        try await store.saveLocalEdit(TodoItem(key: .privateTodo("recreated"), title: "created again"), at: 3)
        return sent.map { change in
            if change.isDelete { return SentChange(change, result: .deleted) }
            var answer = serverRecord(change.key.recordName, title: "", tag: "s-\(change.key.recordName)", modifiedAt: 5_000)
            answer.fields = [:]
            if change.key.recordName == "clean" { answer.created?.deviceID = nil }
            return SentChange(change, result: .saved(answer))
        }
    }

    @Test func aBatchOfAcknowledgementsKeepsEveryEditMadeWhileItWasInFlight() async throws {
        try await withTemporaryStore { store, _ in
            let confirmations = try await batchInFlight(store)
            try await store.confirm(confirmations)
            let pending = Dictionary(uniqueKeysWithValues: try await store.pendingChanges().map { ($0.key.recordName, $0) })
            #expect(Set(pending.keys) == ["edited", "gone", "requeued", "recreated"])
            // Sent unchanged: cleared, the cloud's system fields adopted, the fields sent kept.
            for name in ["clean", "quote\"é\\name"] {
                let item = try #require(try await store.todo(.privateTodo(name)))
                #expect(item.title == "sent \(name)" && item.priority == 1)
                #expect(item.system.changeTag == "s-\(name)" && item.system.modified?.timestamp == 5_000)
                #expect(item.localEditedAt == nil && !item.hasPendingChanges)
            }
            #expect(try await store.todo(.privateTodo("clean"))?.system.created == RecordStamp(timestamp: 500, userRecordName: "_u1"))
            // Edited meanwhile: the edit stays queued, with the new tag and what was sent as its merge base.
            guard case .save(let edited) = pending["edited"]?.action else { Issue.record("expected a save"); return }
            #expect(edited.title == "edited meanwhile" && edited.system.changeTag == "s-edited")
            #expect(pending["edited"]?.baseFields?["title"] == .string("sent edited"))
            // Deleted meanwhile: the cloud has it now, so the delete goes out with its tag.
            #expect(pending["gone"]?.action == .delete(recordType: TodoSchema.todoType, changeTag: "s-gone"))
            // Dropped and queued anew (same revision, another entry): the new entry stays.
            guard case .save(let requeued) = pending["requeued"]?.action else { Issue.record("expected a save"); return }
            #expect(requeued.title == "queued anew" && requeued.system.changeTag == "s-requeued")
            // A delete whose record was created again meanwhile: the save stays queued.
            guard case .save(let recreated) = pending["recreated"]?.action else { Issue.record("expected a save"); return }
            #expect(recreated.title == "created again")
            #expect(try await store.todo(.privateTodo("deleted")) == nil)
        }
    }

    @Test func conflictResolutionAdoptsServerTagAndKeepsMergedFields() async throws {
        try await withTemporaryStore { store, _ in
            let key = RecordKey.privateTodo("c")
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("c", title: "T", tag: "t1")], token: nil, moreComing: false)
            var item = try #require(try await store.todo(key))
            item.title = "Local title"
            try await store.saveLocalEdit(item, at: 10)
            let server = serverRecord("c", title: "T", tag: "t2", notes: "server notes")
            let remains = try await store.resolveConflict(key, serverRecord: server) { base, local, server in
                var merged = server.fields ?? [:]
                if local.fields["title"] != base?["title"] { merged["title"] = local.fields["title"] }
                return merged
            }
            #expect(remains)
            let merged = try #require(try await store.todo(key))
            #expect(merged.title == "Local title" && merged.notes == "server notes" && merged.system.changeTag == "t2")
            #expect(try await store.pendingChanges()[0].baseFields?["notes"] == .string("server notes"))
        }
    }

    @Test func expiredTokenRefetchReconcilesDeletionsButKeepsPendingEdits() async throws {
        try await withTemporaryStore { store, _ in
            let records = ["a", "b", "c"].map { serverRecord($0, title: $0) }
            try await store.applyZoneChanges(.privateTodos, records: records, token: ChangeToken(rawValue: "old"), moreComing: false)
            var c = try #require(try await store.todo(.privateTodo("c")))
            c.title = "edited c"
            try await store.saveLocalEdit(c, at: 3)
            try await store.restartZoneFetch(.privateTodos)
            #expect(try await store.zoneToken(.privateTodos) == nil)
            // The server no longer has b and c (tombstones compacted); a refetch in two pages brings only a.
            try await store.applyZoneChanges(.privateTodos, records: [], token: ChangeToken(rawValue: "n1"), moreComing: true)
            #expect(try await store.recordCount() == 3)  // nothing removed before the last page
            try await store.applyZoneChanges(.privateTodos, records: [records[0]], token: ChangeToken(rawValue: "n2"), moreComing: false)
            let names = try await store.todos().map(\.key.recordName)
            #expect(names == ["a", "c"])
            #expect(try await store.todo(.privateTodo("c"))?.system.changeTag == nil)  // re-created on send
        }
    }

    @Test func syncStateFlagsTokensAndWipe() async throws {
        try await withTemporaryStore { store, _ in
            try await store.setFlag(.createdCustomZone, true)
            try await store.setFlag(.subscribedToPrivateChanges, true)
            try await store.setDatabaseToken(ChangeToken(rawValue: "db1"), for: .private)
            try await store.setLastKnownUser("_alice")
            try await store.applyPublicRecords([serverRecord("p", title: "Board")], pollMark: 4_000)
            var state = try await store.syncState()
            #expect(state.createdCustomZone && state.subscribedToPrivateChanges && !state.subscribedToSharedChanges)
            #expect(state.databaseTokens[.private]?.rawValue == "db1")
            #expect(state.lastKnownUser == "_alice")
            #expect(state.lastPublicPoll == 4_000)
            #expect(try await store.todos(in: .public).count == 1)
            // What an engine shows before any pass, read alone.
            #expect(try await store.lastUserAndSync() == ("_alice", nil))
            try await store.setLastSyncAt(5_000)
            #expect(try await store.lastUserAndSync() == ("_alice", 5_000))
            try await store.wipe()
            #expect(try await store.lastUserAndSync() == (nil, nil))
            state = try await store.syncState()
            #expect(state == SyncState())
            #expect(try await store.recordCount() == 0)
        }
    }

    @Test func removedZoneTakesItsRecordsTokenAndOutbox() async throws {
        try await withTemporaryStore { store, _ in
            try await store.setFlag(.createdCustomZone, true)
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "A")], token: ChangeToken(rawValue: "z"), moreComing: false)
            try await store.saveLocalEdit(TodoItem(key: .privateTodo("b"), title: "B"), at: 1)
            try await store.removeZone(.privateTodos)
            #expect(try await store.recordCount() == 0)
            #expect(try await store.pendingCount() == 0)
            let state = try await store.syncState()
            #expect(state.zoneTokens.isEmpty && !state.createdCustomZone)
        }
    }

    @Test func reuploadQueuesEveryRecordAsNew() async throws {
        try await withTemporaryStore { store, _ in
            try await store.applyZoneChanges(.privateTodos, records: (0..<4).map { serverRecord("r\($0)", title: "T") }, token: ChangeToken(rawValue: "z"), moreComing: false)
            let queued = try await store.prepareReupload(of: .privateTodos, now: 9)
            #expect(queued == 4)
            let pending = try await store.pendingChanges()
            #expect(pending.allSatisfy { if case .save(let item) = $0.action { item.system.changeTag == nil } else { false } })
            #expect(try await store.zoneToken(.privateTodos) == nil)
        }
    }

    @Test func diskFullIsReportedAndNothingIsHalfWritten() async throws {
        try await withTemporaryStore { store, url in
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "A")], token: ChangeToken(rawValue: "t0"), moreComing: false)
            try await store.limitFileSizeForTesting(pages: 1)
            let big = (0..<400).map { serverRecord("big\($0)", title: String(repeating: "x", count: 2_000)) }
            await #expect(throws: StoreError.self) {
                try await store.applyZoneChanges(.privateTodos, records: big, token: ChangeToken(rawValue: "t1"), moreComing: false)
            }
            #expect(try await store.zoneToken(.privateTodos)?.rawValue == "t0")
            #expect(try await store.recordCount() == 1)
            _ = url
        }
    }

    @Test func tenThousandRecordsApplyFast() async throws {
        try await withTemporaryStore { store, _ in
            // How fast is for the benchmarks (release builds); here: all 10,000 land, page by page.
            for page in 0..<50 {
                let records = (0..<200).map { serverRecord("r\(page)-\($0)", title: "Todo \(page)-\($0)", tag: "t\($0)") }
                try await store.applyZoneChanges(.privateTodos, records: records, token: ChangeToken(rawValue: "p\(page)"), moreComing: page < 49)
            }
            #expect(try await store.recordCount() == 10_000)
        }
    }
}
