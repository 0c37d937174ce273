import Foundation
import Testing
import TodoPlanning
import TodoApp
import TodoSync

/// `todo import`'s file: read whole and checked before anything is stored.
@Suite("The import file")
struct ImportFileTests {
    struct Unreadable: Error, CustomStringConvertible {
        var description: String { "cannot read the date" }
    }

    /// Reads `yyyy-mm-dd` as that day at 00:00 UTC, refuses anything else; counts its calls.
    final class Dates: @unchecked Sendable {
        var calls = 0
        func read(_ text: String) throws -> DueDate? {
            calls += 1
            if text == "none" { return nil }
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3 else { throw Unreadable() }
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            return utc.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])).map { DueDate($0, allDay: true) }
        }
    }

    static func parse(_ text: String, _ dates: Dates = Dates()) throws -> TodoImportFile.Contents {
        try TodoImportFile.parse(Array(text.utf8), dueDate: dates.read)
    }

    @Test func readsEveryFieldInFileOrder() throws {
        let dates = Dates()
        let contents = try Self.parse(
            """
            [{"title": "Buy milk", "notes": "2 litres", "due": "2026-03-01", "priority": 2, "done": true, "extra": [1]},
             {"title": "写周报"}, {"title": "  "}, {"title": "Pay rent", "due": "2026-03-01", "priority": 9},
             {"title": "Call mom", "priority": -4, "due": null, "notes": null, "done": false}, {"title": "Plan", "priority": 1.0}]
            """, dates)
        #expect(contents.todos.map(\.title) == ["Buy milk", "写周报", "Pay rent", "Call mom", "Plan"])
        #expect(contents.skippedUntitled == 1)
        let first = contents.todos[0]
        #expect(first.notes == "2 litres" && first.priority == 2 && first.isCompleted)
        #expect(first.due == DueDate(Date(timeIntervalSince1970: 1_772_323_200), allDay: true))
        #expect(contents.todos[2].priority == 3 && contents.todos[3].priority == 0, "priorities are clamped to 0-3")
        #expect(contents.todos[2].due == first.due)
        #expect(dates.calls == 1, "a date text repeated is read once")
        #expect(contents.todos[4].priority == 1)
    }

    @Test(arguments: [
        ("", "not valid JSON"),
        ("{\"title\": \"x\"}", "not a JSON list"),
        ("[{\"title\": \"x\"}, 3]", "entry 2 is not an object"),
        ("[{\"notes\": \"no title\"}]", "entry 1 has no \"title\""),
        ("[{\"title\": 5}]", "entry 1: \"title\" must be text"),
        ("[{\"title\": \"x\"}, {\"title\": \"y\", \"priority\": \"high\"}]", "entry 2: \"priority\" must be a whole number"),
        ("[{\"title\": \"x\", \"done\": 1}]", "entry 1: \"done\" must be true or false"),
        ("[{\"title\": \"x\", \"due\": \"someday\"}]", "entry 1: cannot read the date"),
        ("[{\"title\": \"x\"}] trailing", "not valid JSON"),
        (String(repeating: "[", count: 200), "not valid JSON"),
        // Read element by element: a repeated member's last value counts, as in a tree of the file.
        ("[{\"title\": \"x\", \"title\": 5}]", "entry 1: \"title\" must be text"),
        ("\n [ {\"title\": \"x\", \"extra\": {\"deep\": [1, {\"a\": null}]}} , 7 ]", "entry 2 is not an object"),
        (" true", "not a JSON list"),
        ("{\"title\": ", "not valid JSON"),
        ("[{\"title\": \"x\"}", "not valid JSON"),
        ("[{\"title\": \"x\"},]", "not valid JSON"),
    ])
    func aWrongFileIsRefusedWholeNamingTheEntry(text: String, message: String) {
        #expect {
            _ = try Self.parse(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        var bytes = Array("[{\"title\": \"caf".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\"}]".utf8)
        #expect(throws: TodoImportFile.FormatError.self) { _ = try TodoImportFile.parse(bytes, dueDate: { _ in nil }) }
    }
}
