import CloudModel
import Foundation
import Testing

/// Request shapes of the CloudKit Web Services reference, sent as raw JSON, and answers bounded in size.
@Suite("Request shapes and bounded answers")
struct RequestShapeTests {
    private func post(_ cloud: TestCloud, _ device: Device?, _ scope: DatabaseScope, _ endpoint: String, _ json: String) async throws
        -> (status: Int, body: [String: Any])
    {
        let (status, data) = try await cloud.raw(
            "POST", cloud.address.databasePath(scope, endpoint), body: Data(json.utf8), token: device?.token)
        return (status, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
    }

    @Test func zonesLookupTakesBareAndWrappedZoneIDs() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            for json in [#"{"zones":[{"zoneName":"Todos"},{"zoneName":"Nope"}]}"#, #"{"zones":[{"zoneID":{"zoneName":"Todos"}},{"zoneID":{"zoneName":"Nope"}}]}"#] {
                let (status, body) = try await post(cloud, alice, .private, "zones/lookup", json)
                #expect(status == 200)
                let zones = try #require(body["zones"] as? [[String: Any]])
                #expect((zones[0]["zoneID"] as? [String: Any])?["zoneName"] as? String == "Todos")
                #expect(zones[0]["syncToken"] is String)
                #expect(zones[1]["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
            }
        }
    }

    @Test func createWithoutNameGetsOneFromTheServer() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let (status, body) = try await post(
                cloud, alice, .private, "records/modify",
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordType":"Todo","fields":{"title":{"value":"named by the cloud"}}}},{"operationType":"create","record":{"recordType":"Todo"}}]}"#)
            #expect(status == 200)
            let records = try #require(body["records"] as? [[String: Any]])
            let names = records.compactMap { $0["recordName"] as? String }
            #expect(names.count == 2)
            #expect(names.allSatisfy { UUID(uuidString: $0) != nil })
            #expect(Set(names).count == 2)
            let (_, lookup) = try await post(
                cloud, alice, .private, "records/lookup", #"{"zoneID":{"zoneName":"Todos"},"records":[{"recordName":"\#(names[0])"}]}"#)
            let found = try #require((lookup["records"] as? [[String: Any]])?.first)
            #expect(((found["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String == "named by the cloud")

            // Only a create may leave the name out.
            let (refused, error) = try await post(
                cloud, alice, .private, "records/modify",
                #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"forceUpdate","record":{"recordType":"Todo"}}]}"#)
            #expect(refused == 400)
            #expect(error["serverErrorCode"] as? String == "BAD_REQUEST")
        }
    }

    @Test func lookupHonoursEachRecordsDesiredKeys() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("a", "A")), RecordOperation(.create, todo("b", "B"))])
            let (status, body) = try await post(
                cloud, alice, .private, "records/lookup",
                #"{"zoneID":{"zoneName":"Todos"},"desiredKeys":["priority"],"records":[{"recordName":"a","desiredKeys":["title"]},{"recordName":"b"}]}"#)
            #expect(status == 200)
            let records = try #require(body["records"] as? [[String: Any]])
            #expect((records[0]["fields"] as? [String: Any]).map { Set($0.keys) } == ["title"])
            #expect((records[1]["fields"] as? [String: Any]).map { Set($0.keys) } == ["priority"])
        }
    }

    @Test func zoneChangesMergesDuplicatesAndBoundsBytes() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let second = ZoneID(zoneName: "Second")
            let _: ZonesResponse = try await cloud.post(
                .private, "zones/modify", ModifyZonesRequest(operations: [.init(.create, second)]), token: alice.token)
            // 90 records of 256 KB in each zone: 45 MB in all, three answers' worth at least.
            let notes = String(repeating: "n", count: 256 * 1024)
            for zone in [todos, second] {
                for batch in 0..<3 {
                    let operations = (0..<30).map { RecordOperation(.create, todo("\(zone.zoneName)-\(batch)-\($0)", "T", extra: ["notes": .string(notes)])) }
                    #expect(try await cloud.modify(alice, operations, zone: zone).allSatisfy { $0.record != nil })
                }
            }
            let (_, duplicated) = try await post(
                cloud, alice, .private, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Todos"},"resultsLimit":1},{"zoneID":{"zoneName":"Todos"}}]}"#)
            #expect((duplicated["zones"] as? [Any])?.count == 1)

            var tokens: [ZoneID: ChangeToken?] = [todos: nil, second: nil]
            var seen: [ZoneID: [String]] = [todos: [], second: []]
            var answers = 0
            while !tokens.isEmpty, answers < 20 {
                let queries = [todos, second].filter { tokens[$0] != nil }.map { ZoneChangesQuery(zoneID: $0, syncToken: tokens[$0]!) }
                let body = try JSONEncoder().encode(ZoneChangesRequest(zones: queries))
                let (status, data) = try await cloud.raw("POST", cloud.address.databasePath(.private, "changes/zone"), body: body, token: alice.token)
                #expect(status == 200)
                #expect(data.count <= CloudLimits.maxResponseBytes + CloudLimits.maxRecordBytes + 4096, "answer of \(data.count) bytes")
                answers += 1
                for zone in try JSONDecoder().decode(ZoneChangesResponse.self, from: data).zones {
                    #expect(zone.serverErrorCode == nil)
                    seen[zone.zoneID, default: []] += zone.records.map(\.recordName)
                    if zone.moreComing { tokens[zone.zoneID] = .some(zone.syncToken) } else { tokens[zone.zoneID] = nil }
                }
            }
            #expect(answers >= 3)
            for zone in [todos, second] {
                #expect(seen[zone]?.count == 90, "\(zone.zoneName)")
                #expect(Set(seen[zone] ?? []).count == 90, "\(zone.zoneName): no record twice")
            }
        }
    }
}
