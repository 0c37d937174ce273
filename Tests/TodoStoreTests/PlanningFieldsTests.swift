import CloudModel
import Foundation
import SQLiteDB
import Testing
import TodoPlanning
import TodoStore

/// Tags, due times, repeats and annotations: synced fields kept in the cache's own columns.
@Suite("Planning fields in the cache")
struct PlanningFieldsTests {
    static let hostile = ["a:b", "3:x", "", "🌱", "line\nbreak", "\u{1B}[31mred", "10:ten chars"]

    static func planned(_ name: String) -> TodoItem {
        var item = TodoItem(key: .privateTodo(name), title: "Water the garden")
        item.tags = ["garden", "home"] + hostile
        item.due = DueDate(Date(timeIntervalSince1970: 1_790_000_000), allDay: false)
        item.repeatRule = "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH"
        item.repeatFromCompletion = true
        item.series = "series-1"
        item.occurrence = 4
        item.annotations = [
            Annotation(entry: Date(timeIntervalSince1970: 1_780_000_000), text: "called Bob"),
            Annotation(entry: Date(timeIntervalSince1970: 1_780_000_100), text: "3:tricky\nlines 🌱"),
        ]
        return item
    }

    @Test func everyFieldSurvivesTheCacheAndTheWire() async throws {
        try await withTemporaryStore { store, url in
            let item = Self.planned("p1")
            _ = try await store.saveLocalEdit(item, at: 1)
            await store.close()
            let reopened = try TodoStore(url: url)
            let read = try #require(try await reopened.todo(item.key))
            #expect(read.tags == item.tags)
            #expect(read.due == item.due)
            #expect(read.repeatRule == item.repeatRule)
            #expect(read.repeatFromCompletion)
            #expect(read.series == "series-1")
            #expect(read.occurrence == 4)
            #expect(read.annotations == item.annotations)
            // And through the wire form a record carries.
            let back = TodoItem(record: read.record, scope: .private)
            #expect(back.fields == read.fields)
            #expect(back.tags == item.tags && back.annotations == item.annotations && back.due == item.due)
        }
    }

    @Test func aDueDateWithoutAllDayIsAWholeDayAsRecordsFromBeforeDueTimesAre() {
        let record = Record(
            recordName: "old", recordType: TodoSchema.todoType,
            fields: ["title": .string("Old"), "dueDate": .timestamp(1_790_000_000_000)])
        let item = TodoItem(record: record, scope: .private)
        #expect(item.due == DueDate(Date(timeIntervalSince1970: 1_790_000_000), allDay: true))
        #expect(item.fields["allDay"] == .int64(1))
    }

    @Test func illTypedOrForeignPlanningValuesAreKeptNotTrusted() {
        let record = Record(
            recordName: "odd", recordType: TodoSchema.todoType,
            fields: [
                "title": .string("Odd"), "tags": .string("not a list"), "occurrence": .int64(-5),
                "annotations": .list(.string, [.string("no time here"), .string("2026-02-30T10:00:00Z bad day"), .string("2026-02-27T10:00:00Z fine")]),
            ])
        let item = TodoItem(record: record, scope: .private)
        #expect(item.tags.isEmpty)
        #expect(item.extraFields["tags"] == .string("not a list"), "an ill-typed known field is kept as it came")
        #expect(item.occurrence == 1)
        #expect(item.annotations.map(\.text) == ["fine"])
    }

    @Test func rowsStoredByAnOlderBuildMoveTheirPlanningFieldsIntoColumnsWhenRead() async throws {
        try await withTemporaryStore { store, url in
            _ = try await store.saveLocalEdit(TodoItem(key: .privateTodo("older"), title: "From before"), at: 1)
            await store.close()
            // What a build without these columns wrote for a record another device had tagged: the fields wait in
            // the kept unknown fields.
            let database = try SQLiteDatabase(path: url.path)
            let extra = #"{"tags":{"value":["garden"],"type":"STRING_LIST"},"allDay":{"value":0,"type":"INT64"},"mood":{"value":"sunny","type":"STRING"}}"#
            try database.run("UPDATE records SET extra_fields = ?1, due_date = 1790000000000", [.text(extra)])
            let reopened = try TodoStore(url: url)
            let read = try #require(try await reopened.todo(.privateTodo("older")))
            #expect(read.tags == ["garden"])
            #expect(read.due?.allDay == false)
            #expect(Set(read.extraFields.keys) == ["mood"], "only the field this build does not know stays kept")
        }
    }
}
