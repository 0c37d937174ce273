import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// Queries and user discovery as web clients send them: list comparators, NEAR and `relativeLocation`, `zoneWide`,
/// `numbersAsStrings`, system fields needing marks, phone-number lookups and discover-all. Bodies as the CloudKit Web
/// Services Reference gives them.
@Suite("Web clients: queries and users")
struct WebQueryTests {
    private func save(_ cloud: TestCloud, _ device: Device, _ records: [String], zone: String? = nil) async throws {
        let operations = records.map { #"{"operationType":"create","record":\#($0)}"# }.joined(separator: ",")
        let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        let answer = try await cloud.web(
            cloud.address.databasePath(.private, "records/modify"), #"{\#(zoneID)"operations":[\#(operations)]}"#, token: device.token)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(!answer.text.contains("serverErrorCode"), "\(answer.text)")
    }

    private func query(_ cloud: TestCloud, _ device: Device, _ body: String) async throws -> WebAnswer {
        try await cloud.web(cloud.address.databasePath(.private, "records/query"), body, token: device.token)
    }

    private func names(_ answer: WebAnswer) -> [String] {
        (answer["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
    }

    @Test func listComparatorsNumbersAsStringsAndSystemFieldMarks() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await save(
                cloud, alice,
                [
                    #"{"recordName":"i1","recordType":"Item","fields":{"tags":{"value":["red","green"]},"n":{"value":9007199254740993}}}"#,
                    #"{"recordName":"i2","recordType":"Item","fields":{"tags":{"value":["blue"]},"n":{"value":2}}}"#,
                    #"{"recordName":"i3","recordType":"Item","fields":{"tags":{"value":["greenish","x"]},"n":{"value":3}}}"#,
                ])
            try await cloud.index("Item", ["tags", "n"])
            func filtered(_ comparator: String, _ value: String) async throws -> [String] {
                let answer = try await query(
                    cloud, alice, #"{"query":{"recordType":"Item","filterBy":[{"comparator":"\#(comparator)","fieldName":"tags","fieldValue":{"value":"\#(value)"}}]}}"#)
                #expect(answer.status == 200, "\(answer.text)")
                return names(answer).sorted()
            }
            #expect(try await filtered("LIST_CONTAINS", "green") == ["i1"])
            #expect(try await filtered("NOT_LIST_CONTAINS", "green") == ["i2", "i3"])
            #expect(try await filtered("LIST_MEMBER_BEGINS_WITH", "gre") == ["i1", "i3"])
            #expect(try await filtered("NOT_LIST_MEMBER_BEGINS_WITH", "gre") == ["i2"])

            let strings = try await query(cloud, alice, #"{"numbersAsStrings":true,"query":{"recordType":"Item","sortBy":[{"fieldName":"n"}]}}"#)
            #expect(strings["records", 2, "fields", "n", "value"] as? String == "9007199254740993", "\(strings.text)")
            #expect(strings["records", 0, "fields", "n", "type"] as? String == "INT64")

            // System fields no index covers must be marked, as custom fields.
            let created = try await query(
                cloud, alice, #"{"query":{"recordType":"Item","filterBy":[{"comparator":"GREATER_THAN","systemFieldName":"createdTimestamp","fieldValue":{"value":0,"type":"TIMESTAMP"}}]}}"#)
            #expect(created.status == 400)
            #expect((created["reason"] as? String)?.contains("'createdTimestamp' of 'Item' is not marked queryable") == true, "\(created.text)")
            let byCreator = try await query(cloud, alice, #"{"query":{"recordType":"Item","sortBy":[{"systemFieldName":"createdUserRecordName"}]}}"#)
            #expect((byCreator["reason"] as? String)?.contains("is not marked sortable") == true, "\(byCreator.text)")
            let modified = try await query(cloud, alice, #"{"query":{"recordType":"Item","sortBy":[{"systemFieldName":"modifiedTimestamp"}]}}"#)
            #expect(modified.status == 200)
            let container = "\(cloud.address.container)/\(cloud.address.environment)"
            try await cloud.server.store.write { tx in
                try await tx.defineSchemaField(container: container, recordType: "Item", name: "createdTimestamp", type: "TIMESTAMP")
                _ = try await tx.markSchemaField(container: container, recordType: "Item", name: "createdTimestamp", queryable: true, sortable: nil)
            }
            let marked = try await query(
                cloud, alice, #"{"query":{"recordType":"Item","filterBy":[{"comparator":"GREATER_THAN","systemFieldName":"createdTimestamp","fieldValue":{"value":0,"type":"TIMESTAMP"}}]}}"#)
            #expect(marked.status == 200, "\(marked.text)")
            #expect(names(marked).count == 3)
        }
    }

    @Test func nearWithDistanceAndSortingByRelativeLocation() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let places = [("paris", 48.8566, 2.3522), ("versailles", 48.8049, 2.1204), ("lyon", 45.764, 4.8357), ("london", 51.5074, -0.1278)]
            try await save(
                cloud, alice,
                places.map { #"{"recordName":"\#($0.0)","recordType":"Place","fields":{"loc":{"type":"LOCATION","value":{"latitude":\#($0.1),"longitude":\#($0.2)}}}}"# })
            try await cloud.index("Place", ["loc"])
            let near = try await query(
                cloud, alice,
                #"{"query":{"recordType":"Place","filterBy":[{"comparator":"NEAR","fieldName":"loc","fieldValue":{"value":{"latitude":48.8566,"longitude":2.3522},"type":"LOCATION"},"distance":20000}]}}"#)
            #expect(near.status == 200, "\(near.text)")
            #expect(names(near).sorted() == ["paris", "versailles"])
            let sorted = try await query(
                cloud, alice, #"{"query":{"recordType":"Place","sortBy":[{"fieldName":"loc","relativeLocation":{"latitude":48.86,"longitude":2.35},"ascending":true}]}}"#)
            #expect(sorted.status == 200, "\(sorted.text)")
            #expect(names(sorted) == ["paris", "versailles", "london", "lyon"])
            let missing = try await query(
                cloud, alice, #"{"query":{"recordType":"Place","filterBy":[{"comparator":"NEAR","fieldName":"loc","fieldValue":{"value":{"latitude":1,"longitude":2}}}]}}"#)
            #expect(missing.status == 400)
            #expect((missing["reason"] as? String)?.contains("distance") == true)
        }
    }

    @Test func zoneWideQueriesPageAcrossTheCallersZones() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.createTodosZone(alice)
            let work = try await cloud.web(
                cloud.address.databasePath(.private, "zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Work"}}}]}"#,
                token: alice.token)
            #expect(work.status == 200, "\(work.text)")
            try await save(cloud, alice, [#"{"recordName":"d1","recordType":"Note","fields":{"t":{"value":"a"}}}"#])
            try await save(cloud, alice, [#"{"recordName":"t1","recordType":"Note","fields":{"t":{"value":"b"}}}"#, #"{"recordName":"t2","recordType":"Note","fields":{"t":{"value":"c"}}}"#], zone: "Todos")
            try await save(cloud, alice, [#"{"recordName":"w1","recordType":"Note","fields":{"t":{"value":"d"}}}"#], zone: "Work")
            try await save(cloud, bob, [#"{"recordName":"b1","recordType":"Note","fields":{"t":{"value":"e"}}}"#])
            var found: [String: String] = [:]
            var marker: String?
            var pages = 0
            repeat {
                let markerJSON = marker.map { #","continuationMarker":"\#($0)""# } ?? ""
                let page = try await query(cloud, alice, #"{"zoneWide":true,"resultsLimit":2,"query":{"recordType":"Note"}\#(markerJSON)}"#)
                #expect(page.status == 200, "\(page.text)")
                for record in page["records"] as? [[String: Any]] ?? [] {
                    found[record["recordName"] as? String ?? ""] = (record["zoneID"] as? [String: Any])?["zoneName"] as? String
                }
                marker = page["continuationMarker"] as? String
                pages += 1
            } while marker != nil && pages < 10
            #expect(found == ["d1": ZoneID.defaultZoneName, "t1": "Todos", "t2": "Todos", "w1": "Work"])
            #expect(pages >= 2)
        }
    }

    @Test func discoveryByPhoneFindsNoOneAndDiscoverAllListsSharingPartners() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            let carol = try await cloud.signIn("carol")
            for user in [bob, carol] {
                let allowed = try await cloud.web(cloud.address.databasePath(.public, "users/discoverability"), #"{"discoverable":true}"#, token: user.token)
                #expect(allowed.status == 200)
            }
            let discover = cloud.address.databasePath(.public, "users/discover")
            let phone = try await cloud.web(discover, #"{"lookupInfos":[{"phoneNumber":"+15555550100"},{"accountName":"bob"}]}"#, token: alice.token)
            #expect(phone.status == 200, "\(phone.text)")
            #expect((phone["users"] as? [Any])?.count == 1)
            #expect(phone["users", 0, "userRecordName"] as? String == bob.user)

            // Discover all: the discoverable users alice shares with (bob), not carol.
            try await cloud.createTodosZone(alice)
            try await save(cloud, alice, [#"{"recordName":"L1","recordType":"TodoList","fields":{"title":{"value":"Groceries"}}}"#], zone: "Todos")
            let shared = try await cloud.web(
                cloud.address.databasePath(.private, "shares/modify"),
                #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"READ_ONLY"}]}]}"#,
                token: alice.token)
            #expect(shared.status == 200, "\(shared.text)")
            let all = try await cloud.web(discover, method: "GET", token: alice.token)
            #expect(all.status == 200, "\(all.text)")
            #expect((all["users"] as? [[String: Any]])?.compactMap { $0["userRecordName"] as? String } == [bob.user])
            let fromBob = try await cloud.web(discover, method: "GET", token: bob.token)
            #expect((fromBob["users"] as? [Any])?.isEmpty == true, "alice did not allow discovery: \(fromBob.text)")
        }
    }
}
