import CloudModel
import Foundation
import Testing
import TodoPlanning
import TodoStore
import TodoSync

/// Tags merge as sets and a repeating todo's next occurrence is made once, whatever order three offline devices sync in.
@Suite("Planning fields across three offline devices, through the real cloud")
struct PlanningSyncTests {
    /// The same occurrence, as every device now holds it.
    static func agreed(_ devices: [TestDevice], _ key: RecordKey) async throws -> TodoItem {
        var seen: [TodoItem] = []
        for device in devices {
            #expect(try await device.store.pendingCount() == 0, "\(device.name) sent everything")
            seen.append(try #require(try await device.store.todo(key), "\(device.name) has \(key.recordName)"))
        }
        for item in seen.dropFirst() {
            #expect(item.fields == seen[0].fields, "every device holds the same fields")
            #expect(item.system.changeTag == seen[0].system.changeTag)
        }
        return seen[0]
    }

    /// A added `+garden`, B removed `home`, C added `weekend` — all offline from the same version; every order of
    /// syncing keeps all three changes.
    @Test(arguments: [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) func tagsAddedAndRemovedOnThreeDevicesAllSurvive(_ order: [Int]) async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let c = try await cloud.device("C", sendsAutomatically: false)
        let key = try await a.engine.add(title: "Plant bulbs", tags: ["home", "autumn"]).key
        await a.engine.sync(.localEdit)
        for device in [b, c] { await device.engine.sync(.manualRefresh) }
        #expect(try await c.store.todo(key)?.tags == ["home", "autumn"])

        try await a.engine.edit(key, TodoEdit(addTags: ["garden"]))
        try await b.engine.edit(key, TodoEdit(removeTags: ["home"]))
        try await c.engine.edit(key, TodoEdit(addTags: ["weekend"]))
        let devices = [a, b, c]
        for index in order { await devices[index].engine.sync(.manualRefresh) }
        for device in devices + devices { await device.engine.sync(.manualRefresh) }

        let item = try await Self.agreed(devices, key)
        #expect(Set(item.tags) == ["autumn", "garden", "weekend"])
        #expect(try await a.engine.conflicts().isEmpty, "a set merge loses nothing")
    }

    /// Three devices complete the same occurrence while offline; each makes the next one under the same derived name,
    /// and the cloud ends with exactly one next occurrence, due a week later, whatever order they sync in.
    @Test(arguments: [[0, 1, 2], [2, 0, 1]]) func completingTheSameOccurrenceOnThreeDevicesMakesOneNext(_ order: [Int]) async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let c = try await cloud.device("C", sendsAutomatically: false)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let monday = utc.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: 9, minute: 30))!
        let first = try await a.engine.add(
            title: "Take out the bins", due: DueDate(monday, allDay: false), tags: ["home"], repeat: RepeatSetting(rrule: "FREQ=WEEKLY")
        ).key
        await a.engine.sync(.localEdit)
        for device in [b, c] { await device.engine.sync(.manualRefresh) }

        let devices = [a, b, c]
        for device in devices { try await device.engine.setCompleted(first, true) }
        // Each made the next one on its own, under the same name.
        let nextKey = RecordKey.privateTodo(SyncEngine.occurrenceName(series: first.recordName, number: 2))
        for device in devices { #expect(try await device.store.todo(nextKey) != nil, "\(device.name) made the next occurrence") }
        for index in order { await devices[index].engine.sync(.manualRefresh) }
        for device in devices + devices { await device.engine.sync(.manualRefresh) }

        let next = try await Self.agreed(devices, nextKey)
        #expect(next.due == DueDate(monday.addingTimeInterval(7 * 86_400), allDay: false))
        #expect(!next.isCompleted && next.occurrence == 2 && next.series == first.recordName && next.tags == ["home"])
        #expect(try await Self.agreed(devices, first).isCompleted)
        for device in devices {
            let series = try await device.store.todos().filter { $0.seriesName == first.recordName }
            #expect(series.count == 2, "\(device.name): the first and exactly one next occurrence")
        }
    }

    /// Skipping makes the next occurrence too, and completing the skipped one elsewhere converges on the same one;
    /// taking a completion back before syncing removes the occurrence it made.
    @Test func skipAndUndoKeepTheSeriesSingle() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let due = DueDate(Date(timeIntervalSince1970: 1_795_000_000), allDay: true)
        let first = try await a.engine.add(title: "Water plants", due: due, repeat: RepeatSetting(rrule: "FREQ=DAILY;INTERVAL=3")).key
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)

        let skippedTo = try #require(try await a.engine.skip(first))
        try await b.engine.setCompleted(first, true)
        await a.engine.sync(.manualRefresh)
        await b.engine.sync(.manualRefresh)
        await a.engine.sync(.manualRefresh)
        let next = try await Self.agreed([a, b], skippedTo.key)
        #expect(next.occurrence == 2)

        // Completing the second and taking it back at once leaves no third occurrence.
        try await a.engine.setCompleted(next.key, true)
        let third = RecordKey.privateTodo(SyncEngine.occurrenceName(series: first.recordName, number: 3))
        #expect(try await a.store.todo(third) != nil)
        try await a.engine.setCompleted(next.key, false)
        #expect(try await a.store.todo(third) == nil)

        // A skip taken back: the occurrence is back and the next one it made is gone.
        let weekly = try await a.engine.add(title: "Call mum", due: due, repeat: RepeatSetting(rrule: "FREQ=WEEKLY")).key
        let madeBySkip = try #require(try await a.engine.skip(weekly))
        #expect(try await a.store.todo(weekly)?.isTrashed == true)
        try await a.engine.unskip(weekly)
        #expect(try await a.store.todo(weekly)?.isTrashed == false)
        #expect(try await a.store.todo(madeBySkip.key) == nil, "the next occurrence, never sent, is gone")

        // A todo that does not repeat cannot be skipped.
        let single = try await a.engine.add(title: "Once").key
        await #expect(throws: SyncEngineError.self) { try await a.engine.skip(single) }
    }

    /// COUNT ends the series: the last occurrence makes no next one.
    @Test func aCountedSeriesEnds() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let a = try await cloud.device("A", sendsAutomatically: false)
        let due = DueDate(Date(timeIntervalSince1970: 1_795_000_000), allDay: true)
        var key = try await a.engine.add(title: "Three times", due: due, repeat: RepeatSetting(rrule: "FREQ=DAILY;COUNT=3")).key
        let series = key.recordName
        for number in 2...3 {
            try await a.engine.setCompleted(key, true)
            key = .privateTodo(SyncEngine.occurrenceName(series: series, number: number))
            #expect(try await a.store.todo(key) != nil, "occurrence \(number) exists")
        }
        try await a.engine.setCompleted(key, true)
        #expect(try await a.store.todos().count == 3, "the third was the last")
    }
}
