import CloudModel
import CloudServer
import Foundation
import PostgresTestSupport
import Synchronization
import Testing

/// Feeds in commit order: writers on two cloud instances over one PostgreSQL database, and a reader following the
/// feed with its token meanwhile, through either instance. A position handed out to a transaction that commits after
/// the reader passed a larger one would be skipped forever; every committed change must be seen exactly once.
@Suite("Change feeds in commit order across instances")
struct CommitOrderTests {
    /// Concurrent `records/modify` batches through both instances; a reader polling `changes/zone` all along.
    @Test func zoneFeedSkipsNothingUnderConcurrentWriters() async throws {
        try await PostgresTestDatabase.with { database in
            let a = try await TestCloud(configure: { $0.storage = .postgres(database.url) })
            let b = try await TestCloud(configure: { $0.storage = .postgres(database.url) })
            defer { Task { await a.close(); await b.close() } }
            let alice = try await a.signIn("alice")
            try await a.createTodosZone(alice)
            let clouds = [a, b]
            let writers = 8, batchesPerWriter = 12, batchSize = 5
            let done = DoneFlag()

            async let seen = Self.followZone(clouds, alice, until: done)
            let written = try await withThrowingTaskGroup(of: [String].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var names: [String] = []
                        for batch in 0..<batchesPerWriter {
                            let operations = (0..<batchSize).map { RecordOperation(.create, todo("w\(writer)-\(batch)-\($0)", "w\(writer)")) }
                            let results = try await clouds[(writer + batch) % 2].modify(alice, operations)
                            names += results.compactMap { $0.record?.recordName }
                        }
                        return names
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            done.set()
            let names = try await seen
            #expect(written.count == writers * batchesPerWriter * batchSize)
            // Exactly once each: nothing skipped, nothing repeated.
            #expect(names.count == written.count)
            #expect(Set(names) == Set(written))
        }
    }

    /// Zones created concurrently through both instances; a reader polling `changes/database` sees each once.
    @Test func databaseFeedSkipsNothingUnderConcurrentWriters() async throws {
        try await PostgresTestDatabase.with { database in
            let a = try await TestCloud(configure: { $0.storage = .postgres(database.url) })
            let b = try await TestCloud(configure: { $0.storage = .postgres(database.url) })
            defer { Task { await a.close(); await b.close() } }
            let alice = try await a.signIn("alice")
            let clouds = [a, b]
            let done = DoneFlag()
            async let seen = Self.followDatabase(clouds, alice, until: done)
            let created = try await withThrowingTaskGroup(of: [String].self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        var names: [String] = []
                        for index in 0..<8 {
                            let zone = ZoneID(zoneName: "Z\(writer)-\(index)")
                            let answer: ZonesResponse = try await clouds[(writer + index) % 2].post(
                                .private, "zones/modify", ModifyZonesRequest(operations: [.init(.create, zone)]), token: alice.token)
                            if answer.zones.first?.zone != nil { names.append(zone.zoneName) }
                        }
                        return names
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            done.set()
            let names = try await seen
            #expect(created.count == 64)
            #expect(names.count == created.count)
            #expect(Set(names) == Set(created))
        }
    }

    /// Reads `changes/zone` from the start until `done` and one more pass finds nothing: every record name, in order.
    static func followZone(_ clouds: [TestCloud], _ device: Device, until done: DoneFlag) async throws -> [String] {
        try await follow(clouds, until: done) { cloud, token in
            let answer: ZoneChangesResponse = try await cloud.post(
                .private, "changes/zone",
                ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token, resultsLimit: 7)]), token: device.token)
            let zone = try #require(answer.zones.first)
            #expect(zone.serverErrorCode == nil)
            return (zone.records.map(\.recordName), zone.syncToken ?? token, zone.moreComing)
        }
    }

    /// Reads `changes/database` from the start until `done` and one more pass finds nothing: every zone name.
    static func followDatabase(_ clouds: [TestCloud], _ device: Device, until done: DoneFlag) async throws -> [String] {
        try await follow(clouds, until: done) { cloud, token in
            let answer: DatabaseChangesResponse = try await cloud.post(
                .private, "changes/database", DatabaseChangesRequest(syncToken: token, resultsLimit: 5), token: device.token)
            return (answer.zones.map(\.zoneID.zoneName), answer.syncToken, answer.moreComing)
        }
    }

    /// Follows a feed page by page, asking the two instances in turn, until `done` was set before a pass that drained
    /// it: the names of every page, in order. `page` answers a page's names, the next token and whether more follow.
    static func follow(
        _ clouds: [TestCloud], until done: DoneFlag,
        page: (TestCloud, ChangeToken?) async throws -> (names: [String], token: ChangeToken?, moreComing: Bool)
    ) async throws -> [String] {
        var token: ChangeToken?
        var names: [String] = []
        var round = 0
        while true {
            let finished = done.isSet
            var drained = false
            while !drained {
                round += 1
                let answer = try await page(clouds[round % 2], token)
                names += answer.names
                token = answer.token
                drained = !answer.moreComing
            }
            if finished { return names }
        }
    }
}

/// Set once the writers are done: the reader then makes one last pass.
final class DoneFlag: Sendable {
    private let state = Mutex(false)
    var isSet: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
