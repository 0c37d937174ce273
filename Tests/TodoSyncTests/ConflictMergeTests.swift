import CloudModel
import Foundation
import Testing
import TodoStore
import TodoSync

/// A version of a record: field values with their edit stamps.
private func version(_ fields: [String: FieldValue], _ stamps: [String: EditStamp], lost: String? = nil) -> [String: FieldValue] {
    var fields = fields
    fields[FieldStamps.fieldName] = FieldStamps(stamps).wire.map(FieldValue.string)
    if let lost { fields[LostEdit.fieldName] = .string(lost) }
    return fields
}

private func side(_ fields: [String: FieldValue], bound: Int64? = nil) -> ConflictMerge.Side {
    ConflictMerge.Side(fields: fields, fallback: EditStamp(timestamp: 0, deviceID: "?"), bound: bound)
}

@Suite("Conflict merge by edit stamps (pure)") struct ConflictMergeTests {
    let created = EditStamp(timestamp: 1_000, deviceID: "A")
    let early = EditStamp(timestamp: 2_000, deviceID: "A")
    let late = EditStamp(timestamp: 3_000, deviceID: "B")
    var baseFields: [String: FieldValue] { ["title": .string("Milk"), "notes": .string(""), "priority": .int64(0), "isTrashed": .int64(0)] }
    var base: [String: FieldValue] { version(baseFields, ["*": created]) }

    func edited(_ changes: [String: FieldValue], at stamp: EditStamp) -> [String: FieldValue] {
        var fields = baseFields
        var stamps: [String: EditStamp] = ["*": created]
        for (name, value) in changes {
            fields[name] = value
            stamps[name] = stamp
        }
        return version(fields, stamps)
    }

    /// Merges on both devices (each is "local" once) and checks they agree.
    func mergedBothWays(_ a: [String: FieldValue], _ b: [String: FieldValue]) -> ConflictMerge.Outcome {
        let onA = ConflictMerge.merge(base: base, local: side(a), server: side(b), recordName: "r1")
        let onB = ConflictMerge.merge(base: base, local: side(b), server: side(a), recordName: "r1")
        #expect(onA.fields == onB.fields, "the merge must not depend on which device merges")
        return onA
    }

    @Test func sameFieldTakesTheLaterEditAndKeepsTheLoser() throws {
        let outcome = mergedBothWays(edited(["priority": .int64(1)], at: early), edited(["priority": .int64(3)], at: late))
        #expect(outcome.fields["priority"] == .int64(3))
        let lost = try #require(outcome.lost.first)
        #expect(outcome.lost.count == 1)
        #expect(lost.field == "priority" && lost.lost == .int64(1) && lost.won == .int64(3) && lost.lostBy == "A" && lost.wonBy == "B")
        #expect(LostEdit.decode(outcome.fields[LostEdit.fieldName]?.stringValue).map(\.id) == [lost.id])
        #expect(FieldStamps(wire: outcome.fields[FieldStamps.fieldName]?.stringValue)["priority"] == late)
    }

    @Test func differentFieldsMergeWithoutALoss() {
        let outcome = mergedBothWays(edited(["title": .string("Oat milk")], at: late), edited(["priority": .int64(2)], at: early))
        #expect(outcome.fields["title"] == .string("Oat milk") && outcome.fields["priority"] == .int64(2))
        #expect(outcome.lost.isEmpty && outcome.fields[LostEdit.fieldName] == nil)
    }

    @Test func anEditLaterThanATrashTakesTheTodoOutOfTheTrash() throws {
        let outcome = mergedBothWays(edited(["isTrashed": .int64(1)], at: early), edited(["title": .string("Oat milk")], at: late))
        #expect(outcome.fields["isTrashed"] == .int64(0) && outcome.fields["title"] == .string("Oat milk"))
        let lost = try #require(outcome.lost.first)
        #expect(lost.field == "isTrashed" && lost.lost == .int64(1) && lost.lostBy == "A")
    }

    @Test func aTrashLaterThanAnEditStandsAndTheEditIsKeptInIt() throws {
        let outcome = mergedBothWays(edited(["isTrashed": .int64(1)], at: late), edited(["title": .string("Oat milk")], at: early))
        #expect(outcome.fields["isTrashed"] == .int64(1) && outcome.fields["title"] == .string("Oat milk"))
        let lost = try #require(outcome.lost.first)
        #expect(lost.field == "isTrashed" && lost.lost == .int64(0) && lost.lostBy == "A" && lost.wonBy == "B")
    }

    @Test func tiesInTimeAreBrokenByCounterThenDevice() {
        let a = EditStamp(timestamp: 2_000, counter: 1, deviceID: "A")
        let b = EditStamp(timestamp: 2_000, counter: 0, deviceID: "B")
        #expect(b < a)
        let outcome = mergedBothWays(edited(["title": .string("from A")], at: a), edited(["title": .string("from B")], at: b))
        #expect(outcome.fields["title"] == .string("from A"))
        let c = EditStamp(timestamp: 2_000, counter: 0, deviceID: "C")
        #expect(mergedBothWays(edited(["title": .string("from C")], at: c), edited(["title": .string("from B")], at: b)).fields["title"] == .string("from C"))
    }

    @Test func aStampLaterThanTheCloudStoredItCountsAsStoredThen() {
        // B's clock is a year ahead and unmeasured; the cloud stored its version at 2,500, before A's edit at 3,000.
        let future = EditStamp(timestamp: 31_536_000_000, deviceID: "B")
        let fromB = edited(["title": .string("from B")], at: future)
        let fromA = edited(["title": .string("from A")], at: EditStamp(timestamp: 3_000, deviceID: "A"))
        let merged = ConflictMerge.merge(base: base, local: side(fromA), server: side(fromB, bound: 2_500), recordName: "r1")
        #expect(merged.fields["title"] == .string("from A"))
    }

    @Test func keptLossesAreUnitedAndAResolvedOneStaysResolved() {
        var first = LostEdit(field: "title", lost: .string("x"), won: .string("y"), loser: early, winner: late, recordName: "r1")
        let other = LostEdit(field: "notes", lost: .string("n"), won: .string("m"), loser: early, winner: late, recordName: "r1")
        let open = LostEdit.encode([first, other])
        first.resolved = true
        let resolved = LostEdit.encode([first])
        let outcome = mergedBothWays(version(baseFields, ["*": created], lost: open), version(baseFields, ["*": created], lost: resolved))
        let kept = LostEdit.decode(outcome.fields[LostEdit.fieldName]?.stringValue)
        #expect(kept.count == 2 && kept.first { $0.field == "title" }?.isOpen == false && kept.first { $0.field == "notes" }?.isOpen == true)
    }

    @Test func hostileStampsAndLossesAreIgnored() {
        #expect(FieldStamps(wire: "title=abc;=1,2,3;x=1,-1,d;priority=5,0,dev;;=").byField == ["priority": EditStamp(timestamp: 5, deviceID: "dev")])
        #expect(FieldStamps(wire: String(repeating: "a=1,0,d;", count: 10_000)).byField.isEmpty)
        #expect(LostEdit.decode("{not json").isEmpty && LostEdit.decode("[{\"id\":1}]").isEmpty)
        let stamps = FieldStamps(["title": late, "*": created])
        #expect(FieldStamps(wire: stamps.wire) == stamps)
        // A ";" in a device ID (another program's) is left out of the text, which stays readable; others are kept.
        let odd = FieldStamps(["title": EditStamp(timestamp: 7, counter: 1, deviceID: "a;b;"), "*": EditStamp(timestamp: 5, deviceID: "dev")])
        #expect(odd.wire == "*=5,0,dev;title=7,1,ab")
        #expect(FieldStamps(wire: odd.wire)["title"] == EditStamp(timestamp: 7, counter: 1, deviceID: "ab"))
    }
}

