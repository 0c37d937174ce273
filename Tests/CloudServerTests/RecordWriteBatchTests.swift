import CloudModel
import Foundation
import Testing

/// records/modify groups private creates into one insert and reads the other operations' rows ahead
/// (`RecordWriteBatch`): every outcome must still be the one of applying the operations one by one, in order.
@Suite("records/modify in groups, answered as in order")
struct RecordWriteBatchTests {
    @Test func groupedCreatesAndReadAheadRowsAnswerAsOneByOne() async throws {
        try await withCloud { cloud in try await Self.groupedCreatesAndReadAheadRows(cloud) }
    }

    private static func groupedCreatesAndReadAheadRows(_ cloud: TestCloud) async throws {
        do {
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            // Before: "x" is live, "t" a tombstone.
            let before = try await cloud.modify(alice, [RecordOperation(.create, todo("x", "x")), RecordOperation(.create, todo("t", "t"))])
            let tombstoneTag = try #require(before[1].record?.recordChangeTag)
            let deleted: [RecordResult] = try await cloud.modify(alice, [RecordOperation(.delete, todo("t", "t", tag: tombstoneTag))])
            #expect(deleted.first?.error == nil)

            var badField = todo("d", "d")
            badField.fields?["9bad"] = .string("no")
            let operations = [
                RecordOperation(.create, todo("a", "first a")),  // 0 grouped
                RecordOperation(.create, todo("b", "b")),  // 1 grouped
                RecordOperation(.create, todo("a", "second a")),  // 2 names a grouped create: EXISTS
                RecordOperation(.forceUpdate, todo("b", "b updated")),  // 3 sees b created above
                RecordOperation(.delete, todo("c", "c", tag: "1")),  // 4 c has no row yet: NOT_FOUND
                RecordOperation(.create, todo("c", "c")),  // 5
                RecordOperation(.create, todo("x", "x again")),  // 6 live row: EXISTS
                RecordOperation(.create, todo("t", "t again")),  // 7 a create over a tombstone
                RecordOperation(.create, badField),  // 8 BAD_REQUEST
                RecordOperation(.forceUpdate, todo("c", "c updated")),  // 9
                RecordOperation(.forceUpdate, todo("b", "b again")),  // 10 reads e's row (none) ahead
                RecordOperation(.create, todo("e", "e")),  // 11 grouped: the row read ahead is stale now
                RecordOperation(.forceUpdate, todo("e", "e updated")),  // 12 must see e
            ]
            let results = try await cloud.modify(alice, operations, atomic: false)
            try #require(results.count == operations.count)
            #expect(results[0].record?.fields?["title"] == .string("first a"))
            #expect(results[1].record != nil)
            #expect(results[2].error?.serverErrorCode == .exists)
            #expect(results[2].error?.serverRecord?.fields?["title"] == .string("first a"))
            #expect(results[3].record?.fields?["title"] == .string("b updated"))
            #expect(results[4].error?.serverErrorCode == .notFound)
            #expect(results[5].record != nil)
            #expect(results[6].error?.serverErrorCode == .exists)
            #expect(results[7].record?.fields?["title"] == .string("t again"))
            #expect(results[8].error?.serverErrorCode == .badRequest)
            #expect(results[9].record?.fields?["title"] == .string("c updated"))
            #expect(results[10].record?.fields?["title"] == .string("b again"))
            #expect(results[12].record?.fields?["title"] == .string("e updated"))
            let failedNames: [String?] = results.map { $0.error?.recordName }
            #expect(failedNames == [nil, nil, "a", nil, "c", nil, "x", nil, "d", nil, nil, nil, nil])

            // What is stored is what was answered, and the feed has each record once, at its last change.
            let page: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: alice.token)
            let zonePage = try #require(page.zones.first)
            var stored: [String: Record] = [:]
            for record in zonePage.records { stored[record.recordName] = record }
            #expect(Set(stored.keys) == ["a", "b", "c", "e", "t", "x"])
            #expect(stored["e"]?.fields?["title"] == .string("e updated"))
            #expect(stored["a"]?.fields?["title"] == .string("first a"))
            #expect(stored["b"]?.fields?["title"] == .string("b again"))
            #expect(stored["c"]?.fields?["title"] == .string("c updated"))
            #expect(stored["t"]?.fields?["title"] == .string("t again"))
            #expect(stored["x"]?.fields?["title"] == .string("x"))
            for (index, result) in results.enumerated() {
                if let record = result.record { #expect(stored[record.recordName]?.recordChangeTag != nil, "operation \(index)") }
            }
            #expect(stored["b"]?.recordChangeTag == results[10].record?.recordChangeTag)

            // An atomic batch with one failure writes none of its grouped creates.
            let atomic = try await cloud.modify(
                alice, [RecordOperation(.create, todo("n1", "n1")), RecordOperation(.create, todo("x", "x")), RecordOperation(.create, todo("n2", "n2"))],
                atomic: true)
            let atomicCodes: [ServerErrorCode?] = atomic.map { $0.error?.serverErrorCode }
            #expect(atomicCodes == [.atomicError, .exists, .atomicError])
            let lookup: RecordsResponse = try await cloud.post(
                .private, "records/lookup",
                LookupRecordsRequest(recordNames: ["n1", "n2", "a"], zoneID: todos),
                token: alice.token)
            let lookupCodes: [ServerErrorCode?] = lookup.records.map { $0.error?.serverErrorCode }
            #expect(lookupCodes == [.notFound, .notFound, nil])
        }
    }
}
