import CloudModel
import Foundation
import TestSupport
import Testing

/// Every error answer carries one of the 14 codes the CloudKit Web Services reference documents, with that code's
/// HTTP status; our finer conditions ride in `condition`, which our own decoders read back.
@Suite("Only documented error codes on the wire")
struct ErrorCodeTests {
    /// The reference's codes and their statuses: all a strict client knows.
    static let documented: [String: Int] = [
        "ACCESS_DENIED": 403, "ATOMIC_ERROR": 400, "AUTHENTICATION_FAILED": 401, "AUTHENTICATION_REQUIRED": 421,
        "BAD_REQUEST": 400, "CONFLICT": 409, "EXISTS": 409, "INTERNAL_ERROR": 500, "NOT_FOUND": 404, "QUOTA_EXCEEDED": 413,
        "THROTTLED": 429, "TRY_AGAIN_LATER": 503, "VALIDATING_REFERENCE_ERROR": 412, "ZONE_NOT_FOUND": 404,
    ]

    /// Every `serverErrorCode` anywhere in a JSON answer, with the `condition` beside it.
    private func errors(in value: Any) -> [(code: String, condition: String?)] {
        if let object = value as? [String: Any] {
            var found: [(String, String?)] = []
            if let code = object["serverErrorCode"] as? String { found.append((code, object["condition"] as? String)) }
            for child in object.values { found += errors(in: child) }
            return found
        }
        if let array = value as? [Any] { return array.flatMap { errors(in: $0) } }
        return []
    }

    private struct Answer {
        var what: String
        var status: Int
        var body: Data
    }

    /// Checks one answer as a client knowing only the 14 codes would read it; the conditions it carries.
    private func check(_ answer: Answer) throws -> [ServerErrorCode] {
        let json = try JSONSerialization.jsonObject(with: answer.body, options: [.fragmentsAllowed])
        let found = errors(in: json)
        if answer.status != 200 {
            let code = try #require(found.first?.code, "\(answer.what): an error answer without serverErrorCode")
            #expect(Self.documented[code] == answer.status, "\(answer.what): \(code) sent with HTTP \(answer.status)")
            // Our client's decoder (the one CloudClient uses) reads the precise condition back.
            let decoded = try ServerError(json: JSONParser.parse(answer.body), path: "$")
            #expect(decoded.serverErrorCode.wireCode.rawValue == code)
        }
        for (code, condition) in found {
            #expect(Self.documented[code] != nil, "\(answer.what): undocumented code \(code)")
            if let condition {
                let precise = try #require(ServerErrorCode(rawValue: condition), "\(answer.what): unknown condition \(condition)")
                #expect(!precise.isDocumented && precise.wireCode.rawValue == code, "\(answer.what): \(condition) under \(code)")
            }
        }
        return found.map { ServerErrorCode(wire: $0.code, condition: $0.condition)! }
    }

    @Test func everyErrorAnswerUsesOnlyDocumentedCodes() async throws {
        try await withCloud(retention: 0) { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            try await cloud.createTodosZone(alice)
            let saved = try await cloud.modify(alice, [RecordOperation(.create, todo("a", "A")), RecordOperation(.create, todo("b", "B"))])
            let oldToken = try #require(
                try await cloud.post(
                    .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: alice.token,
                    as: ZoneChangesResponse.self
                ).zones.first?.syncToken)
            _ = try await cloud.modify(alice, [RecordOperation(.forceDelete, try #require(saved[1].record))])
            try await waitForWallClock()  // the deletion is older than now, so a zero retention compacts it
            _ = try await cloud.raw("POST", "/admin/1/compact")
            let _: ZonesResponse = try await cloud.post(
                .private, "zones/modify", ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: "Gone"))]), token: alice.token)
            let _: ZonesResponse = try await cloud.post(
                .private, "zones/modify", ModifyZonesRequest(operations: [.init(.purge, ZoneID(zoneName: "Gone"))]), token: alice.token)
            let _ = try await cloud.modify(bob, [RecordOperation(.create, todo("pub", "Bob's"))], scope: .public)