@Suite("Edit clock (pure)") struct EditClockTests {
    @Test func stampsNeverGoBackAndCountWithinAMillisecond() {
        var clock = HybridClock(deviceID: "A")
        let first = clock.tick(physical: 1_000)
        let second = clock.tick(physical: 1_000)
        let third = clock.tick(physical: 900)  // the device's clock went back
        #expect(first < second && second < third)
        #expect(third.timestamp == 1_000 && third.counter == 2)
        #expect(clock.tick(physical: 1_001) == EditStamp(timestamp: 1_001, counter: 0, deviceID: "A"))
    }

    @Test func anEditAfterSeeingALaterOneOrdersAfterIt() {
        var behind = HybridClock(deviceID: "A")
        behind.observe(5_000, counter: 3)  // seen in the cloud, from a device whose clock runs ahead
        let stamp = behind.tick(physical: 4_000)
        #expect(stamp > EditStamp(timestamp: 5_000, counter: 3, deviceID: "Z"))
        let restored = HybridClock(deviceID: "A", wire: behind.wire)
        #expect(restored.time == behind.time && restored.counter == behind.counter)
    }

    @Test func readingsNarrowTheOffsetAndAClockChangeStartsAgain() {
        // The cloud is 600,000 ms ahead; a save stored at cloud 1,600,100 was sent at device 1,000,050 and answered at 1,000,150.
        var offset = CloudClockOffset.reading(cloud: 1_600_100, sent: 1_000_050, received: 1_000_150)
        #expect(offset.low == 599_950 && offset.high == 600_050 && offset.estimate == 600_000)
        offset.refine(with: .reading(cloud: 1_601_000, sent: 1_000_980, received: 1_001_010))
        #expect(offset.low == 599_990 && offset.high == 600_020)
        // The device's clock was set back ten minutes: the next reading does not fit, and replaces the old knowledge.
        offset.refine(with: .reading(cloud: 1_602_000, sent: 1_001_990, received: 1_002_010))
        offset.refine(with: .reading(cloud: 1_700_000, sent: 500_000, received: 500_010))
        #expect(abs(offset.estimate - 1_199_995) <= 5)
        #expect(CloudClockOffset(wire: offset.wire) == offset && CloudClockOffset(wire: "x,1") == nil)
    }

    @Test func aDateHeaderReadingIsWithinItsSecond() {
        let offset = CloudClockOffset.reading(cloud: 10_000, resolution: 999, sent: 9_000, received: 9_010)
        #expect(offset.low == 990 && offset.high == 1_999)
        #expect(offset.estimate == 1_494)
        // A clock that agrees with the cloud's within the reading is not moved at all.
        let agreeing = CloudClockOffset.reading(cloud: 9_000, resolution: 999, sent: 9_000, received: 9_010)
        #expect(agreeing.low == -10 && agreeing.high == 999 && agreeing.estimate == 0)
    }
}

