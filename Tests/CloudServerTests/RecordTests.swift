import CloudModel
import Foundation
import Testing

@Suite("records/modify, lookup, query")
struct RecordTests {
    @Test func createUpdateConflictDelete() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let created = try await cloud.modify(alice, [RecordOperation(.create, todo("t1", "Buy milk"))])
            let saved = try #require(created.first?.record)
            #expect(saved.recordChangeTag != nil)
            #expect(saved.created?.userRecordName == alice.user)
            #expect(saved.modified?.deviceID == alice.deviceID)

            // Creating it again answers EXISTS with the server's copy.
            let duplicate = try await cloud.modify(alice, [RecordOperation(.create, todo("t1", "Again"))])
            #expect(duplicate.first?.error?.serverErrorCode == .exists)

            // update with the right tag merges fields.
            var change = Record(recordName: "t1", recordType: "Todo", recordChangeTag: saved.recordChangeTag, fields: ["isCompleted": .int64(1)])
            let updated = try #require(try await cloud.modify(alice, [RecordOperation(.update, change)]).first?.record)
            #expect(updated["title"] == .string("Buy milk"))
            #expect(updated["isCompleted"] == .int64(1))
            #expect(updated.recordChangeTag != saved.recordChangeTag)

            // A stale tag conflicts and carries the current server record.
            change.fields = ["title": .string("Buy oat milk")]
            let conflict = try #require(try await cloud.modify(alice, [RecordOperation(.update, change)]).first?.error)
            #expect(conflict.serverErrorCode == .conflict)
            #expect(conflict.serverRecord?.recordChangeTag == updated.recordChangeTag)
            #expect(conflict.serverRecord?["isCompleted"] == .int64(1))

            // forceUpdate skips the check.
            let forced = try #require(try await cloud.modify(alice, [RecordOperation(.forceUpdate, change)]).first?.record)
            #expect(forced["title"] == .string("Buy oat milk"))

