import CloudModel
import CloudServer
import Foundation
import PostgresTestSupport
import Testing

/// The schema as CloudKit has it: just in time in development, fixed in production, typing untyped values,
/// deciding what queries may filter and sort on.
@Suite("Schema per container environment")
struct SchemaTests {
    private static let production = ContainerAddress(container: ContainerAddress.default.container, environment: "production")

    private func modify(_ cloud: TestCloud, _ device: Device, _ address: ContainerAddress = .default, _ operations: String) async throws -> [[String: Any]] {
        let body = #"{"zoneID":{"zoneName":"Todos"},"atomic":false,"operations":[\#(operations)]}"#
        let (status, data) = try await cloud.raw("POST", address.databasePath(.private, "records/modify"), body: Data(body.utf8), token: device.token)
        #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
        return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["records"] as? [[String: Any]])
    }

    private func field(_ record: [String: Any], _ name: String) -> [String: Any]? {
        (record["fields"] as? [String: Any])?[name] as? [String: Any]
    }

    private func create(_ name: String, _ fields: String) -> String {
        #"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Todo","fields":{\#(fields)}}}"#
    }

    @Test func developmentLearnsTypesAndUntypedValuesTakeThem() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let first = try await modify(
                cloud, alice, .default,
                create("a", #""title":{"value":"A","type":"STRING"},"dueDate":{"value":1790000000000,"type":"TIMESTAMP"},"blob":{"value":"aGVsbG8=","type":"BYTES"},"ratio":{"value":0.5,"type":"DOUBLE"}"#))
            #expect(first[0]["serverErrorCode"] == nil)

            // A later client leaves the types out: the schema's types apply.
            let later = try await modify(
                cloud, alice, .default,
                [
                    create("b", #""title":"B","dueDate":{"value":1790000001000},"blob":{"value":"d29ybGQ="},"ratio":{"value":2}"#),
                    create("c", #""dueDate":{"value":"tomorrow"}"#),
                    create("d", #""blob":{"value":"not base64!"}"#),
                    create("e", #""dueDate":{"value":1790000002000,"type":"INT64"}"#),
                    create("f", #""title":{"value":"F"},"newField":{"value":[1,2]}"#),
                ].joined(separator: ","))
            #expect(field(later[0], "dueDate")?["type"] as? String == "TIMESTAMP")
            #expect(field(later[0], "blob")?["type"] as? String == "BYTES")
            #expect(field(later[0], "ratio")?["type"] as? String == "DOUBLE")
            #expect(field(later[0], "title")?["type"] as? String == "STRING")
            for refused in later[1...3] {
                #expect(refused["serverErrorCode"] as? String == "BAD_REQUEST", "\(refused)")
                #expect((refused["reason"] as? String)?.contains("in the schema") == true)
            }
            // A new field is learnt with its type.
            #expect(later[4]["serverErrorCode"] == nil)
            let (status, lookup) = try await cloud.raw(
                "POST", cloud.address.databasePath(.private, "records/lookup"),
                body: Data(#"{"zoneID":{"zoneName":"Todos"},"records":[{"recordName":"b"}]}"#.utf8), token: alice.token)
            #expect(status == 200)
            let stored = try #require(((try JSONSerialization.jsonObject(with: lookup) as? [String: Any])?["records"] as? [[String: Any]])?.first)
            #expect(field(stored, "dueDate")?["type"] as? String == "TIMESTAMP")
            #expect(field(stored, "blob")?["type"] as? String == "BYTES")

            let schema = try await SchemaAdministration.show(
                dataDirectory: cloud.directory, storage: cloud.storage, container: cloud.address.container, environment: "development")
            #expect(schema["Todo"]?["dueDate"]?.type == "TIMESTAMP")
            #expect(schema["Todo"]?["newField"]?.type == "INT64_LIST")
            #expect(SchemaAdministration.describe(schema).contains("dueDate"))
        }
    }

    @Test func everySaveOfABatchIsCheckedHoweverAlikeTheOnesBefore() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let alike = #""priority":{"value":1,"type":"INT64"},"title":{"value":"T","type":"STRING"}"#
            var operations = (0..<40).map { create("r\($0)", alike) }
            // Among saves the schema took as sent, each one unlike them is still checked on its own.
            operations[20] = create("r20", #""priority":{"value":"high","type":"STRING"},"title":{"value":"T","type":"STRING"}"#)
            operations[21] = create("r21", #""priority":{"value":"3"},"title":{"value":"T","type":"STRING"}"#)
            operations[22] = create("r22", #""priority":{"value":2},"title":"untyped""#)
            operations[23] = create("r23", #""title":{"value":"T","type":"STRING"},"priority":{"value":1,"type":"INT64"}"#)
            operations[24] = create("r24", alike + #","learnt":{"value":5,"type":"INT64"}"#)
            operations[25] = create("r25", #""priority":{"value":1,"type":"INT64"},"title":{"value":9,"type":"INT64"}"#)
            // Fields left out before one sent: the one sent is still its own field, checked against its own type.
            operations[26] = create("r26", #""title":{"value":9,"type":"INT64"}"#)
            operations[27] = create("r27", #""learnt":{"value":6,"type":"INT64"}"#)
            operations[28] = create("r28", #""learnt":{"value":"6","type":"STRING"},"title":{"value":"T","type":"STRING"}"#)
            let saved = try await modify(cloud, alice, .default, operations.joined(separator: ","))
            #expect(saved.count == 40)
            for (index, record) in saved.enumerated() {
                let refused = [20, 21, 25, 26, 28].contains(index)
                #expect((record["serverErrorCode"] as? String == "BAD_REQUEST") == refused, "r\(index): \(record)")
            }
            #expect((saved[20]["reason"] as? String)?.contains("in the schema") == true)
            // A field learnt in that batch as INT64, sent as a STRING by a later request.
            let again = try await modify(cloud, alice, .default, create("r40", #""priority":{"value":1,"type":"INT64"},"learnt":{"value":"x","type":"STRING"}"#))
            #expect(again[0]["serverErrorCode"] as? String == "BAD_REQUEST")
        }
    }

    @Test func productionIsFixedUntilDeployed() async throws {
        try await productionIsFixedUntilDeployed(on: .sqlite)
    }

    @Test func productionIsFixedUntilDeployedOnPostgreSQL() async throws {
        try await PostgresTestDatabase.with { database in try await productionIsFixedUntilDeployed(on: .postgres(database.url)) }
    }

    private func productionIsFixedUntilDeployed(on storage: CloudStorage) async throws {
        try await withCloud(storage: storage) { cloud in
            let alice = try await cloud.signIn("alice")
            // The zone of the production environment.
            let (zoneStatus, _) = try await cloud.raw(
                "POST", Self.production.databasePath(.private, "zones/modify"),
                body: Data(#"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Todos"}}}]}"#.utf8), token: alice.token)
            #expect(zoneStatus == 200)
            let before = try await modify(cloud, alice, Self.production, create("p1", #""title":{"value":"P","type":"STRING"}"#))
            #expect(before[0]["serverErrorCode"] as? String == "BAD_REQUEST")
            #expect((before[0]["reason"] as? String)?.contains("production schema") == true)

            // Development learns the type; deploying copies it.
            try await cloud.createTodosZone(alice)
            _ = try await modify(cloud, alice, .default, create("d1", #""title":{"value":"D","type":"STRING"},"dueDate":{"value":1,"type":"TIMESTAMP"}"#))
            try await cloud.index("Todo", ["title"])
            let deployed = try await SchemaAdministration.deploy(dataDirectory: cloud.directory, storage: cloud.storage, container: cloud.address.container)
            #expect(deployed["Todo"]?["title"] == SchemaField(type: "STRING", queryable: true, sortable: true))

            let after = try await modify(
                cloud, alice, Self.production,
                [
                    create("p1", #""title":{"value":"P","type":"STRING"},"dueDate":{"value":5}"#),
                    create("p2", #""title":{"value":"P"},"unknown":{"value":"x","type":"STRING"}"#),
                    create("p3", #""dueDate":{"value":"x","type":"STRING"}"#),
                ].joined(separator: ","))
            #expect(after[0]["serverErrorCode"] == nil)
            #expect(field(after[0], "dueDate")?["type"] as? String == "TIMESTAMP")
            #expect(after[1]["serverErrorCode"] as? String == "BAD_REQUEST")
            #expect((after[1]["reason"] as? String)?.contains("not in the production schema") == true)
            #expect(after[2]["serverErrorCode"] as? String == "BAD_REQUEST")

            // Deploying again adds what development learnt since, and keeps what production has.
            _ = try await modify(cloud, alice, .default, create("d2", #""other":{"value":"x","type":"STRING"}"#))
            let afterAgain = try await SchemaAdministration.deploy(dataDirectory: cloud.directory, storage: cloud.storage, container: cloud.address.container)
            #expect(afterAgain["Todo"]?["other"]?.type == "STRING")
            #expect(afterAgain["Todo"]?["title"]?.queryable == true)
            let now = try await modify(cloud, alice, Self.production, create("p4", #""other":{"value":"y"}"#))
            #expect(now[0]["serverErrorCode"] == nil)
        }
    }

    @Test func queriesNeedQueryableAndSortableFields() async throws {
        try await queriesNeedQueryableAndSortableFields(on: .sqlite)
    }

    @Test func queriesNeedQueryableAndSortableFieldsOnPostgreSQL() async throws {
        try await PostgresTestDatabase.with { database in try await queriesNeedQueryableAndSortableFields(on: .postgres(database.url)) }
    }

    private func queriesNeedQueryableAndSortableFields(on storage: CloudStorage) async throws {
        try await withCloud(storage: storage) { cloud in
            let alice = try await cloud.signIn("alice")
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("q1", "Buy milk", extra: ["priority": .int64(2)]))], scope: .public)
            let byPriority = Query(recordType: "Todo", filterBy: [QueryFilter(.equals, fieldName: "priority", .int64(2))])
            let sorted = Query(recordType: "Todo", sortBy: [QuerySort(fieldName: "priority")])
            for query in [byPriority, sorted] {
                let (status, error) = try await cloud.failure(.public, "records/query", QueryRequest(query: query), token: nil)
                #expect(status == 400)
                #expect(error.reason.contains("not marked"))
            }
            // System fields need no marks (the seed indexes recordName and modifiedTimestamp).
            let system = Query(
                recordType: "Todo", filterBy: [QueryFilter(.greaterThan, systemFieldName: "modifiedTimestamp", .timestamp(0))],
                sortBy: [QuerySort(systemFieldName: "recordName")])
            let answer: QueryResponse = try await cloud.post(.public, "records/query", QueryRequest(query: system), token: nil)
            #expect(answer.records.count == 1)

            try await SchemaAdministration.index(
                dataDirectory: cloud.directory, storage: cloud.storage, container: cloud.address.container, environment: "development",
                recordType: "Todo",
                field: "priority", queryable: true, sortable: nil)
            let filtered: QueryResponse = try await cloud.post(.public, "records/query", QueryRequest(query: byPriority), token: nil)
            #expect(filtered.records.map(\.recordName) == ["q1"])
            let (stillRefused, _) = try await cloud.failure(.public, "records/query", QueryRequest(query: sorted), token: nil)
            #expect(stillRefused == 400)
            await #expect(throws: SchemaAdministration.Failure.self) {
                try await SchemaAdministration.index(
                    dataDirectory: cloud.directory, storage: cloud.storage, container: cloud.address.container, environment: "development",
                recordType: "Todo",
                    field: "nope", queryable: true, sortable: true)
            }
        }
    }
}