            func call(_ what: String, _ scope: DatabaseScope, _ endpoint: String, _ json: String, token: String?) async throws -> Answer {
                let (status, body) = try await cloud.raw(
                    "POST", cloud.address.databasePath(scope, endpoint), body: Data(json.utf8), token: token)
                return Answer(what: what, status: status, body: body)
            }
            let tag = try #require(saved[0].record?.recordChangeTag)
            let big = String(repeating: "x", count: 1_100_000)
            let many = (0..<201).map { #"{"operationType":"create","record":{"recordName":"m\#($0)","recordType":"Todo"}}"# }
            var answers: [Answer] = [
                try await call("no account", .private, "zones/list", "{}", token: nil),
                try await call("bad session", .private, "zones/list", "{}", token: "not-a-session"),
                try await call("no endpoint", .private, "nothing/here", "{}", token: alice.token),
                try await call("not json", .private, "records/modify", "{oops", token: alice.token),
                try await call("too many", .private, "records/modify", #"{"zoneID":{"zoneName":"Todos"},"operations":[\#(many.joined(separator: ","))]}"#, token: alice.token),
                try await call("too big", .private, "records/modify", #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"big","recordType":"Todo","fields":{"t":{"value":"\#(big)"}}}}]}"#, token: alice.token),
                try await call("conflict, exists, missing", .private, "records/modify", #"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"update","record":{"recordName":"a","recordType":"Todo","recordChangeTag":"stale"}},{"operationType":"create","record":{"recordName":"a","recordType":"Todo"}},{"operationType":"update","record":{"recordName":"nope","recordType":"Todo","recordChangeTag":"\#(tag)"}}]}"#, token: alice.token),
                try await call("atomic", .private, "records/modify", #"{"zoneID":{"zoneName":"Todos"},"atomic":true,"operations":[{"operationType":"create","record":{"recordName":"new","recordType":"Todo"}},{"operationType":"create","record":{"recordName":"a","recordType":"Todo"}}]}"#, token: alice.token),
                try await call("no zone", .private, "records/modify", #"{"zoneID":{"zoneName":"Nope"},"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Todo"}}]}"#, token: alice.token),
                try await call("purged zone write", .private, "records/modify", #"{"zoneID":{"zoneName":"Gone"},"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Todo"}}]}"#, token: alice.token),
                try await call("purged zone lookup", .private, "zones/lookup", #"{"zones":[{"zoneID":{"zoneName":"Gone"}},{"zoneID":{"zoneName":"Nope"}}]}"#, token: alice.token),
                try await call("purged zone feed", .private, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Gone"}}]}"#, token: alice.token),
                try await call("purged zone, older route", .private, "records/changes", #"{"zoneID":{"zoneName":"Gone"}}"#, token: alice.token),
                try await call("expired token", .private, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Todos"},"syncToken":"\#(oldToken.rawValue)"}]}"#, token: alice.token),
                try await call("expired token, older route", .private, "records/changes", #"{"zoneID":{"zoneName":"Todos"},"syncToken":"\#(oldToken.rawValue)"}"#, token: alice.token),
                try await call("garbage token", .private, "changes/database", #"{"syncToken":"D!!"}"#, token: alice.token),
                try await call("someone else's public record", .public, "records/modify", #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"pub","recordType":"Todo","fields":{"title":{"value":"mine"}}}}]}"#, token: alice.token),
                try await call("missing record", .private, "records/lookup", #"{"zoneID":{"zoneName":"Todos"},"records":[{"recordName":"nope"}]}"#, token: alice.token),
            ]
            // Every condition the server has, as an injected fault.
            for code in ServerErrorCode.allCases {
                let fault = FaultRequest(endpoint: "zones/list", serverErrorCode: code, count: 1, retryAfter: code == .throttled ? 1 : nil)
                #expect(try await cloud.raw("POST", "/admin/1/faults", body: try JSONEncoder().encode(fault)).status == 200)
                answers.append(try await call("fault \(code.rawValue)", .private, "zones/list", "{}", token: alice.token))
            }

            var seen: Set<ServerErrorCode> = []
            for answer in answers { seen.formUnion(try check(answer)) }
            #expect(seen == Set(ServerErrorCode.allCases), "conditions never produced: \(Set(ServerErrorCode.allCases).subtracting(seen))")
            // The natural answers alone show our three conditions too, not only the injected faults.
            var natural: Set<ServerErrorCode> = []
            for answer in answers where !answer.what.hasPrefix("fault") { natural.formUnion(try check(answer)) }
            #expect(natural.isSuperset(of: [.changeTokenExpired, .userDeletedZone, .limitExceeded, .conflict, .exists, .notFound, .zoneNotFound]))
        }
    }

    @Test func ourClientReadsConditionsAndOlderCodes() throws {
        let body = Data(#"{"serverErrorCode":"BAD_REQUEST","condition":"CHANGE_TOKEN_EXPIRED","reason":"r"}"#.utf8)
        #expect(try JSONDecoder().decode(ServerError.self, from: body).serverErrorCode == .changeTokenExpired)
        #expect(try ServerError(json: JSONParser.parse(body), path: "$").serverErrorCode == .changeTokenExpired)
        // A condition under a code it does not travel with is not believed; an older cloud's bare code still reads.
        let mismatched = Data(#"{"serverErrorCode":"CONFLICT","condition":"CHANGE_TOKEN_EXPIRED","reason":"r"}"#.utf8)
        #expect(try JSONDecoder().decode(ServerError.self, from: mismatched).serverErrorCode == .conflict)
        let older = Data(#"{"serverErrorCode":"USER_DELETED_ZONE","reason":"r"}"#.utf8)
        #expect(try ServerError(json: JSONParser.parse(older), path: "$").serverErrorCode == .userDeletedZone)
        // Encoded, ours never appear as the code.
        let encoded = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(ServerError(.limitExceeded, "x"))) as? [String: Any]
        #expect(encoded?["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect(encoded?["condition"] as? String == "LIMIT_EXCEEDED")
        let page = try ZoneChangesResponse(
            bytes: Array(#"{"zones":[{"zoneID":{"zoneName":"Todos"},"records":[],"moreComing":false,"serverErrorCode":"ZONE_NOT_FOUND","condition":"USER_DELETED_ZONE","reason":"r"}]}"#.utf8))
        #expect(page.zones.first?.error?.serverErrorCode == .userDeletedZone)
    }
}
