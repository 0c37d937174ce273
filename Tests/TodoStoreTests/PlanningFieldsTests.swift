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
            let reopened = try await TodoStore(url: url)
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

    @Test func allDayDatesCachedByEarlierVersionsReadBackAsTheirDay() async throws {
        try await withTemporaryStore { store, url in
            // An earlier version cached 2026-12-10 all day as its local midnight: Tokyo's, New York's, Berlin's.
            let midnights: [String: Int64] = ["tokyo": 1_796_828_400_000, "newyork": 1_796_878_800_000, "berlin": 1_796_857_200_000]
            for (name, _) in midnights {
                var item = TodoItem(key: .privateTodo(name), title: name)
                item.due = DueDate.day(year: 2026, month: 12, day: 10)
                _ = try await store.saveLocalEdit(item, at: 1)
            }
            await store.close()
            try SQLiteDatabase.allowBlocking {
                let database = try SQLiteDatabase(path: url.path)
                for (name, moment) in midnights {
                    try database.run("UPDATE records SET due_date = ? WHERE record_name = ?", [.int(moment), .text(name)])
                }
            }
            let reopened = try await TodoStore(url: url)
            for (name, _) in midnights {
                let read = try #require(try await reopened.todo(.privateTodo(name)))
                #expect(read.due == DueDate.day(year: 2026, month: 12, day: 10), "\(name)")
                #expect(read.due?.text(in: PlanningFixtureZones.newYork) == "2026-12-10" && read.due?.text(in: PlanningFixtureZones.tokyo) == "2026-12-10")
                #expect(read.fields["dueDate"] == .timestamp(Date(timeIntervalSince1970: 1_796_860_800)), "sent in the new shape")
            }
        }
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
            let extra = #"{"tags":{"value":["garden"],"type":"STRING_LIST"},"allDay":{"value":0,"type":"INT64"},"mood":{"value":"sunny","type":"STRING"}}"#
            try SQLiteDatabase.allowBlocking {
                try SQLiteDatabase(path: url.path).run("UPDATE records SET extra_fields = ?1, due_date = 1790000000000", [.text(extra)])
            }
            let reopened = try await TodoStore(url: url)
            let read = try #require(try await reopened.todo(.privateTodo("older")))
            #expect(read.tags == ["garden"])
            #expect(read.due?.allDay == false)
            #expect(Set(read.extraFields.keys) == ["mood"], "only the field this build does not know stays kept")
        }
    }
}

/// Calendars of two zones for the cache's due-date tests.
enum PlanningFixtureZones {
    static let tokyo = zone("Asia/Tokyo")
    static let newYork = zone("America/New_York")

    static func zone(_ identifier: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier)!
        return calendar
    }
}