@Suite("Fetched changes meet a pending edit (store and merge)") struct FetchMergeTests {
    /// The merge the engine runs, by stamps.
    let merge: FieldMerge = { base, local, server in
        ConflictMerge.merge(
            base: base, local: ConflictMerge.Side(fields: local.fields, fallback: EditStamp(timestamp: 0, deviceID: "A")),
            server: ConflictMerge.Side(fields: server.fields ?? [:], fallback: EditStamp(timestamp: 0, deviceID: ""), bound: server.modified?.timestamp),
            recordName: local.key.recordName
        ).fields
    }

    func record(_ tag: String, title: String, priority: Int64, stamps: [String: EditStamp], at time: Int64) -> Record {
        var fields: [String: FieldValue] = ["title": .string(title), "notes": .string(""), "priority": .int64(priority), "isCompleted": .int64(0), "isTrashed": .int64(0)]
        fields[FieldStamps.fieldName] = FieldStamps(stamps).wire.map(FieldValue.string)
        var record = Record(recordName: "r1", recordType: TodoSchema.todoType, recordChangeTag: tag, fields: fields, zoneID: ZoneKey.privateTodos.zoneID)
        record.created = RecordStamp(timestamp: 1_000, userRecordName: "_u")
        record.modified = RecordStamp(timestamp: time, userRecordName: "_u")
        return record
    }

    @Test func theFetchMergesByStampsAndTheNextSendNeedsNoConflict() async throws {
        let store = try await TodoStore(path: ":memory:")
        let created = EditStamp(timestamp: 1_000, deviceID: "A")
        try await store.applyZoneChanges(.privateTodos, records: [record("t1", title: "Milk", priority: 0, stamps: ["*": created], at: 1_000)], token: nil, moreComing: false)
        var item = try #require(try await store.todo(.privateTodo("r1")))
        item.title = "Oat milk"
        item.editStamps = FieldStamps(["*": created, "title": EditStamp(timestamp: 2_000, deviceID: "A")]).wire
        try await store.saveLocalEdit(item, at: 2_000)
        // B set the priority later and the cloud stored it: fetched while A's title waits.
        let fromB = record("t2", title: "Milk", priority: 3, stamps: ["*": created, "priority": EditStamp(timestamp: 3_000, deviceID: "B")], at: 3_100)
        try await store.applyZoneChanges(.privateTodos, records: [fromB], token: nil, moreComing: false, merge: merge)
        let merged = try #require(try await store.todo(.privateTodo("r1")))
        #expect(merged.title == "Oat milk" && merged.priority == 3 && merged.hasPendingChanges)
        #expect(merged.system.changeTag == "t2")
        let pending = try #require(try await store.pendingChanges().first)
        #expect(pending.baseFields?["priority"] == .int64(3))
        // Without a merge the fetch keeps the local fields as before (the send merges on a conflict).
        let unmerged = try await TodoStore(path: ":memory:")
        try await unmerged.applyZoneChanges(.privateTodos, records: [record("t1", title: "Milk", priority: 0, stamps: ["*": created], at: 1_000)], token: nil, moreComing: false)
        try await unmerged.saveLocalEdit(item, at: 2_000)
        try await unmerged.applyZoneChanges(.privateTodos, records: [fromB], token: nil, moreComing: false)
        #expect(try await unmerged.todo(.privateTodo("r1"))?.priority == 0)
    }
}

