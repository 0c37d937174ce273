import CloudModel
import Foundation
import Testing

/// The fast write path (fields kept as canonical JSON, creates inserted before any lookup) answers as the
/// lookup-first path always did.
@Suite("records/modify fast paths")
struct WritePathTests {
    @Test func createsAnswerAsTheLookupPathDid() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let first = try #require(try await cloud.modify(alice, [RecordOperation(.create, todo("kept", "First"))]).first?.record)

            // Over a live record: EXISTS with the server's copy, even when the new record is also invalid.
            var typeless = todo("kept", "Second")
            typeless.recordType = nil
            for record in [todo("kept", "Second"), typeless, todo("kept", "Third", extra: ["bad name": .int64(1)])] {
                let error = try #require(try await cloud.modify(alice, [RecordOperation(.create, record)], atomic: false).first?.error)
                #expect(error.serverErrorCode == .exists)
                #expect(error.serverRecord?["title"] == .string("First"))
                #expect(error.serverRecord?.recordChangeTag == first.recordChangeTag)
            }

            // A new record that is invalid: the same errors as before.
            var missingType = todo("new", "x")
            missingType.recordType = nil
            let noType = try #require(try await cloud.modify(alice, [RecordOperation(.create, missingType)], atomic: false).first?.error)
            #expect(noType.serverErrorCode == .badRequest)
            #expect(noType.reason.contains("recordType"))
            let badField = try #require(
                try await cloud.modify(alice, [RecordOperation(.create, todo("new", "x", extra: ["9lives": .int64(1)]))], atomic: false).first?.error)
            #expect(badField.serverErrorCode == .badRequest)
            #expect(badField.reason.contains("invalid field name"))

            // The same name twice in one batch: the second finds the first.
            let twice = try await cloud.modify(
                alice, [RecordOperation(.create, todo("twice", "One")), RecordOperation(.create, todo("twice", "Two"))], atomic: false)
            #expect(twice[0].record?["title"] == .string("One"))
            #expect(twice[1].error?.serverErrorCode == .exists)
            #expect(twice[1].error?.serverRecord?["title"] == .string("One"))

            // Over a tombstone: the create succeeds, as a new record, and the change feed shows it live.
            let before: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: alice.token)
            let token = try #require(before.zones.first?.syncToken)
            let deleted = try await cloud.modify(alice, [RecordOperation(.delete, Record(recordName: "kept", recordChangeTag: first.recordChangeTag))])
            #expect(deleted.first?.record?.isDeleted == true)
            let again = try #require(try await cloud.modify(alice, [RecordOperation(.create, todo("kept", "Reborn"))]).first?.record)
            #expect(again["title"] == .string("Reborn"))
            #expect(again.recordChangeTag != first.recordChangeTag)
            let after: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token)]), token: alice.token)
            let kept = try #require(after.zones.first?.records.first { $0.recordName == "kept" })
            #expect(kept.isDeleted == false)
            #expect(kept["title"] == .string("Reborn"))

            // An atomic batch with a duplicate still writes nothing.
            let atomic = try await cloud.modify(alice, [RecordOperation(.create, todo("fresh", "F")), RecordOperation(.create, todo("twice", "T"))])
            #expect(atomic.map { $0.error?.serverErrorCode } == [.atomicError, .exists])
            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["fresh"], zoneID: todos), token: alice.token)
            #expect(lookup.records.first?.error?.serverErrorCode == .notFound)
        }
    }

    @Test func fieldsOfEveryKindComeBackAsSent() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let fields: [String: FieldValue] = [
                "title": .string("Milk \u{1B}[2J \"quoted\" / 牛奶 🥛"), "plain": .string("plain"), "empty": .string(""),
                "n": .int64(-9_223_372_036_854_775_808), "due": .timestamp(1_790_000_000_000), "d": .double(2.5),
                "tags": .list(.string, [.string("a"), .string("b")]), "blob": .bytes(Data([0, 1, 254, 255])),
                "list": .reference(Reference(recordName: "L", zoneID: todos, action: .deleteSelf)),
                "loc": .unknown(type: "LOCATION", value: .object(["latitude": .double(1.5), "longitude": .double(-3.25)])),
            ]
            let saved = try #require(
                try await cloud.modify(alice, [RecordOperation(.create, Record(recordName: "all", recordType: "Todo", fields: fields))]).first?.record)
            #expect(saved.fields == fields)
            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["all"], zoneID: todos), token: alice.token)
            #expect(lookup.records.first?.record?.fields == fields)

            // An update merges into the stored fields and a null value removes one.
            var change = Record(recordName: "all", recordType: "Todo", recordChangeTag: saved.recordChangeTag, fields: ["plain": .string("changed")])
            change["empty"] = .unknown(type: "STRING", value: .null)
            let updated = try #require(try await cloud.modify(alice, [RecordOperation(.update, change)]).first?.record)
            var expected = fields
            expected["plain"] = .string("changed")
            expected["empty"] = nil
            #expect(updated.fields == expected)

            // Malformed field values are refused whole, with a clear error.
            let modify = cloud.address.databasePath(.private, "records/modify")
            for value in [#"{"type":"INT64","value":"x"}"#, #"{"type":"INT64","value":1.5}"#, #"{"type":"STRING","value":7}"#, #"{"type":"STRING"}"#] {
                let body = #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"bad","recordType":"Todo","fields":{"f":\#(value)}}}]}"#
                let answer = try await cloud.raw("POST", modify, body: Data(body.utf8), token: alice.token)
                #expect(answer.status == 400, "\(value)")
                let error = try JSONDecoder().decode(ServerError.self, from: answer.body)
                #expect(error.reason.contains("operations[0].record.fields.f"), "\(error.reason)")
            }
        }
    }

    @Test func desiredKeysLimitTheEchoedFieldsNotTheSystemFields() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let fields: [String: FieldValue] = ["title": .string("Milk"), "isCompleted": .int64(0), "priority": .int64(2)]

            // An empty list: the system fields (name, type, change tag, created, modified) and no field values.
            var request = ModifyRecordsRequest(
                operations: [
                    RecordOperation(.create, Record(recordName: "a", recordType: "Todo", fields: fields)),
                    RecordOperation(.create, Record(recordName: "b", recordType: "Todo", fields: fields), desiredKeys: ["priority"]),
                ], zoneID: todos, atomic: false)
            request.desiredKeys = []
            let (status, body) = try await cloud.raw(
                "POST", cloud.address.databasePath(.private, "records/modify"), body: try JSONEncoder().encode(request), token: alice.token)
            #expect(status == 200)
            #expect(!String(decoding: body, as: UTF8.self).contains("Milk"))
            let answer = try JSONDecoder().decode(RecordsResponse.self, from: body).records
            let a = try #require(answer.first?.record)
            #expect(a.recordName == "a" && a.recordType == "Todo" && a.recordChangeTag?.isEmpty == false)
            #expect(a.created?.userRecordName == alice.user && a.modified?.deviceID == alice.deviceID)
            #expect(a.fields == [:] && a.zoneID?.zoneName == "Todos")
            // An operation's own list wins over the request's.
            let b = try #require(answer.last?.record)
            #expect(b.fields == ["priority": .int64(2)] && b.recordChangeTag?.isEmpty == false)

            // What is stored is every field, whatever the answer carried.
            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["a"], zoneID: todos), token: alice.token)
            #expect(lookup.records.first?.record?.fields == fields)
            #expect(lookup.records.first?.record?.recordChangeTag == a.recordChangeTag)

            // The answer's change tag is the one to send next; a stale one conflicts, and the conflict carries the
            // server's whole record (a client merges against it), whatever the desired keys.
            var next = ModifyRecordsRequest(
                operations: [RecordOperation(.replace, Record(recordName: "a", recordType: "Todo", recordChangeTag: a.recordChangeTag, fields: ["title": .string("Oat milk")]))],
                zoneID: todos, atomic: false)
            next.desiredKeys = []
            let replaced: RecordsResponse = try await cloud.post(.private, "records/modify", next, token: alice.token)
            let newTag = try #require(replaced.records.first?.record?.recordChangeTag)
            #expect(newTag != a.recordChangeTag)
            let stale: RecordsResponse = try await cloud.post(.private, "records/modify", next, token: alice.token)
            let conflict = try #require(stale.records.first?.error)
            #expect(conflict.serverErrorCode == .conflict)
            #expect(conflict.serverRecord?.recordChangeTag == newTag)
            #expect(conflict.serverRecord?["title"] == .string("Oat milk"))

            // A list naming fields answers those that the record has; without a list, every field.
            var some = ModifyRecordsRequest(
                operations: [RecordOperation(.forceReplace, Record(recordName: "c", recordType: "Todo", fields: fields))], zoneID: todos)
            some.desiredKeys = ["title", "notes"]
            let named: RecordsResponse = try await cloud.post(.private, "records/modify", some, token: alice.token)
            #expect(named.records.first?.record?.fields == ["title": .string("Milk")])
            let all = try await cloud.modify(alice, [RecordOperation(.forceReplace, Record(recordName: "c", recordType: "Todo", fields: fields))])
            #expect(all.first?.record?.fields == fields)
        }
    }

    /// Batches of 32 operations or more from a signed-in caller are read ahead of their write: they must answer,
    /// store and fail exactly as the small ones do.
    @Test func largeBatchesReadAheadOfTheirWriteAnswerAsSmallOnes() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let setup = try await cloud.modify(alice, [RecordOperation(.create, todo("kept", "Kept")), RecordOperation(.create, todo("other", "Other"))])
            let kept = try #require(setup.first?.record)
            let other = try #require(setup.last?.record)

            var operations = (0..<100).map { RecordOperation(.create, todo("big-\($0)", "Big \($0)", extra: ["n": .int64(Int64($0))])) }
            operations.insert(RecordOperation(.create, todo("big-5", "Again")), at: 50)
            operations.append(RecordOperation(.replace, todo("kept", "Stale", tag: "not-the-tag")))
            operations.append(RecordOperation(.delete, Record(recordName: "other", recordChangeTag: other.recordChangeTag)))
            operations.append(RecordOperation(.forceReplace, todo("kept", "Forced")))
            let results = try await cloud.modify(alice, operations, atomic: false)
            #expect(results.count == operations.count)
            #expect(results[0].record?["n"] == .int64(0) && results[100].record?["title"] == .string("Big 99"))
            #expect(results[50].error?.serverErrorCode == .exists && results[50].error?.serverRecord?["title"] == .string("Big 5"))
            #expect(results[101].error?.serverErrorCode == .conflict)
            #expect(results[101].error?.serverRecord?.recordChangeTag == kept.recordChangeTag)
            #expect(results[102].record?.isDeleted == true)
            #expect(results[103].record?["title"] == .string("Forced"))
            let tags = results.compactMap { $0.record?.recordChangeTag }
            #expect(Set(tags).count == tags.count)

            // Atomic: one failure and nothing of the batch is written.
            var atomic = (0..<40).map { RecordOperation(.create, todo("atomic-\($0)", "A")) }
            atomic[33] = RecordOperation(.create, todo("big-7", "Exists"))
            let refused = try await cloud.modify(alice, atomic)
            #expect(refused[33].error?.serverErrorCode == .exists)
            #expect(refused.enumerated().allSatisfy { $0.offset == 33 || $0.element.error?.serverErrorCode == .atomicError })

            // A malformed operation deep in a large body: the error a whole reading gives, and nothing written.
            let path = cloud.address.databasePath(.private, "records/modify")
            var body = "{\n  \"operations\" : [\n"
            body += (0..<60).map { index -> String in
                let fields = index == 41 ? #"{"n":{"type":"INT64","value":"x"}}"# : #"{"t":{"value":"] } \" \\ [","type":"STRING"}}"#
                return #"    {"record":{"recordName":"bad-\#(index)","recordType":"Todo","fields":\#(fields)},"operationType":"create"}"#
            }.joined(separator: ",\n")
            body += "\n  ],\n  \"zoneID\" : {\"zoneName\":\"Todos\"}\n}"
            let answer = try await cloud.raw("POST", path, body: Data(body.utf8), token: alice.token)
            #expect(answer.status == 400)
            let error = try JSONDecoder().decode(ServerError.self, from: answer.body)
            #expect(error.reason.contains("operations[41].record.fields.n"), "\(error.reason)")
            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup", LookupRecordsRequest(recordNames: ["bad-0", "atomic-0"], zoneID: todos), token: alice.token)
            #expect(lookup.records.allSatisfy { $0.error?.serverErrorCode == .notFound })

            // The same body, well-formed, pretty-printed with the zone after the operations: written whole.
            let good = body.replacingOccurrences(of: #"{"n":{"type":"INT64","value":"x"}}"#, with: #"{"n":{"type":"INT64","value":41}}"#)
            let written = try await cloud.raw("POST", path, body: Data(good.utf8), token: alice.token)
            #expect(written.status == 200)
            let saved = try JSONDecoder().decode(RecordsResponse.self, from: written.body).records
            #expect(saved.count == 60 && saved.allSatisfy { $0.record != nil })
            #expect(saved[0].record?["t"] == .string("] } \" \\ [") && saved[41].record?["n"] == .int64(41))
        }
    }
}
