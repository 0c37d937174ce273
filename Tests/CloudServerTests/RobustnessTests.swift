import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing

@Suite("Bad input, throttling and faults")
struct RobustnessTests {
    @Test func malformedInputGetsClearErrorsAndLosesNothing() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            _ = try await cloud.modify(alice, [RecordOperation(.create, todo("keep", "Keep me"))])
            let modify = cloud.address.databasePath(.private, "records/modify")
            let cases: [(String, Data, Int)] = [
                ("not json", Data("{oops".utf8), 400),
                ("wrong types", Data(#"{"operations":"all"}"#.utf8), 400),
                ("invalid utf-8", Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]), 400),
                ("bad field type", Data(#"{"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Todo","fields":{"n":{"value":"abc","type":"INT64"}}}}]}"#.utf8), 400),
                ("unknown operation", Data(#"{"operations":[{"operationType":"explode","record":{"recordName":"x"}}]}"#.utf8), 400),
                ("empty operations", Data(#"{"operations":[]}"#.utf8), 400),
                ("huge body", Data(repeating: 0x20, count: 17 * 1_048_576), 400),
            ]
            for (name, body, expected) in cases {
                let answer = try await cloud.raw("POST", modify, body: body, token: alice.token)
                #expect(answer.status == expected, "\(name)")
                let error = try? JSONDecoder().decode(ServerError.self, from: answer.body)
                #expect(error != nil, "\(name) answers a JSON error")
                #expect(error?.reason.isEmpty == false, "\(name)")
            }
            let controlName = try await cloud.modify(alice, [RecordOperation(.create, todo("bad\u{1B}name", "x"))])
            #expect(controlName.first?.error?.serverErrorCode == .badRequest)
            // C0, DEL and C1 controls are refused in names; other characters (U+00A0 and U+0100 among them) are not.
            for control in ["\u{7F}", "\u{80}", "\u{85}", "\u{9B}", "\u{9F}"] {
                let refused = try await cloud.modify(alice, [RecordOperation(.create, todo("c\(control)name", "x"))], atomic: false)
                #expect(refused.first?.error?.serverErrorCode == .badRequest, "\(control.unicodeScalars.first!.value)")
            }
            let accepted = try await cloud.modify(
                alice, ["\u{A0}", "\u{100}", "é", "写周报", "🥛"].map { RecordOperation(.create, todo("ok\($0)name", "x")) }, atomic: false)
            #expect(accepted.allSatisfy { $0.record != nil })
            let badField = try await cloud.modify(alice, [RecordOperation(.create, todo("x", "x", extra: ["no spaces": .int64(1)]))])
            #expect(badField.first?.error?.serverErrorCode == .badRequest)

            // Escape sequences inside a title are data: stored and returned verbatim.
            let escape = "\u{1B}[2J\u{1B}]0;pwned\u{07}title"
            let stored = try await cloud.modify(alice, [RecordOperation(.create, todo("esc", escape))])
            #expect(stored.first?.record?["title"] == .string(escape))

            for path in ["/nowhere", "/database/1/iCloud.x/development/private/records/explode", "/database/1/iCloud.x/staging/private/zones/list",
                         "/database/1/iCloud.x/development/secret/zones/list", "/database/1/..%2F..%2Fetc/development/private/zones/list",
                         "/device/1/iCloud.x/development/courier/\(String(repeating: "0", count: 64))", "/admin/1/explode"] {
                let answer = try await cloud.raw("GET", path, token: alice.token)
                #expect([400, 404].contains(answer.status), "\(path)")
                #expect((try? JSONDecoder().decode(ServerError.self, from: answer.body)) != nil, "\(path)")
            }

            let health = try await cloud.raw("GET", "/health")
            #expect(health.status == 200)
            let lookup: RecordsResponse = try await cloud.post(.private, "records/lookup", LookupRecordsRequest(recordNames: ["keep"], zoneID: todos), token: alice.token)
            #expect(lookup.records.first?.record?["title"] == .string("Keep me"))
        }
    }

    @Test func perUserRateLimitThrottles() async throws {
        try await withCloud(rateLimit: 1) { cloud in  // a burst of 2: thirty requests hit it even on a loaded machine
            let alice = try await cloud.signIn("alice")
            var throttled: ServerError?
            for _ in 0..<30 {
                let (status, data) = try await cloud.raw("GET", cloud.address.databasePath(.private, "zones/list"), token: alice.token)
                if status == 429 {
                    throttled = try JSONDecoder().decode(ServerError.self, from: data)
                    break
                }
            }
            let error = try #require(throttled)
            #expect(error.serverErrorCode == .throttled)
            #expect((error.retryAfter ?? 0) > 0)
            // Another user is not affected.
            let bob = try await cloud.signIn("bob")
            let other = try await cloud.raw("GET", cloud.address.databasePath(.private, "zones/list"), token: bob.token)
            #expect(other.status == 200)
        }
    }

    @Test func faultSwitchFailsTheNextCalls() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let fault = FaultRequest(endpoint: "records/modify", serverErrorCode: .tryAgainLater, count: 2, retryAfter: 0.25)
            let armed = try await cloud.raw("POST", "/admin/1/faults", body: try JSONEncoder().encode(fault))
            #expect(armed.status == 200)
            let body = ModifyRecordsRequest(operations: [RecordOperation(.create, todo("a", "A"))], zoneID: todos)
            for _ in 0..<2 {
                let (status, error) = try await cloud.failure(.private, "records/modify", body, token: alice.token)
                #expect(status == 503)
                #expect(error.serverErrorCode == .tryAgainLater)
                #expect(error.retryAfter == 0.25)
            }
            let results = try await cloud.modify(alice, body.operations)
            #expect(results.first?.record != nil)
        }
    }

    @Test func dataSurvivesARestart() async throws {
        let directory = ScratchDirectory.path("restart")
        defer { try? FileManager.default.removeItem(at: directory) }
        var token: String
        do {
            let cloud = try await TestCloud(directory: directory)
            let alice = try await cloud.signIn("alice")
            token = alice.token
            try await cloud.createTodosZone(alice)
            _ = try await cloud.modify(alice, (0..<50).map { RecordOperation(.create, todo("r\($0)", "n\($0)")) })
            await cloud.server.shutdown()
        }
        let reopened = try await TestCloud(directory: directory)
        let lookup: RecordsResponse = try await reopened.post(
            .private, "records/lookup", LookupRecordsRequest(recordNames: ["r0", "r49"], zoneID: todos), token: token)
        #expect(lookup.records.allSatisfy { $0.record != nil })
        let more = try await reopened.modify(Device(token: token, user: "", deviceID: ""), [RecordOperation(.create, todo("after", "x"))])
        #expect(more.first?.record?.recordChangeTag != nil)
        await reopened.server.shutdown()
    }

    @Test func theWALIsCheckpointedBesideTheWritesAndNothingIsLost() async throws {
        let directory = ScratchDirectory.path("wal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cloud.sqlite").path
        func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
        var token: String
        let notes = String(repeating: "n", count: 2_000)
        do {
            let cloud = try await TestCloud(directory: directory)
            let alice = try await cloud.signIn("alice")
            token = alice.token
            try await cloud.createTodosZone(alice)
            let before = size(file)
            // Well over the 1,000 pages (4 MB) of WAL after which a checkpoint is due.
            for batch in 0..<15 {
                let operations = (0..<200).map { RecordOperation(.create, todo("w\(batch)-\($0)", "t", extra: ["notes": .string(notes)])) }
                #expect(try await cloud.modify(alice, operations).allSatisfy { $0.record != nil })
            }
            // The writes did not checkpoint themselves: the background thread copies the WAL into the file.
            #expect(await eventually(30) { size(file) >= before + 4_000_000 })
            await cloud.server.shutdown()
        }
        let reopened = try await TestCloud(directory: directory)
        let changes: ZoneChangesResponse = try await reopened.post(
            .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, resultsLimit: 200)]), token: token)
        #expect(changes.zones.first?.records.count == 200 && changes.zones.first?.moreComing == true)
        let lookup: RecordsResponse = try await reopened.post(
            .private, "records/lookup", LookupRecordsRequest(recordNames: ["w0-0", "w14-199"], zoneID: todos), token: token)
        #expect(lookup.records.allSatisfy { $0.record?["notes"] == .string(notes) })
        await reopened.server.shutdown()
    }
}
