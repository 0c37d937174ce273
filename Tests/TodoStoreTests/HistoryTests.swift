import CloudModel
import Foundation
import Testing
import TodoStore

/// The local history behind `todo info`: written with the change it records, from local edits and fetched changes,
/// and bounded.
@Suite("Local history") struct HistoryTests {
    @Test func fetchedChangesAndLocalEditsAreRecordedAndBounded() async throws {
        try await withTemporaryStore { store, _ in
            // A first fetch of the zone is the whole zone arriving: no history.
            try await store.applyZoneChanges(.privateTodos, records: [serverRecord("a", title: "Milk")], token: ChangeToken(rawValue: "z1"), moreComing: false)
            let key = RecordKey.privateTodo("a")
            #expect(try await store.history(of: key).isEmpty)
            // A later change is: which field, its new value, when and from which device.
            try await store.applyZoneChanges(
                .privateTodos, records: [serverRecord("a", title: "Oat milk", tag: "t2", modifiedAt: 2_000)], token: ChangeToken(rawValue: "z2"),
                moreComing: false)
            let fetched = try #require(try await store.history(of: key).first)
            #expect(fetched.changes == ["title: 'Oat milk'"] && fetched.device == "d1" && fetched.fromCloud && fetched.at == 2_000)
            // The same version again changes nothing and records nothing.
            try await store.applyZoneChanges(
                .privateTodos, records: [serverRecord("a", title: "Oat milk", tag: "t2", modifiedAt: 2_000)], token: ChangeToken(rawValue: "z3"),
                moreComing: false)
            #expect(try await store.history(of: key).count == 1)

            var item = try #require(try await store.todo(key))
            for number in 1...(TodoStore.historyPerRecord + 10) {
                item.priority = number % 4
                item.title = "Milk \(number)"
                item = try await store.saveLocalEdit(item, at: Int64(10_000 + number))
            }
            let history = try await store.history(of: key)
            #expect(history.count == TodoStore.historyPerRecord)
            #expect(history.first?.changes.contains("title: 'Milk \(TodoStore.historyPerRecord + 10)'") == true && history.first?.fromCloud == false)
            #expect(history.first?.device == nil)

            let fresh = TodoItem(key: .privateTodo("b"), title: "Bread")
            _ = try await store.saveLocalEdit(fresh, at: 50_000)
            #expect(try await store.history(of: .privateTodo("b")).first?.changes.first == "created")
        }
    }

    /// A zone arriving whole over several pages writes no history on any of them; the next fetch's changes do.
    @Test func aZoneArrivingOverSeveralPagesWritesNoHistory() async throws {
        try await withTemporaryStore { store, _ in
            var arriving = false
            for page in 0..<3 {
                let records = (0..<5).map { serverRecord("p\(page)-\($0)", title: "Todo \(page)-\($0)") }
                let applied = try await store.applyZoneChanges(
                    .privateTodos, records: records, token: ChangeToken(rawValue: "page\(page)"), moreComing: page < 2, arrivingWhole: arriving)
                #expect(applied.arrivedWhole)
                arriving = applied.arrivedWhole
            }
            for page in 0..<3 {
                for number in 0..<5 { #expect(try await store.history(of: .privateTodo("p\(page)-\(number)")).isEmpty) }
            }
            // The next fetch, into the zone now held: its changes and its new records are history.
            let later = try await store.applyZoneChanges(
                .privateTodos, records: [serverRecord("p2-4", title: "Renamed", tag: "t2", modifiedAt: 3_000), serverRecord("new", title: "New")],
                token: ChangeToken(rawValue: "later"), moreComing: false)
            #expect(!later.arrivedWhole)
            #expect(try await store.history(of: .privateTodo("p2-4")).first?.changes == ["title: 'Renamed'"])
            #expect(try await store.history(of: .privateTodo("new")).first?.changes.first == "created")
        }
    }
}
