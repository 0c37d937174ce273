@testable import CloudServer
import CloudModel
import Foundation
import Testing

/// `records/query` evaluated in SQL with keyset continuation markers.
@Suite("Queries in SQL, keyset paging")
struct QueryTests {
    /// Every page of a query; the names in order.
    private func pages(_ cloud: TestCloud, _ device: Device?, _ query: Query, limit: Int, between: () async throws -> Void = {}) async throws -> [String] {
        var marker: String?
        var names: [String] = []
        var count = 0
        repeat {
            let answer: QueryResponse = try await cloud.post(
                .public, "records/query", QueryRequest(query: query, resultsLimit: limit, continuationMarker: marker), token: device?.token)
            names += answer.records.map(\.recordName)
            marker = answer.continuationMarker
            count += 1
            try await between()
        } while marker != nil && count < 500
        return names
    }

    @Test(arguments: [nil, "modifiedTimestamp"])
    func keysetPagingUnderConcurrentInserts(sortedBy system: String?) async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            var originals: [String] = []
            for batch in 0..<3 {
                let operations = (0..<100).map { RecordOperation(.create, todo(String(format: "r%03d", batch * 100 + $0), "T")) }
                originals += try await cloud.modify(alice, operations, scope: .public).compactMap { $0.record?.recordName }
            }
            #expect(originals.count == 300)
            let query = Query(recordType: "Todo", sortBy: system.map { [QuerySort(systemFieldName: $0)] })
            // Bob keeps writing while Alice pages: names before, between and after hers.
            let writer = Task {
                for round in 0..<40 {
                    let names = ["a\(round)", String(format: "r%03d-x%d", round * 7 % 300, round), "z\(round)"]
                    _ = try await cloud.modify(bob, names.map { RecordOperation(.create, todo($0, "new")) }, scope: .public)
                }
            }
            var inserted = 0
            let names = try await pages(cloud, nil, query, limit: 23) {
                // And some inserts exactly between two pages.
                inserted += 1
                _ = try await cloud.modify(bob, [RecordOperation(.create, todo("between-\(inserted)", "new"))], scope: .public)
            }
            try await writer.value
            #expect(Set(names).count == names.count, "a record came twice")
            let seen = Set(names)
            #expect(originals.allSatisfy(seen.contains), "records there all along were skipped")
            if system == nil { #expect(names == names.sorted()) }
        }
    }

    /// The SQL of each comparator selects what the in-memory evaluator selects, in the same order.
    @Test func sqlMatchesTheEvaluator() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let titles = ["Buy milk", "buy bread", "Call mom", "写周报", "Zebra crossing", "milk and honey"]
            var operations: [RecordOperation] = []
            for index in 0..<60 {
                var extra: [String: FieldValue] = ["priority": .int64(Int64(index % 4)), "rank": .double(Double(index % 7) / 2)]
                if index % 5 != 0 { extra["notes"] = .string("note \(index % 3)") }
                if index % 3 == 0 { extra["tags"] = .list(.string, [.string("home"), .string("t\(index % 2)")]) }
                if index % 4 == 0 { extra["list"] = .reference(Reference(recordName: "L\(index % 8)")) }
                operations.append(RecordOperation(.create, todo(String(format: "q%02d", index), titles[index % titles.count], extra: extra)))
            }
            _ = try await cloud.modify(alice, operations, scope: .public)
            try await cloud.index("Todo", ["priority", "rank", "notes", "title", "tags", "list"])
            let filters: [[QueryFilter]] = [
                [QueryFilter(.equals, fieldName: "priority", .int64(2))],
                [QueryFilter(.notEquals, fieldName: "notes", .string("note 1"))],
                [QueryFilter(.lessThan, fieldName: "rank", .double(1.5)), QueryFilter(.greaterThanOrEquals, fieldName: "priority", .int64(1))],
                [QueryFilter(.beginsWith, fieldName: "title", .string("Buy"))],
                [QueryFilter(.notBeginsWith, fieldName: "title", .string("Buy"))],
                [QueryFilter(.in, fieldName: "priority", .list(.int64, [.int64(0), .int64(3)]))],
                [QueryFilter(.notIn, fieldName: "notes", .list(.string, [.string("note 0")]))],
                [QueryFilter(.listContains, fieldName: "tags", .string("t1"))],
                [QueryFilter(.equals, fieldName: "list", .reference(Reference(recordName: "L4")))],
                [QueryFilter(.containsAnyTokens, fieldName: "title", .string("milk mom"))],
                [QueryFilter(.greaterThan, systemFieldName: "recordName", .string("q41"))],
            ]
            let sorts: [[QuerySort]?] = [nil, [QuerySort(fieldName: "priority", ascending: false), QuerySort(fieldName: "title")]]
            for filter in filters {
                for sort in sorts {
                    let query = Query(recordType: "Todo", filterBy: filter, sortBy: sort)
                    let sql = try await pages(cloud, alice, query, limit: 7)
                    let stored = try await cloud.storedPublicRecords()
                    let expected = try QueryEvaluator(query).run(stored, zoneID: .default).map(\.recordName)
                    #expect(sql == expected, "\(filter.map(\.comparator.rawValue)) sorted \(sort != nil)")
                }
            }
        }
    }

    @Test func aRareFieldMatchIsReachedThroughBoundedPages() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            for batch in 0..<25 {
                let operations = (0..<200).map { index -> RecordOperation in
                    let number = batch * 200 + index
                    return RecordOperation(.create, todo(String(format: "h%05d", number), "hay", extra: ["priority": .int64(number == 4999 ? 9 : 1)]))
                }
                _ = try await cloud.modify(alice, operations, scope: .public)
            }
            try await cloud.index("Todo", ["priority"])
            let query = Query(recordType: "Todo", filterBy: [QueryFilter(.equals, fieldName: "priority", .int64(9))])
            // The first request looks at 4,096 rows at most: nothing yet, and a marker to go on from.
            let first: QueryResponse = try await cloud.post(.public, "records/query", QueryRequest(query: query, resultsLimit: 10), token: nil)
            #expect(first.records.isEmpty)
            let marker = try #require(first.continuationMarker)
            let second: QueryResponse = try await cloud.post(
                .public, "records/query", QueryRequest(query: query, resultsLimit: 10, continuationMarker: marker), token: nil)
            #expect(second.records.map(\.recordName) == ["h04999"])
            #expect(second.continuationMarker == nil)
        }
    }

    @Test func markersOfAnotherQueryOrForgedAreRefused() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            _ = try await cloud.modify(alice, (0..<5).map { RecordOperation(.create, todo("m\($0)", "T")) }, scope: .public)
            let first: QueryResponse = try await cloud.post(
                .public, "records/query", QueryRequest(query: Query(recordType: "Todo"), resultsLimit: 2), token: nil)
            let marker = try #require(first.continuationMarker)
            for forged in [marker + "x", "Q2", "K", String(marker.dropLast(3))] {
                let (status, error) = try await cloud.failure(
                    .public, "records/query", QueryRequest(query: Query(recordType: "Todo"), resultsLimit: 2, continuationMarker: forged), token: nil)
                #expect(status == 400 && error.serverErrorCode == .badRequest, "\(forged)")
            }
            let (status, _) = try await cloud.failure(
                .public, "records/query",
                QueryRequest(query: Query(recordType: "Todo", sortBy: [QuerySort(fieldName: "title")]), continuationMarker: marker), token: nil)
            #expect(status == 400)
            // An answer of at most 200, whatever was asked.
            let big: QueryResponse = try await cloud.post(
                .public, "records/query", QueryRequest(query: Query(recordType: "Todo"), resultsLimit: 100_000), token: nil)
            #expect(big.records.count == 5)
        }
    }
}

extension TestCloud {
    /// The public database's live records as stored, read from the server's own file.
    func storedPublicRecords() async throws -> [StoredRecord] {
        // Through the running cloud's own store, whichever it is.
        return try await server.store.read { tx -> [StoredRecord] in
            guard let zone = try await tx.zone(DatabaseKey(container: "\(address.container)/\(address.environment)", scope: .public, owner: DatabaseKey.publicOwner), name: ZoneID.defaultZoneName)
            else { return [] }
            return try await tx.liveRecords(zonePK: zone.pk, recordType: "Todo", modifiedAfter: nil)
        }
    }
}