@Suite("Merging with a device that keeps stamps without writing them (pure)") struct OlderDeviceMergeTests {
    @Test func anEditUnderAnOldStampCountsAsMadeWhenItsVersionWasSaved() {
        let created = EditStamp(timestamp: 1_000, deviceID: "A")
        let base = version(["title": .string("Milk")], ["*": created])
        let mine = version(["title": .string("Oat milk")], ["*": created, "title": EditStamp(timestamp: 2_000, deviceID: "A")])
        // An older device changed the title and sent the stamps back as it found them; the cloud stored it at 3,000.
        let older = version(["title": .string("Soy milk")], ["*": created])
        let server = ConflictMerge.Side(fields: older, fallback: EditStamp(timestamp: 3_000, deviceID: "old"), bound: 3_000)
        let merged = ConflictMerge.merge(base: base, local: side(mine), server: server, recordName: "r1")
        #expect(merged.fields["title"] == .string("Soy milk"))
        #expect(merged.lost.first?.lost == .string("Oat milk"))
    }
}

@Suite("The cloud's Date header (pure)") struct HTTPDateTests {
    @Test func imfFixdatesAreReadAndOthersRefused() {
        #expect(CloudClockOffset.readingFromDateHeader("Sun, 06 Nov 1994 08:49:37 GMT", sent: 0, received: 0)?.low == 784_111_777_000)
        #expect(CloudClockOffset.readingFromDateHeader("Mon, 23 Nov 2026 15:01:45 GMT", sent: 0, received: 0)?.low == 1_795_446_105_000)
        #expect(CloudClockOffset.readingFromDateHeader("Thu, 29 Feb 2024 00:00:00 GMT", sent: 0, received: 0)?.low == 1_709_164_800_000)
        for bad in ["", "yesterday", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            #expect(CloudClockOffset.readingFromDateHeader(bad, sent: 0, received: 0) == nil, "\(bad)")
        }
    }
}

@Suite("Set fields merge by element (pure)") struct SetMergeTests {
    static func tags(_ names: String...) -> FieldValue { .list(.string, names.map(FieldValue.string)) }
    let created = EditStamp(timestamp: 1_000, deviceID: "A")

    func merged(base: FieldValue?, local: FieldValue?, server: FieldValue?) -> [String: FieldValue] {
        func fields(_ tags: FieldValue?, _ stamp: EditStamp) -> [String: FieldValue] {
            var fields = version(["title": .string("Bulbs")], ["*": created, "tags": stamp])
            fields["tags"] = tags
            return fields
        }
        let baseFields = fields(base, created)
        let onA = ConflictMerge.merge(
            base: baseFields, local: side(fields(local, EditStamp(timestamp: 2_000, deviceID: "A"))),
            server: side(fields(server, EditStamp(timestamp: 3_000, deviceID: "B"))), recordName: "r")
        #expect(onA.lost.isEmpty, "a set merge loses nothing")
        return onA.fields
    }

    @Test func whatEitherSideAddedStaysAndWhatEitherRemovedGoes() {
        let fields = merged(base: Self.tags("home", "autumn"), local: Self.tags("home", "autumn", "garden"), server: Self.tags("autumn", "weekend"))
        #expect(fields["tags"] == Self.tags("autumn", "weekend", "garden"))
    }

    @Test func bothRemovingTheLastTagLeavesNone() {
        #expect(merged(base: Self.tags("home"), local: nil, server: Self.tags("garden"))["tags"] == Self.tags("garden"))
        #expect(merged(base: Self.tags("home"), local: nil, server: nil)["tags"] == nil)
        #expect(merged(base: nil, local: Self.tags("a"), server: Self.tags("b"))["tags"] == Self.tags("b", "a"))
    }

    @Test func withoutABaseBothSidesAreKept() {
        let outcome = ConflictMerge.merge(
            base: nil, local: side(["tags": Self.tags("a", "b")]), server: side(["tags": Self.tags("b", "c")]), recordName: "r")
        #expect(outcome.fields["tags"] == Self.tags("b", "c", "a"))
        #expect(ConflictMerge.mergeSet(base: nil, local: .string("x"), server: nil) == Self.tags("x"), "an ill-typed value counts as one element")
    }
}
