@testable import CloudServer
import CloudModel
import Foundation
import Testing

/// The storage contract every `CloudStore` keeps: transactions, feeds, records and zones (see `StoreFactory.all`).
@Suite("Store conformance: transactions, feeds, records, zones")
struct StoreConformanceTests {
    @Test(arguments: StoreFactory.all)
    func aFailedWriteLeavesNothing(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            await #expect(throws: DeliberateFailure.self) {
                try await store.write { tx async throws in
                    try await tx.insertUser(UserRow(userRecordName: "_alice", account: "alice", passwordHash: "h"), now: 1)
                    let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                    _ = try await Conformance.put(tx, zone, ["a", "b"])
                    try await tx.noteZoneChange(Conformance.alice, zoneName: "Todos", kind: .changed, seq: try await tx.nextSequence(.database(Conformance.alice)), now: 1)
                    throw DeliberateFailure()
                }
            }
            try await store.read { tx async throws in
                #expect(try await tx.user(account: "alice") == nil)
                #expect(try await tx.zones(Conformance.alice).isEmpty)
                #expect(try await tx.databaseChanges(Conformance.alice, after: 0, limit: 10).isEmpty)
            }
            // The store goes on: a write after the failure commits, and its values are visible to the next read.
            let zone = try await store.write { tx async throws in try await tx.createZone(Conformance.alice, name: "Todos") }
            try await store.read { tx async throws in #expect(try await tx.zone(Conformance.alice, name: "Todos") == zone) }
        }
    }

    @Test(arguments: StoreFactory.all)
    func aReadSeesOneSnapshotWhateverCommitsMeanwhile(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let seen = try await store.read { tx async throws -> (before: Int, after: Int) in
                let before = try await tx.zones(Conformance.alice).count
                // A write commits while the read is under way: the read goes on seeing what it saw.
                _ = try await store.write { try await $0.createZone(Conformance.alice, name: "Later") }
                return (before, try await tx.zones(Conformance.alice).count)
            }
            #expect(seen.before == 0 && seen.after == 0)
            try await store.read { tx async throws in #expect(try await tx.zones(Conformance.alice).map(\.name) == ["Later"]) }
        }
    }

    @Test(arguments: StoreFactory.all)
    func feedPositionsGrowAcrossCommitsAndReadersSeeThemInOrder(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let zone = try await store.write { tx async throws in try await tx.createZone(Conformance.alice, name: "Todos") }
            var last: Int64 = 0
            for round in 0..<5 {
                let written = try await store.write { tx async throws in try await Conformance.put(tx, zone, (0..<3).map { "r\(round)-\($0)" }) }
                for record in written {
                    #expect(record.seq > last)
                    last = record.seq
                }
                let databaseSeq = try await store.write { tx async throws in try await tx.nextSequence(.database(Conformance.alice)) }
                let otherDatabase = try await store.write { tx async throws in try await tx.nextSequence(.database(Conformance.bob)) }
                #expect(databaseSeq > 0 && otherDatabase > 0)
            }
            let head = last
            try await store.read { tx async throws in
                let all = try await tx.changes(zonePK: zone.pk, after: 0, limit: 100, includeTombstones: true)
                #expect(all.map(\.recordName) == (0..<5).flatMap { round in (0..<3).map { "r\(round)-\($0)" } })
                #expect(all.map(\.seq) == all.map(\.seq).sorted())
                #expect(try await tx.latestSequence(zonePK: zone.pk) == head)
                // Paging: after a position, at most a limit, in order.
                let page = try await tx.changes(zonePK: zone.pk, after: all[3].seq, limit: 4, includeTombstones: true)
                #expect(page.map(\.recordName) == all[4..<8].map(\.recordName))
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func concurrentWritersOfOneFeedCommitInOrder(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let zone = try await store.write { tx async throws in try await tx.createZone(Conformance.alice, name: "Todos") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for round in 0..<10 {
                            _ = try await store.write { tx async throws in try await Conformance.put(tx, zone, ["w\(writer)-\(round)"]) }
                        }
                    }
                }
                // A reader following the feed meanwhile never sees a position below one it passed appear later.
                group.addTask {
                    var after: Int64 = 0
                    var seen = Set<String>()
                    while seen.count < 40 {
                        let start = after
                        let page = try await store.read { tx async throws in
                            try await tx.changes(zonePK: zone.pk, after: start, limit: 7, includeTombstones: true)
                        }
                        for record in page { seen.insert(record.recordName) }
                        after = page.last?.seq ?? after
                        if page.isEmpty { await Task.yield() }
                    }
                    let all = try await store.read { tx async throws in try await tx.changes(zonePK: zone.pk, after: 0, limit: 100, includeTombstones: true) }
                    #expect(Set(all.map(\.recordName)) == seen)
                }
                try await group.waitForAll()
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func insertKeepsWhatIsThereAndPutReplacesIt(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            try await store.write { tx async throws in
                let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                let first = Conformance.record(zone, "a", seq: try await tx.nextSequence(.zone(pk: zone.pk)), title: "first")
                #expect(try await tx.insertRecord(first))
                let second = Conformance.record(zone, "a", seq: try await tx.nextSequence(.zone(pk: zone.pk)), title: "second")
                #expect(try await !tx.insertRecord(second))
                #expect(try await tx.record(zonePK: zone.pk, name: "a")?.changeTag == first.changeTag)
                try await tx.putRecord(second)
                let stored = try #require(try await tx.record(zonePK: zone.pk, name: "a"))
                #expect(stored.changeTag == second.changeTag && stored.fieldsJSON == second.fieldsJSON && stored.seq == second.seq)
                // A tombstone is a row too: an insert over it is refused, a put writes over it.
                let tombstone = Conformance.tombstone(stored, seq: try await tx.nextSequence(.zone(pk: zone.pk)), time: 2_000)
                try await tx.putRecord(tombstone)
                #expect(try await tx.record(zonePK: zone.pk, name: "a")?.deleted == true)
                #expect(try await !tx.insertRecord(Conformance.record(zone, "a", seq: try await tx.nextSequence(.zone(pk: zone.pk)))))
                try await tx.removeRecord(zonePK: zone.pk, name: "a")
                #expect(try await tx.record(zonePK: zone.pk, name: "a") == nil)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func batchMethodsAnswerAsTheSingleOnes(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            try await store.write { tx async throws in
                let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                let other = try await tx.createZone(Conformance.alice, name: "Other")
                let live = try await Conformance.put(tx, zone, ["live"])[0]
                let gone = Conformance.tombstone(try await Conformance.put(tx, zone, ["gone"])[0], seq: try await tx.nextSequence(.zone(pk: zone.pk)), time: 5)
                try await tx.putRecord(gone)
                _ = try await Conformance.put(tx, other, ["elsewhere"])
                let found = try await tx.records(zonePK: zone.pk, names: ["live", "gone", "missing", "elsewhere", "live"])
                #expect(Set(found.keys) == ["live", "gone"])
                #expect(found["live"]?.changeTag == live.changeTag && found["gone"]?.deleted == true)
                #expect(try await tx.records(zonePK: zone.pk, names: []).isEmpty)

                var batch: [StoredRecord] = []
                for name in ["new-1", "live", "new-2", "gone"] {
                    batch.append(Conformance.record(zone, name, seq: try await tx.nextSequence(.zone(pk: zone.pk)), title: "batch"))
                }
                #expect(try await tx.insertRecords(batch) == [true, false, true, false])
                #expect(try await tx.insertRecords([]) == [])
                // Past one statement's worth (full ones and a remainder), refusals among them, twice in one.
                var many: [StoredRecord] = []
                for index in 0..<70 {
                    let name = index % 9 == 4 ? "live" : "many-\(index)"
                    many.append(Conformance.record(zone, name, seq: try await tx.nextSequence(.zone(pk: zone.pk)), title: "many"))
                }
                #expect(try await tx.insertRecords(many) == (0..<70).map { $0 % 9 != 4 })
                #expect(try await tx.records(zonePK: zone.pk, names: ["many-69"])["many-69"]?.seq == many[69].seq)
                let after = try await tx.records(zonePK: zone.pk, names: ["new-1", "live", "new-2", "gone"])
                #expect(after["new-1"]?.seq == batch[0].seq && after["new-2"]?.seq == batch[2].seq)
                #expect(after["live"]?.changeTag == live.changeTag && after["gone"]?.deleted == true)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func liveRecordHeadsCountEachParentsLiveRecordsAndTheirLatestChange(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            try await store.write { tx async throws in
                let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                let other = try await tx.createZone(Conformance.alice, name: "Other")
                var last: [String?: Int64] = [:]
                for (name, parent) in [("a", "L1"), ("b", "L1"), ("c", nil), ("d", "L2"), ("e", "L1")] as [(String, String?)] {
                    let record = Conformance.record(zone, name, seq: try await tx.nextSequence(.zone(pk: zone.pk)), parent: parent)
                    try await tx.putRecord(record)
                    last[parent] = record.seq
                }
                // A deleted todo counts neither in its parent's number nor in its latest change; other zones and types
                // count nowhere.
                let d = try #require(try await tx.record(zonePK: zone.pk, name: "d"))
                try await tx.putRecord(Conformance.tombstone(d, seq: try await tx.nextSequence(.zone(pk: zone.pk)), time: 2_000))
                var list = Conformance.record(zone, "L1", seq: try await tx.nextSequence(.zone(pk: zone.pk)))
                list.recordType = "TodoList"
                try await tx.putRecord(list)
                try await tx.putRecord(Conformance.record(other, "x", seq: try await tx.nextSequence(.zone(pk: other.pk)), parent: "L1"))

                let heads = try await tx.liveRecordHeads(zonePK: zone.pk, recordType: "Todo")
                let byParent = Dictionary(uniqueKeysWithValues: heads.map { ($0.parent, ($0.count, $0.seq)) })
                #expect(byParent.count == 2, "\(heads)")
                #expect(byParent["L1"]?.0 == 3 && byParent["L1"]?.1 == last["L1"])
                #expect(byParent[nil as String?]?.0 == 1 && byParent[nil as String?]?.1 == last[nil as String?])
                #expect(try await tx.liveRecordHeads(zonePK: zone.pk, recordType: "Note").isEmpty)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func tombstonesFollowTheFeedUntilCompacted(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let (zone, goneSeq, lastSeq) = try await store.write { tx -> (StoredZone, Int64, Int64) in
                let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                let records = try await Conformance.put(tx, zone, ["a", "b", "c"], time: 1_000)
                let gone = Conformance.tombstone(records[1], seq: try await tx.nextSequence(.zone(pk: zone.pk)), time: 2_000)
                try await tx.putRecord(gone)
                let late = Conformance.tombstone(records[2], seq: try await tx.nextSequence(.zone(pk: zone.pk)), time: 9_000)
                try await tx.putRecord(late)
                return (zone, gone.seq, late.seq)
            }
            try await store.read { tx async throws in
                let all = try await tx.changes(zonePK: zone.pk, after: 0, limit: 10, includeTombstones: true)
                #expect(all.map(\.recordName) == ["a", "b", "c"])
                #expect(all.map(\.deleted) == [false, true, true])
                #expect(try await tx.changes(zonePK: zone.pk, after: 0, limit: 10, includeTombstones: false).map(\.recordName) == ["a"])
            }
            // Tombstones older than the cut go; the zone's horizon moves past them; the head stays.
            try await store.write { tx async throws in try await tx.compact(before: 5_000) }
            try await store.read { tx async throws in
                let zoneNow = try #require(try await tx.zone(Conformance.alice, name: "Todos"))
                #expect(zoneNow.compactedSeq >= goneSeq && zoneNow.compactedSeq < lastSeq)
                #expect(try await tx.changes(zonePK: zone.pk, after: 0, limit: 10, includeTombstones: true).map(\.recordName) == ["a", "c"])
                #expect(try await tx.latestSequence(zonePK: zone.pk) == lastSeq)
            }
            // Compacting the last record of a feed keeps its head.
            try await store.write { tx async throws in try await tx.compact(before: 10_000) }
            try await store.read { tx async throws in
                #expect(try await tx.latestSequence(zonePK: zone.pk) == lastSeq)
                #expect(try #require(try await tx.zone(Conformance.alice, name: "Todos")).compactedSeq == lastSeq)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func aZoneFeedReadInOneGoAnswersAsItsParts(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let (zone, head) = try await store.write { tx -> (StoredZone, Int64) in
                let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                let records = try await Conformance.put(tx, zone, ["a", "b", "c", "d"])
                try await tx.putRecord(Conformance.tombstone(records[1], seq: try await tx.nextSequence(.zone(pk: zone.pk)), time: 2_000))
                _ = try await tx.createZone(Conformance.alice, name: "Empty")
                return (zone, try await tx.latestSequence(zonePK: zone.pk))
            }
            try await store.readSingle { tx async throws in
                let feed = try #require(try await tx.zoneFeed(Conformance.alice, name: "Todos", after: 0, limit: 10, includeTombstones: true))
                #expect(feed.zone == zone)
                #expect(feed.head == head)
                #expect(feed.rows.map(\.recordName) == ["a", "c", "d", "b"])
                #expect(feed.rows.map(\.deleted) == [false, false, false, true])
                #expect(feed.rows.map(\.seq) == feed.rows.map(\.seq).sorted())
                // A device's page size (prepared ahead on PostgreSQL) answers as any other limit.
                let page = try #require(
                    try await tx.zoneFeed(Conformance.alice, name: "Todos", after: 0, limit: CloudLimits.maxResultsPerPage + 1, includeTombstones: true))
                #expect(page.rows.map(\.recordName) == feed.rows.map(\.recordName) && page.head == head && page.zone == zone)
            }
            try await store.readSingle { tx async throws in
                // Tombstones left out, a position and a limit: as `changes` answers them.
                let live = try #require(try await tx.zoneFeed(Conformance.alice, name: "Todos", after: 0, limit: 10, includeTombstones: false))
                #expect(live.rows.map(\.recordName) == ["a", "c", "d"])
                let first = live.rows[0]
                let page = try #require(try await tx.zoneFeed(Conformance.alice, name: "Todos", after: first.seq, limit: 2, includeTombstones: true))
                let parts = try await tx.changes(zonePK: zone.pk, after: first.seq, limit: 2, includeTombstones: true)
                #expect(page.rows.map(\.recordName) == parts.map(\.recordName))
                #expect(page.rows.map(\.changeTag) == parts.map(\.changeTag))
                #expect(page.rows.map(\.fieldsJSON) == parts.map(\.fieldsJSON))
                #expect(page.rows.map(\.modified) == parts.map(\.modified))
                // Past the head, and a zone without changes: the zone alone.
                let past = try #require(try await tx.zoneFeed(Conformance.alice, name: "Todos", after: head, limit: 10, includeTombstones: true))
                #expect(past.rows.isEmpty && past.head == head && past.zone == zone)
                let empty = try #require(try await tx.zoneFeed(Conformance.alice, name: "Empty", after: 0, limit: 10, includeTombstones: true))
                let emptyHead = try await tx.latestSequence(zonePK: empty.zone.pk)
                #expect(empty.rows.isEmpty && empty.head == emptyHead)
                // Another database's zone of that name, and no zone at all: nothing.
                #expect(try await tx.zoneFeed(Conformance.bob, name: "Todos", after: 0, limit: 10, includeTombstones: true) == nil)
                #expect(try await tx.zoneFeed(Conformance.alice, name: "Nope", after: 0, limit: 10, includeTombstones: true) == nil)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func zonesAreCreatedDeletedAndPurged(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let first = try await store.write { tx -> StoredZone in
                let zone = try await tx.createZone(Conformance.alice, name: "Todos")
                _ = try await tx.createZone(Conformance.alice, name: "Archive")
                _ = try await tx.createZone(Conformance.bob, name: "Todos")
                _ = try await Conformance.put(tx, zone, ["a"])
                return zone
            }
            try await store.read { tx async throws in
                #expect(try await tx.zones(Conformance.alice).map(\.name) == ["Archive", "Todos"])
                #expect(try await tx.zone(Conformance.alice, name: "Todos") == first)
                #expect(try await tx.zone(Conformance.alice, name: "Nope") == nil)
                #expect(try await !tx.isPurged(Conformance.alice, name: "Todos"))
            }
            try await store.write { tx async throws in try await tx.deleteZone(first, purged: true) }
            let second = try await store.read { tx -> StoredZone? in
                #expect(try await tx.isPurged(Conformance.alice, name: "Todos"))
                #expect(try await tx.record(zonePK: first.pk, name: "a") == nil)
                #expect(try await tx.zones(Conformance.bob).map(\.name) == ["Todos"])
                return try await tx.zone(Conformance.alice, name: "Todos")
            }
            #expect(second == nil)
            // Created again: a new identity, not purged, empty.
            let again = try await store.write { tx async throws in try await tx.createZone(Conformance.alice, name: "Todos") }
            #expect(again.pk != first.pk && again.compactedSeq == 0)
            try await store.read { tx async throws in
                #expect(try await !tx.isPurged(Conformance.alice, name: "Todos"))
                #expect(try await tx.changes(zonePK: again.pk, after: 0, limit: 10, includeTombstones: true).isEmpty)
            }
            try await store.write { tx async throws in try await tx.deleteZone(again, purged: false) }
            try await store.read { tx async throws in #expect(try await !tx.isPurged(Conformance.alice, name: "Todos")) }
        }
    }

    @Test(arguments: StoreFactory.all)
    func databaseFeedKeepsTheLatestEntryPerZone(_ factory: StoreFactory) async throws {
        try await factory.run { store in
            let alice = Conformance.alice
            let seqs = try await store.write { tx -> [Int64] in
                var seqs: [Int64] = []
                for (name, kind, time) in [("A", ZoneChangeKind.changed, Int64(1_000)), ("B", .changed, 1_000), ("A", .deleted, 2_000), ("C", .purged, 9_000)] {
                    let seq = try await tx.nextSequence(.database(alice))
                    try await tx.noteZoneChange(alice, zoneName: name, kind: kind, seq: seq, now: time)
                    seqs.append(seq)
                }
                try await tx.noteZoneChange(Conformance.bob, zoneName: "X", kind: .changed, seq: try await tx.nextSequence(.database(Conformance.bob)), now: 1)
                return seqs
            }
            try await store.read { tx async throws in
                let entries = try await tx.databaseChanges(alice, after: 0, limit: 10)
                #expect(entries.map(\.zoneName) == ["B", "A", "C"])
                #expect(entries.map(\.kind) == [.changed, .deleted, .purged])
                #expect(entries.map(\.seq) == [seqs[1], seqs[2], seqs[3]])
                #expect(try await tx.databaseChanges(alice, after: seqs[1], limit: 1).map(\.zoneName) == ["A"])
                #expect(try await tx.latestDatabaseSequence(alice) == seqs[3])
                #expect(try await tx.databaseHorizon(alice) == 0)
            }
            // Deleted-zone entries older than the cut go; the database's horizon moves past them, not another's.
            try await store.write { tx async throws in try await tx.compact(before: 5_000) }
            try await store.read { tx async throws in
                #expect(try await tx.databaseChanges(alice, after: 0, limit: 10).map(\.zoneName) == ["B", "C"])
                #expect(try await tx.databaseHorizon(alice) >= seqs[2])
                #expect(try await tx.databaseHorizon(alice) < seqs[3])
                #expect(try await tx.databaseHorizon(Conformance.bob) == 0)
                #expect(try await tx.latestDatabaseSequence(alice) == seqs[3])
            }
        }
    }
}
