import CloudModel
import Foundation
import TestSupport
import Testing
import TodoPlanning
import TodoStore

/// Reads of many rows make what rows repeat (list and parent references, tag lists, names) once per read, and
/// `todo next` reads only the listing columns: both must give what a read of one whole row gives.
@Suite("Reads of many rows against reads of one", .onThreadOfItsOwn)
struct ListingReadTests {
    /// Todos in three lists and none, with tags, annotations and issue 27's dates, some done or trashed; and records
    /// from another device, with system fields, in lists, or with fields this build does not know.
    private static func fill(_ store: TodoStore) async throws {
        let lists = ["list-home", "list-work", "list-\u{5199}\u{5468}\u{62A5}", nil]
        let tags = [["home"], ["home", "garden"], [], ["work", "call", "next"]]
        let start = Date(timeIntervalSince1970: 1_773_309_600)
        let local = (0..<120).map { index in
            var item = TodoItem(key: .privateTodo(String(format: "local-%03d", index)), title: "Todo \(index)")
            item.setList(lists[index % lists.count])
            if index % 7 == 3 { item.list = nil }  // a parent without the list field, as an older record may have it
            item.tags = tags[index % tags.count]
            item.due = index % 3 == 0 ? nil : DueDate(start.addingTimeInterval(Double(index) * 3_600), allDay: index % 2 == 0)
            item.priority = index % 4
            item.isCompleted = index % 5 == 1
            item.isTrashed = index % 11 == 4
            if index % 6 == 2 { item.annotations = [Annotation(entry: start, text: "called \(index)")] }
            if index % 8 == 5 { item.wait = start.addingTimeInterval(86_400) }
            if index % 9 == 4 { item.scheduled = start }
            if index % 10 == 6 { item.start = start }
            if index % 13 == 7 { item.until = start.addingTimeInterval(7 * 86_400) }
            if index % 12 == 1 { item.depends = [String(format: "local-%03d", index + 1)] }
            if index % 10 == 0 { item.repeatRule = "FREQ=WEEKLY" }
            if index % 4 == 1 { item.notes = "notes of \(index)" }
            return item
        }
        try await store.addLocalRecords(local, at: 1)
        let remote = (0..<30).map { index in
            var record = serverRecord(
                "remote-\(index)", title: "Remote \(index)",
                extra: index % 3 == 0
                    ? ["futureField": .string("x"), "tags": .list(.string, [.string("home")])]
                    : ["list": .reference(Reference(recordName: lists[index % 3] ?? "none", action: ReferenceAction.none))])
            record.parent = index % 3 == 1 ? ParentReference(recordName: lists[index % 3] ?? "none") : nil
            record.created = RecordStamp(timestamp: 500 + Int64(index), userRecordName: "_u\(index % 2)", deviceID: index % 4 == 0 ? nil : "d\(index % 3)")
            return record
        }
        try await store.applyZoneChanges(.privateTodos, records: remote, token: nil, moreComing: false)
    }

    @Test func eachReadOfManyRowsGivesWhatAReadOfOneGives() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store)
            let all = try await store.todos(in: .private, includeTrashed: true)
            #expect(all.count == 150)
            #expect(Set(all.compactMap(\.listName)).count == 3)
            for item in all { #expect(try await store.todo(item.key) == item, "\(item.key.recordName)") }
            let matching = try await store.todos(matching: TodoQuery(scope: .private, includeTrashed: true))
            #expect(Set(matching) == Set(all))
            let mapped = try await store.mapTodos(matching: TodoQuery(scope: .private, includeTrashed: true)) { $0 }
            #expect(Set(mapped) == Set(all))
            let byKey = try await store.mapTodos(keys: all.map(\.key)) { $0 }
            #expect(byKey.values == all && byKey.absent.isEmpty)
            // In chunks, as the app reads its rows (trashed ones are not rows).
            var chunked: [TodoItem] = []
            var after: RecordKey?
            while true {
                let chunk = try await store.mapTodos(in: .private, after: after, limit: 7) { $0 }
                chunked += chunk.values
                guard !chunk.isComplete, let last = chunk.last else { break }
                after = last
            }
            #expect(Set(chunked) == Set(all.filter { !$0.isTrashed }))
        }
    }

    @Test func listingItemsCarryWhatFiltersUrgencyAndOrdersRead() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store)
            let whole = Dictionary(uniqueKeysWithValues: try await store.todos(in: .private, includeTrashed: true).map { ($0.key, $0) })
            for query in [
                TodoQuery(scope: .private, includeTrashed: true, fields: .listing),
                TodoQuery(scope: .private, openOnly: true, visibleAt: Date(timeIntervalSince1970: 1_773_309_600), fields: .listing),
            ] {
                let listed = try await store.mapTodos(matching: query) { $0 }
                #expect(!listed.isEmpty)
                for item in listed {
                    guard let full = whole[item.key] else {
                        Issue.record("\(item.key.recordName) read by the listing only")
                        continue
                    }
                    #expect(item.recordType == full.recordType && item.title == full.title && item.notes == full.notes)
                    #expect(item.isCompleted == full.isCompleted && item.isTrashed == full.isTrashed && item.priority == full.priority)
                    #expect(item.due == full.due && item.listName == full.listName && item.list == full.list && item.parent == full.parent)
                    #expect(item.tags == full.tags && item.repeatRule == full.repeatRule && item.annotations == full.annotations)
                    #expect(item.wait == full.wait && item.scheduled == full.scheduled && item.until == full.until && item.start == full.start)
                    #expect(item.depends == full.depends && item.system.created?.timestamp == full.system.created?.timestamp)
                    // Rows whose fields wait in `extra_fields` are read whole.
                    if !full.extraFields.isEmpty { #expect(item == full) }
                }
            }
        }
    }

    @Test func listingFactsAreWhatTheWholeTodoGives() async throws {
        try await withTemporaryStore { store, _ in
            try await Self.fill(store)
            let whole = Dictionary(uniqueKeysWithValues: try await store.todos(in: .private, includeTrashed: true).map { ($0.key.recordName, $0) })
            @Sendable func same(_ facts: ListingFacts, _ name: String) -> Bool {
                guard let item = whole[name] else { return false }
                let expected = ListingFacts(item)
                return facts.due == expected.due && facts.priority == expected.priority && facts.tags == expected.tags
                    && facts.annotationCount == expected.annotationCount && facts.created == expected.created && facts.inList == expected.inList
                    && facts.start == expected.start && facts.scheduled == expected.scheduled && facts.wait == expected.wait
                    && facts.until == expected.until && facts.depends == expected.depends
            }
            let query = TodoQuery(scope: .private, includeTrashed: true, fields: .listing)
            // A prefilter refusing rows whose facts differ from the whole todo's: every row must come through.
            let admitted = try await store.mapTodos(matching: query, prefilter: { facts, name in same(facts, name()) }) { $0.key.recordName }
            #expect(Set(admitted) == Set(whole.keys.filter { whole[$0]?.recordType == TodoSchema.todoType }))
            let none = try await store.mapTodos(matching: query, prefilter: { _, _ in false }) { $0.key.recordName }
            #expect(none.isEmpty)
        }
    }
}
