import CloudModel
@testable import CloudServer
import Foundation
import PostgresTestSupport
import Testing

/// Feed pages read ahead of a device's next request: kept once, for a while, dropped by a write to their zone, and
/// a device reading page by page through PostgreSQL still gets every change made between its pages.
@Suite("Feed pages read ahead")
struct FeedReadAheadTests {
    static let alice = DatabaseKey(container: "iCloud.test", scope: .private, owner: "_alice")

    static func key(_ zone: String, after: Int64, database: DatabaseKey = alice) -> FeedReadAhead.Key {
        FeedReadAhead.Key(database: database, zoneName: zone, after: after, limit: 201, includeTombstones: true)
    }

    static func page(_ pk: Int64) -> ZoneFeedRead {
        ZoneFeedRead(zone: StoredZone(pk: pk, database: alice, name: "Todos", compactedSeq: 0), head: 7, rows: [])
    }

    @Test func aPageIsTakenOnceAndNotWhenTooOld() async throws {
        let readAhead = FeedReadAhead(capacity: 4, maxAge: .seconds(2))
        readAhead.start(Self.key("Todos", after: 200)) { Self.page(1) }
        // A second start of the same page reads nothing more.
        readAhead.start(Self.key("Todos", after: 200)) { Self.page(2) }
        #expect(readAhead.count == 1)
        #expect(readAhead.take(Self.key("Todos", after: 100)) == nil)
        let taken = try #require(readAhead.take(Self.key("Todos", after: 200)))
        #expect(try await taken.value?.zone.pk == 1)
        #expect(readAhead.take(Self.key("Todos", after: 200)) == nil)
        #expect(readAhead.pagesServed == 1)

        readAhead.start(Self.key("Todos", after: 400)) { Self.page(3) }
        #expect(readAhead.take(Self.key("Todos", after: 400), now: .now + .seconds(3)) == nil)
        #expect(readAhead.count == 0)
        #expect(readAhead.pagesServed == 1)
    }

    @Test func keptPagesAreBoundedAndAWriteDropsItsZones() async throws {
        let readAhead = FeedReadAhead(capacity: 3, maxAge: .seconds(2))
        let bob = DatabaseKey(container: "iCloud.test", scope: .private, owner: "_bob")
        readAhead.start(Self.key("Todos", after: 1)) { nil }
        readAhead.start(Self.key("Work", after: 1)) { nil }
        readAhead.start(Self.key("Todos", after: 1, database: bob)) { nil }
        readAhead.start(Self.key("Todos", after: 2)) { nil }  // full: not read ahead
        #expect(readAhead.count == 3)
        #expect(readAhead.take(Self.key("Todos", after: 2)) == nil)

        // Once the kept ones are too old, a new one takes their place.
        readAhead.start(Self.key("Todos", after: 3), now: .now + .seconds(3)) { nil }
        #expect(readAhead.count == 1)

        readAhead.start(Self.key("Work", after: 1)) { nil }
        readAhead.start(Self.key("Todos", after: 1, database: bob)) { nil }
        readAhead.forget(Self.alice, zones: ["Todos"])
        #expect(readAhead.take(Self.key("Todos", after: 3)) == nil)
        #expect(readAhead.count == 2)
        readAhead.forget(Self.alice, zones: nil)
        #expect(readAhead.count == 1)
        #expect(readAhead.take(Self.key("Todos", after: 1, database: bob)) != nil)
    }

    @Test func onlyPagesOfAtMostAMegabyteOfFieldsAreKept() {
        func rows(_ count: Int, bytes: Int) -> [StoredRecord] {
            let stamp = RecordStamp(timestamp: 0, userRecordName: "_alice")
            return (0..<count).map {
                StoredRecord(
                    zonePK: 1, recordName: "r\($0)", recordType: "Todo", changeTag: "1", seq: Int64($0), deleted: false, created: stamp,
                    modified: stamp, parent: nil, fieldsJSON: Data(repeating: 0x20, count: bytes))
            }
        }
        #expect(FeedReadAhead.fits(rows(200, bytes: 5_000)))
        #expect(FeedReadAhead.fits(rows(1, bytes: FeedReadAhead.maxPageBytes)))
        #expect(!FeedReadAhead.fits(rows(2, bytes: FeedReadAhead.maxPageBytes / 2 + 1)))
        #expect(!FeedReadAhead.fits(rows(201, bytes: 1_048_576)))
    }