            // replace drops fields it does not name.
            let replaced = try #require(
                try await cloud.modify(
                    alice, [RecordOperation(.replace, Record(recordName: "t1", recordType: "Todo", recordChangeTag: forced.recordChangeTag, fields: ["title": .string("Only title")]))]
                ).first?.record)
            #expect(replaced.fields?.keys.sorted() == ["title"])

            // delete with a stale tag conflicts; with the right tag it deletes.
            let staleDelete = try await cloud.modify(alice, [RecordOperation(.delete, Record(recordName: "t1", recordChangeTag: forced.recordChangeTag))])
            #expect(staleDelete.first?.error?.serverErrorCode == .conflict)
            let deleted = try await cloud.modify(alice, [RecordOperation(.delete, Record(recordName: "t1", recordChangeTag: replaced.recordChangeTag))])
            #expect(deleted.first?.record?.isDeleted == true)
            let missing = try await cloud.modify(alice, [RecordOperation(.update, Record(recordName: "t1", recordType: "Todo", recordChangeTag: "x"))])
            #expect(missing.first?.error?.serverErrorCode == .notFound)
            let forceDeleted = try await cloud.modify(alice, [RecordOperation(.forceDelete, Record(recordName: "never"))])
            #expect(forceDeleted.first?.record?.isDeleted == true)

            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["t1", "nope"], zoneID: todos), token: alice.token)
            #expect(lookup.records.map { $0.error?.serverErrorCode } == [.notFound, .notFound])
        }
    }

    @Test func unknownFieldTypesAndTypelessValuesSurvive() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let body = """
                {
                  "zoneID" : { "zoneName" : "Todos" },
                  "operations" : [ { "operationType" : "create", "record" : {
                      "recordType" : "Todo", "recordName" : "typeless",
                      "fields" : {
                        "title" : { "value" : "plain" }, "priority" : { "value" : 3 }, "ratio" : { "value" : 0.5 },
                        "location" : { "value" : { "latitude" : 1.5, "longitude" : 2 }, "type" : "LOCATION" },
                        "tags" : { "value" : ["a", "b"], "type" : "STRING_LIST" },
                        "due" : { "value" : 1700000000000, "type" : "TIMESTAMP" },
                        "blob" : { "value" : "aGVsbG8=", "type" : "BYTES" },
                        "list" : { "value" : { "recordName" : "L1", "action" : "DELETE_SELF" }, "type" : "REFERENCE" }
                      } } } ]
                }
                """
            let answer = try await cloud.raw(
                "POST", cloud.address.databasePath(.private, "records/modify"), body: Data(body.utf8), token: alice.token,
                contentType: "text/plain")
            #expect(answer.status == 200)
            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["typeless"], zoneID: todos), token: alice.token)
            let record = try #require(lookup.records.first?.record)
            #expect(record["title"] == .string("plain"))
            #expect(record["priority"] == .int64(3))
            #expect(record["ratio"] == .double(0.5))
            #expect(record["location"] == .unknown(type: "LOCATION", value: .object(["latitude": .double(1.5), "longitude": .int(2)])))
            #expect(record["tags"] == .list(.string, [.string("a"), .string("b")]))
            #expect(record["due"] == .timestamp(1_700_000_000_000))
            #expect(record["blob"] == .bytes(Data("hello".utf8)))
            #expect(record["list"]?.referenceValue?.action == .deleteSelf)
        }
    }

    @Test func atomicBatchesAreAllOrNothing() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("exists", "x"))])
            let results = try await cloud.modify(
                alice,
                [RecordOperation(.create, todo("a", "A")), RecordOperation(.create, todo("exists", "dup")), RecordOperation(.create, todo("b", "B"))])
            #expect(results.map { $0.error?.serverErrorCode } == [.atomicError, .exists, .atomicError])
            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["a", "b"], zoneID: todos), token: alice.token)
            #expect(lookup.records.allSatisfy { $0.error?.serverErrorCode == .notFound })

            // Non-atomic: the good ones are written.
            let partial = try await cloud.modify(
                alice, [RecordOperation(.create, todo("a", "A")), RecordOperation(.create, todo("exists", "dup"))], atomic: false)
            #expect(partial[0].record != nil)
            #expect(partial[1].error?.serverErrorCode == .exists)
        }
    }

    @Test func limitsAreEnforcedWithClearErrors() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let many = (0..<201).map { RecordOperation(.create, todo("r\($0)", "x")) }
            let (status, error) = try await cloud.failure(.private, "records/modify", ModifyRecordsRequest(operations: many, zoneID: todos), token: alice.token)
            #expect(status == 400)
            #expect(error.serverErrorCode == .limitExceeded)
            #expect(error.reason.contains("200"))

            let huge = todo("big", String(repeating: "x", count: 1_100_000))
            let results = try await cloud.modify(alice, [RecordOperation(.create, huge)])
            #expect(results.first?.error?.serverErrorCode == .limitExceeded)
            #expect(results.first?.error?.reason.contains("1 MB") == true)

            let unknownZone = try await cloud.modify(alice, [RecordOperation(.create, todo("z", "x"))], zone: ZoneID(zoneName: "Nope"))
            #expect(unknownZone.first?.error?.serverErrorCode == .zoneNotFound)
        }
    }

    @Test func queryFiltersSortsAndPages() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let operations = (0..<30).map { i in
                RecordOperation(.create, todo("q\(i)", i % 2 == 0 ? "Buy \(i)" : "Call \(i)", extra: ["priority": .int64(Int64(i % 4))]))
            }
            _ = try await cloud.modify(alice, operations)
            try await cloud.index("Todo", ["title", "priority"])
            var query = Query(
                recordType: "Todo",
                filterBy: [QueryFilter(.beginsWith, fieldName: "title", .string("Buy")), QueryFilter(.in, fieldName: "priority", .list(.int64, [.int64(0), .int64(2)]))],
                sortBy: [QuerySort(fieldName: "priority", ascending: false), QuerySort(systemFieldName: "recordName")])
            var request = QueryRequest(query: query, zoneID: todos, resultsLimit: 4)
            var seen: [Record] = []
            while true {
                let page: QueryResponse = try await cloud.post(.private, "records/query", request, token: alice.token)
                seen += page.records
                guard let marker = page.continuationMarker else { break }
                request.continuationMarker = marker
            }
            #expect(seen.count == 15)
            #expect(seen.allSatisfy { $0["title"]?.stringValue?.hasPrefix("Buy") == true })
            #expect(seen.first?["priority"] == .int64(2))
            #expect(seen.last?["priority"] == .int64(0))

            query.filterBy = [QueryFilter(.greaterThan, systemFieldName: "modifiedTimestamp", .timestamp(Int64(Date().timeIntervalSince1970 * 1000) + 60_000))]
            let none: QueryResponse = try await cloud.post(.private, "records/query", QueryRequest(query: query, zoneID: todos), token: alice.token)
            #expect(none.records.isEmpty)
        }
    }
}
