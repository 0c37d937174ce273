import CloudModel
import Foundation
import TestSupport
import Testing
import TodoPlanning
import TodoStore

@testable import TodoSync

/// An import into an empty outbox hands its entries to the next pass, which sends them without reading them back: the
/// entries handed over are exactly what the outbox read finds, and a change to the cache in between voids them.
@Suite("An import's entries handed to the next pass")
struct ImportHandOffTests {
    /// Todos with every kind of field an import brings: lists, tags, due days and times, waits to the sub-millisecond,
    /// annotations, repeats, dependencies, priorities out of range, text in several scripts.
    static func richTodos(_ count: Int) -> [NewTodo] {
        (0..<count).map { index in
            var todo = NewTodo(
                title: index % 3 == 0 ? "写周报 #\(index)" : "Todo \(index) — café", notes: index % 2 == 0 ? "Notes\nover lines" : "",
                due: index % 4 == 0 ? nil : DueDate(Date(timeIntervalSince1970: 1_795_000_000 + Double(index) * 3_600), allDay: index % 4 == 1),
                priority: index % 7 - 1, isCompleted: index % 9 == 0, tags: index % 2 == 0 ? ["home", "errand"] : [],
                repeating: index % 5 == 0 ? RepeatSetting(rrule: "FREQ=WEEKLY", fromCompletion: index % 10 == 0) : nil,
                annotations: index % 6 == 0 ? [Annotation(entry: Date(timeIntervalSince1970: 1_790_000_000.25), text: "called")] : [])
            if index % 8 == 0 { todo.wait = Date(timeIntervalSince1970: 1_796_000_000.123456) }
            if index % 11 == 0 { todo.scheduled = Date(timeIntervalSince1970: 1_796_500_000) }
            if index % 3 == 1 { todo.listName = index % 2 == 0 ? "Garden" : "Work" }
            if index > 0, index % 12 == 0 { todo.depends = ["some-other-record"] }
            return todo
        }
    }

    /// Starts a second device of the same account, lets it fetch, and checks it holds what `laptop` holds; stops both.
    static func expectArrivesOnAnotherDevice(_ cloud: TestCloud, from laptop: TestDevice) async throws {
        #expect(try await laptop.store.pendingCount() == 0)
        let phone = try await cloud.device("phone")
        await phone.engine.waitUntilIdle()
        #expect(try await contents(phone.store) == (try await contents(laptop.store)))
        let sent = try await laptop.store.todos(in: .private).sorted { $0.key.recordName < $1.key.recordName }
        let arrived = try await phone.store.todos(in: .private).sorted { $0.key.recordName < $1.key.recordName }
        #expect(sent.map(\.fields) == arrived.map(\.fields))
        await laptop.engine.stop()
        await phone.engine.stop()
    }

    @Test func theEntriesHandedOverAreWhatTheOutboxReadFinds() async throws {
        let directory = ScratchDirectory.path("handoff")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TodoStore(url: directory.appendingPathComponent("cache.sqlite"))
        let clock = TestClock()
        let time = CloudTime(deviceID: "device-1", clock: clock)
        var items = zip(Self.richTodos(60), RecordNames.ascending(60)).map { todo, name in todo.item(.privateTodo(name)) }
        for index in items.indices { time.stamp(&items[index], from: nil) }
        let sequences = try await store.addLocalRecords(items, at: 1_795_000_000_123)
        let handed = TodoImporter.queued(items, sequences: sequences, at: 1_795_000_000_123)
        let read = try await store.pendingChanges()
        #expect(handed.count == read.count && handed.count == 60)
        for (given, found) in zip(handed, read) {
            #expect(given == found, "\(given.key.recordName)")
        }
        #expect(TodoImporter.queued(items, sequences: sequences, at: 1_795_000_000_123, limit: 25) == Array(read.prefix(25)))
        await store.close()
    }

    @Test func anImportIsSentWholeAndArrivesAsStored() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let laptop = try await cloud.device("laptop", sendsAutomatically: false)
        _ = try await laptop.engine.importTodos(Self.richTodos(450))
        await laptop.engine.sync(.localEdit)
        #expect(await laptop.engine.importHandOffsTaken == 1)
        try await Self.expectArrivesOnAnotherDevice(cloud, from: laptop)
    }

    /// Past the limit, the pass takes the first entries as handed over and reads the rest back after them.
    @Test func aLargerImportHandsOverItsFirstEntriesAndTheRestIsRead() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let laptop = try await cloud.device("laptop", sendsAutomatically: false, importHandOff: 120)
        let keys = try await laptop.engine.importTodos(Self.richTodos(450)).keys
        await laptop.engine.sync(.localEdit)
        #expect(await laptop.engine.importHandOffsTaken == 1)
        #expect(try await laptop.store.todo(keys[449])?.system.changeTag != nil)
        try await Self.expectArrivesOnAnotherDevice(cloud, from: laptop)
    }

    @Test func anEditBetweenTheImportAndItsPassIsWhatIsSent() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let laptop = try await cloud.device("laptop", sendsAutomatically: false)
        let keys = try await laptop.engine.importTodos(Self.richTodos(30)).keys
        try await laptop.engine.edit(keys[7], TodoEdit(title: "Edited before it left"))
        await laptop.engine.sync(.localEdit)
        #expect(await laptop.engine.importHandOffsTaken == 0)
        #expect(try await laptop.store.todo(keys[7])?.title == "Edited before it left")
        try await Self.expectArrivesOnAnotherDevice(cloud, from: laptop)
    }

    @Test func anImportBehindQueuedEditsSendsEverything() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let laptop = try await cloud.device("laptop", sendsAutomatically: false)
        _ = try await laptop.engine.add(title: "Queued first")
        _ = try await laptop.engine.importTodos(Self.richTodos(20))
        await laptop.engine.sync(.localEdit)
        #expect(await laptop.engine.importHandOffsTaken == 0)
        #expect(try await laptop.titles().contains("Queued first"))
        try await Self.expectArrivesOnAnotherDevice(cloud, from: laptop)
    }
}
