import CloudModel
import Foundation
import TestSupport
import Testing

/// A change token is valid exactly as long as every change after it that can concern its holder is still in the
/// feed: compaction never expires a token issued after the compacted horizon.
@Suite("Change tokens and compaction horizons")
struct TokenHorizonTests {
    /// One `changes/zone` page for `Todos`, in raw JSON; the zone's entry of the answer.
    private func page(_ cloud: TestCloud, _ device: Device, token: String?, limit: Int) async throws -> [String: Any] {
        var query: [String: Any] = ["zoneID": ["zoneName": "Todos"], "resultsLimit": limit]
        if let token { query["syncToken"] = token }
        let body = try JSONSerialization.data(withJSONObject: ["zones": [query]])
        let (status, data) = try await cloud.raw("POST", cloud.address.databasePath(.private, "changes/zone"), body: body, token: device.token)
        #expect(status == 200)
        let answer = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require((answer["zones"] as? [[String: Any]])?.first)
    }

    private func compactPastRetention(_ cloud: TestCloud) async throws {
        // Retention is 0: everything deleted before this moment is older than it once a millisecond passed.
        try await waitForWallClock()
        let compact = try await cloud.raw("POST", "/admin/1/compact")
        #expect(compact.status == 200)
    }

    @Test func pagedFetchAfterCompactionReachesTheEnd() async throws {
        try await withCloud(retention: 0) { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let saved = try await cloud.modify(alice, (1...6).map { RecordOperation(.create, todo("r\($0)", "R\($0)")) })
            _ = try await cloud.modify(alice, [RecordOperation(.forceDelete, try #require(saved[5].record))])
            try await compactPastRetention(cloud)

            var token: String?
            var names: [String] = []
            for _ in 0..<10 {
                let zone = try await page(cloud, alice, token: token, limit: 2)
                #expect(zone["serverErrorCode"] == nil, "the token it just handed out: \(zone)")
                guard zone["serverErrorCode"] == nil else { return }
                names += (zone["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
                token = zone["syncToken"] as? String
                if zone["moreComing"] as? Bool != true { break }
            }
            #expect(names == ["r1", "r2", "r3", "r4", "r5"])

            // The token of the finished fetch stays valid, also with nothing newer in the zone and another compaction.
            try await compactPastRetention(cloud)
            let idle = try await page(cloud, alice, token: token, limit: 2)
            #expect(idle["serverErrorCode"] == nil)
            #expect((idle["records"] as? [Any])?.isEmpty == true)
            #expect(idle["moreComing"] as? Bool == false)
        }
    }

    @Test func zonesListTokenSurvivesCompaction() async throws {
        try await withCloud(retention: 0) { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            let saved = try await cloud.modify(alice, [RecordOperation(.create, todo("a", "A"))])
            _ = try await cloud.modify(alice, [RecordOperation(.forceDelete, try #require(saved[0].record))])
            try await compactPastRetention(cloud)
            let list: ZonesResponse = try await cloud.post(.private, "zones/list", EmptyBody(), token: alice.token)
            let token = try #require(list.zones.compactMap(\.zone).first { $0.zoneID.zoneName == "Todos" }?.syncToken)
            let zone = try await page(cloud, alice, token: token.rawValue, limit: 10)
            #expect(zone["serverErrorCode"] == nil)
        }
    }

    @Test func databaseTokensSurviveCompactionAndOtherUsers() async throws {
        try await withCloud(retention: 0) { cloud in
            let alice = try await cloud.signIn("alice")
            let bob = try await cloud.signIn("bob")
            // Alice has three deleted zones and a live one; Bob's token predates none of it.
            for name in ["A", "B", "C", "Todos"] {
                let _: ZonesResponse = try await cloud.post(
                    .private, "zones/modify", ModifyZonesRequest(operations: [.init(.create, ZoneID(zoneName: name))]), token: alice.token)
            }
            for name in ["A", "B", "C"] {
                let _: ZonesResponse = try await cloud.post(
                    .private, "zones/modify", ModifyZonesRequest(operations: [.init(.delete, ZoneID(zoneName: name))]), token: alice.token)
            }
            let bobStart: DatabaseChangesResponse = try await cloud.post(.private, "changes/database", DatabaseChangesRequest(), token: bob.token)
            try await compactPastRetention(cloud)
            // Alice's compaction is none of Bob's business.
            let bobAfter: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: bobStart.syncToken), token: bob.token)
            #expect(bobAfter.zones.isEmpty)

            // Alice reads her database feed from scratch, one entry a page, to the end.
            var token: ChangeToken?
            var names: [String] = []
            for _ in 0..<10 {
                let answer: DatabaseChangesResponse = try await cloud.post(
                    .private, "changes/database", DatabaseChangesRequest(syncToken: token, resultsLimit: 1), token: alice.token)
                names += answer.zones.map(\.zoneID.zoneName)
                token = answer.syncToken
                if !answer.moreComing { break }
            }
            #expect(names == ["Todos"])
            try await compactPastRetention(cloud)
            let idle: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: token), token: alice.token)
            #expect(idle.zones.isEmpty)
        }
    }

    /// Random interleavings of writes, deletes, compactions and paged fetches by three readers: no reader is told its
    /// token expired unless something deleted after its reading began was compacted, and every reading that
    /// finishes holds exactly the zone's live records.
    @Test(arguments: [UInt64(1), 7, 2026])
    func randomInterleavingsNeverExpireNewTokensNorSkip(seed: UInt64) async throws {
        try await withCloud(retention: 0) { cloud in
            let alice = try await cloud.signIn("alice")
            try await cloud.createTodosZone(alice)
            var random = SplitMix64(seed: seed)
            var live: [String: Record] = [:]
            var event = 0
            var deletedAt: [Int] = []
            var readers = Array(repeating: Reader(), count: 3)
            var finishedReadings = 0
            var nextName = 0

            for _ in 0..<250 {
                event += 1
                switch random.next() % 20 {
                case 0, 1, 2, 3, 4:
                    let count = Int(random.next() % 3) + 1
                    let operations = (0..<count).map { _ -> RecordOperation in
                        nextName += 1
                        return RecordOperation(.create, todo("n\(nextName)", "N\(nextName)"))
                    }
                    for result in try await cloud.modify(alice, operations) {
                        let record = try #require(result.record)
                        live[record.recordName] = record
                    }
                case 5:
                    guard let name = live.keys.sorted().randomElement(using: &random) else { continue }
                    var record = live[name]!
                    record.fields = ["title": .string("edited at \(event)"), "isCompleted": .int64(0), "priority": .int64(1)]
                    let saved = try await cloud.modify(alice, [RecordOperation(.forceUpdate, record)])
                    live[name] = try #require(saved.first?.record)
                case 6, 7:
                    guard let name = live.keys.sorted().randomElement(using: &random) else { continue }
                    _ = try await cloud.modify(alice, [RecordOperation(.forceDelete, live[name]!)])
                    live[name] = nil
                    deletedAt.append(event)
                case 8:
                    try await compactPastRetention(cloud)
                default:
                    let index = Int(random.next() % UInt64(readers.count))
                    var reader = readers[index]
                    if reader.token == nil {
                        reader.records = [:]
                        reader.basis = event
                    }
                    let zone = try await page(cloud, alice, token: reader.token, limit: Int(random.next() % 8) + 1)
                    if let code = zone["serverErrorCode"] as? String {
                        #expect(code == "BAD_REQUEST" && zone["condition"] as? String == "CHANGE_TOKEN_EXPIRED")
                        // The server also compacts on its own every second: any deletion after the basis may be gone.
                        #expect((deletedAt.last ?? 0) > reader.basis, "seed \(seed), event \(event): a token newer than the horizon expired")
                        reader.token = nil
                        readers[index] = reader
                        continue
                    }
                    for record in zone["records"] as? [[String: Any]] ?? [] {
                        let name = try #require(record["recordName"] as? String)
                        if record["deleted"] as? Bool == true {
                            reader.records[name] = nil
                        } else {
                            reader.records[name] = record["recordChangeTag"] as? String
                        }
                    }
                    reader.token = zone["syncToken"] as? String
                    if zone["moreComing"] as? Bool != true {
                        let expected = live.mapValues { $0.recordChangeTag }
                        #expect(reader.records == expected, "seed \(seed), event \(event): the finished reading differs from the zone")
                        reader.basis = event
                        finishedReadings += 1
                    }
                    readers[index] = reader
                }
            }
            #expect(finishedReadings > 5)
        }
    }

    private struct Reader {
        var token: String?
        var records: [String: String?] = [:]
        /// The event the reader's knowledge dates from: the start of its reading from scratch, or its last finished one.
        var basis = 0
    }
}

/// A small deterministic generator, so a failing interleaving can be replayed by its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