    /// The feed as a device folds it: the last state of each record, tombstones removing.
    static func fold(_ records: [Record]) -> [String: Record] {
        var state: [String: Record] = [:]
        for record in records { state[record.recordName] = record.isDeleted ? nil : record }
        return state
    }

    @Test func aDeviceReadingPageByPageGetsEveryChangeMadeBetweenItsPages() async throws {
        try await PostgresTestDatabase.with("feed read-ahead") { database in
            try await withCloud(storage: .postgres(database.url)) { cloud in
                let readAhead = try #require(cloud.server.service.readAhead)
                let laptop = try await cloud.signIn("alice", device: "laptop")
                let phone = try await cloud.signIn("alice", device: "phone")
                try await cloud.createTodosZone(laptop)
                for batch in 0..<5 {
                    _ = try await cloud.modify(laptop, (0..<200).map { RecordOperation(.create, todo("r\(batch * 200 + $0)", "Todo")) })
                }

                func page(_ token: ChangeToken?) async throws -> (records: [Record], token: ChangeToken?, more: Bool) {
                    let answer: ZoneChangesResponse = try await cloud.post(
                        .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: token)]),
                        token: laptop.token)
                    let zone = try #require(answer.zones.first)
                    #expect(zone.serverErrorCode == nil)
                    return (zone.records, zone.syncToken, zone.moreComing)
                }

                func readAll() async throws -> (records: [Record], pages: Int) {
                    var (records, token, more) = try await page(nil)
                    var pages = 1
                    while more {
                        let next = try await page(token)
                        (token, more) = (next.token, next.more)
                        records += next.records
                        pages += 1
                    }
                    return (records, pages)
                }

                // A quiet read: every page after the first was read ahead. (A first read takes the time the notices of
                // the writes above may still need to arrive: one arriving during a read drops the page read ahead.)
                _ = try await readAll()
                let servedBefore = readAhead.pagesServed
                let quiet = try await readAll()
                #expect(quiet.pages == 5)
                #expect(Self.fold(quiet.records).count == 1000)
                #expect(readAhead.pagesServed - servedBefore == 4)

                // A read with writes from another device between its pages: one to a record it was given already, one
                // to a record of a later page, a deletion and a creation. Each comes later in the feed.
                var (records, token, more) = try await page(nil)
                let current = try await cloud.post(
                    .private, "records/lookup", LookupRecordsRequest(recordNames: ["r10", "r650"], zoneID: todos), token: phone.token,
                    as: RecordsResponse.self
                ).records.compactMap(\.record)
                #expect(current.count == 2)
                var edits = current.map { record -> RecordOperation in
                    var changed = record
                    changed.fields = ["title": .string("Changed between pages")]
                    return RecordOperation(.update, changed)
                }
                edits.append(RecordOperation(.forceDelete, Record(recordName: "r700")))
                edits.append(RecordOperation(.create, todo("late", "Made between pages")))
                let saved = try await cloud.modify(phone, edits)
                #expect(saved.allSatisfy { $0.error == nil })
                #expect(saved.count == 4)
                while more {
                    let next = try await page(token)
                    (token, more) = (next.token, next.more)
                    records += next.records
                }
                let state = Self.fold(records)
                #expect(state.count == 1000)
                #expect(state["r10"]?["title"] == .string("Changed between pages"))
                #expect(state["r650"]?["title"] == .string("Changed between pages"))
                #expect(state["r700"] == nil)
                #expect(state["late"] != nil)

                // Nothing is left behind once the device has read to the end.
                let idle = try await page(token)
                #expect(idle.records.isEmpty)
            }
        }
    }
}
