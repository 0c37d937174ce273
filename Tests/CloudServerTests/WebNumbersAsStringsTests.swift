import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// `numbersAsStrings` on every endpoint CloudKit Web Services takes it on besides `records/query` (see
/// `WebQueryTests`): `records/modify`, `records/lookup`, `records/changes` and `changes/zone`. A number past 2^53
/// comes back exact, as a string; without the key the answer is unchanged.
@Suite("Web clients: numbersAsStrings")
struct WebNumbersAsStringsTests {
    private static let big = "9007199254740993"
    private static let record =
        #"{"recordName":"n1","recordType":"Item","fields":{"n":{"value":9007199254740993,"type":"INT64"},"when":{"value":1700000000000,"type":"TIMESTAMP"},"ns":{"value":[1,9007199254740993],"type":"INT64_LIST"},"d":{"value":1.5,"type":"DOUBLE"},"s":{"value":"7"}}}"#

    /// A zone `Numbers` of Alice's with the record `n1` saved; the save's answer asked for strings.
    private func seed(_ cloud: TestCloud) async throws -> (Device, WebAnswer) {
        let alice = try await cloud.signIn("alice")
        let zone = try await cloud.web(
            cloud.address.databasePath(.private, "zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Numbers"}}}]}"#,
            token: alice.token)
        #expect(zone.status == 200, "\(zone.text)")
        let saved = try await cloud.web(
            cloud.address.databasePath(.private, "records/modify"),
            #"{"zoneID":{"zoneName":"Numbers"},"numbersAsStrings":true,"operations":[{"operationType":"create","record":\#(Self.record)}]}"#,
            token: alice.token)
        #expect(saved.status == 200, "\(saved.text)")
        return (alice, saved)
    }

    /// The record `n1` of an answer (at `path`) has its numbers as strings, its double and string as they were.
    private func expectStrings(_ answer: WebAnswer, _ path: Any...) {
        func at(_ rest: Any...) -> Any? {
            var value: Any? = answer.json
            for step in path + rest {
                if let key = step as? String { value = (value as? [String: Any])?[key] } else if let index = step as? Int {
                    guard let array = value as? [Any], array.indices.contains(index) else { return nil }
                    value = array[index]
                }
            }
            return value
        }
        #expect(at("fields", "n", "value") as? String == Self.big, "\(answer.text)")
        #expect(at("fields", "n", "type") as? String == "INT64")
        #expect(at("fields", "when", "value") as? String == "1700000000000")
        #expect(at("fields", "ns", "value") as? [String] == ["1", Self.big])
        #expect(at("fields", "d", "value") as? Double == 1.5)
        #expect(at("fields", "s", "value") as? String == "7")
    }

    @Test func recordsModifyAnswersNumbersAsStrings() async throws {
        try await withCloud { cloud in
            let (alice, saved) = try await seed(cloud)
            expectStrings(saved, "records", 0)
            // A conflict's server record too.
            let stale = try await cloud.web(
                cloud.address.databasePath(.private, "records/modify"),
                #"{"zoneID":{"zoneName":"Numbers"},"numbersAsStrings":true,"operations":[{"operationType":"update","record":{"recordName":"n1","recordType":"Item","recordChangeTag":"stale","fields":{}}}]}"#,
                token: alice.token)
            #expect(stale["records", 0, "serverErrorCode"] as? String == "CONFLICT", "\(stale.text)")
            expectStrings(stale, "records", 0, "serverRecord")
            // Without the key, numbers stay numbers.
            let plain = try await cloud.web(
                cloud.address.databasePath(.private, "records/modify"),
                #"{"zoneID":{"zoneName":"Numbers"},"operations":[{"operationType":"forceUpdate","record":\#(Self.record)}]}"#, token: alice.token)
            #expect(plain.text.contains(#""value":9007199254740993"#), "\(plain.text)")
        }
    }

    @Test func recordsLookupAnswersNumbersAsStrings() async throws {
        try await withCloud { cloud in
            let (alice, _) = try await seed(cloud)
            let lookup = cloud.address.databasePath(.private, "records/lookup")
            let found = try await cloud.web(
                lookup, #"{"zoneID":{"zoneName":"Numbers"},"numbersAsStrings":true,"records":[{"recordName":"n1"},{"recordName":"nope"}]}"#,
                token: alice.token)
            expectStrings(found, "records", 0)
            #expect(found["records", 1, "serverErrorCode"] as? String == "NOT_FOUND")
            let plain = try await cloud.web(lookup, #"{"zoneID":{"zoneName":"Numbers"},"records":[{"recordName":"n1"}]}"#, token: alice.token)
            #expect(plain["records", 0, "fields", "n", "value"] as? Int64 == 9_007_199_254_740_993, "\(plain.text)")
        }
    }

    @Test func recordsChangesAnswersNumbersAsStrings() async throws {
        try await withCloud { cloud in
            let (alice, _) = try await seed(cloud)
            let changes = try await cloud.web(
                cloud.address.databasePath(.private, "records/changes"), #"{"zoneID":{"zoneName":"Numbers"},"numbersAsStrings":true}"#,
                token: alice.token)
            #expect(changes.status == 200, "\(changes.text)")
            expectStrings(changes, "records", 0)
        }
    }

    @Test func zoneChangesAnswerNumbersAsStringsForTheRequestOrOneZone() async throws {
        try await withCloud { cloud in
            let (alice, _) = try await seed(cloud)
            let path = cloud.address.databasePath(.private, "changes/zone")
            let all = try await cloud.web(path, #"{"numbersAsStrings":true,"zones":[{"zoneID":{"zoneName":"Numbers"}}]}"#, token: alice.token)
            #expect(all.status == 200, "\(all.text)")
            expectStrings(all, "zones", 0, "records", 0)
            // A zone's own key, as the reference lets each zone carry the request's keys.
            let one = try await cloud.web(path, #"{"zones":[{"zoneID":{"zoneName":"Numbers"},"numbersAsStrings":true}]}"#, token: alice.token)
            expectStrings(one, "zones", 0, "records", 0)
            let plain = try await cloud.web(path, #"{"zones":[{"zoneID":{"zoneName":"Numbers"}}]}"#, token: alice.token)
            #expect(plain["zones", 0, "records", 0, "fields", "n", "value"] as? Int64 == 9_007_199_254_740_993, "\(plain.text)")
        }
    }
}
