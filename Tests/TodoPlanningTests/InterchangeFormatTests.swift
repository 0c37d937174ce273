import Foundation
import ProcessTestSupport
import TestSupport
import Testing

@testable import TodoPlanning

/// Shared by the interchange tests: a Berlin calendar (the fixtures were made there), fixture paths, scratch
/// directories and running the real tools.
enum InterchangeSupport {
    /// A Gregorian calendar in Europe/Berlin.
    static let berlin: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        return calendar
    }()

    /// Tests/TodoPlanningTests/Fixtures/<name>.
    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// A new empty directory under the temporary directory.
    static func scratch(_ label: String) throws -> URL {
        let url = ScratchDirectory.path("interchange-\(label)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The moment `text` (`YYYYMMDDTHHMMSSZ`) names.
    static func utc(_ text: String) -> Date {
        CompactTime.parse(text).flatMap { CompactTime.date($0, in: .gmt) } ?? .distantPast
    }

    /// The path of `name` on PATH, if any.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool` with `arguments` and extra `environment`; its exit status and standard output.
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String) {
        let result = try await ChildProcess.run(tool, arguments, environment: environment)
        return (result.status, result.output)
    }
}

@Suite("Interchange format detection")
struct InterchangeFormatTests {
    @Test("iCalendar is found past a byte-order mark, whitespace and any case")
    func detectsICalendar() {
        #expect(InterchangeFormat.detect(Array("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n".utf8)) == .ics)
        #expect(InterchangeFormat.detect([0xEF, 0xBB, 0xBF] + Array("\n  begin:vcalendar\n".utf8)) == .ics)
        #expect(InterchangeFormat.detect(Array("BEGIN:VCARD\r\n".utf8)) == nil)
        #expect(InterchangeFormat.detect(Array("BEGIN:VCALEND".utf8)) == nil)
    }

    @Test("Taskwarrior JSON needs description and one of uuid, entry or status")
    func detectsTaskwarrior() {
        let export = #"[\#n{"id":1,"description":"Renew passport","due":"20261209T230000Z","uuid":"c65619c6-acad-4ba2"}]"#
        #expect(InterchangeFormat.detect(Array(export.utf8)) == .taskwarrior)
        #expect(InterchangeFormat.detect(Array(#"{"status":"pending","description":"a"}"#.utf8)) == .taskwarrior)
        #expect(InterchangeFormat.detect(Array(#"  {"description":"a","entry":"20260101T000000Z"}\#n{"x":1}"#.utf8)) == .taskwarrior)
        #expect(InterchangeFormat.detect(Array(#"[{"description":"only"}]"#.utf8)) == nil)
    }

    @Test("Only the first object's own keys count; nested and value strings do not")
    func firstObjectKeysOnly() {
        #expect(InterchangeFormat.detect(Array(#"[{"title":"Milk","tags":["a"]}]"#.utf8)) == .json)
        #expect(InterchangeFormat.detect(Array(#"[{"name":"x","meta":{"title":"nested"}}]"#.utf8)) == nil)
        #expect(InterchangeFormat.detect(Array(#"[{"name":"title","other":"description"}]"#.utf8)) == nil)
        #expect(InterchangeFormat.detect(Array(#"[{"a":"q\"uuid","title":"x"},{"description":"d","uuid":"u"}]"#.utf8)) == .json)
        #expect(InterchangeFormat.firstObjectKeys(Array(#"{"a":[1,{"b":2}],"c":"d\\","e":null}"#.utf8)) == ["a", "c", "e"])
    }

    @Test("Empty, binary and plain text give nil")
    func detectsNothing() {
        #expect(InterchangeFormat.detect([UInt8]()) == nil)
        #expect(InterchangeFormat.detect(Array(" \n\t".utf8)) == nil)
        #expect(InterchangeFormat.detect([0xFF, 0xFE, 0x00, 0x42]) == nil)
        #expect(InterchangeFormat.detect(Array("[]".utf8)) == nil)
        #expect(InterchangeFormat.detect(Array("todo: buy milk".utf8)) == nil)
        #expect(InterchangeFormat.detect(Array(repeating: UInt8(0x5B), count: 100_000)) == nil)
    }

    @Test("--format names, any case")
    func names() {
        #expect(InterchangeFormat(name: "ics") == .ics)
        #expect(InterchangeFormat(name: "TaskWarrior") == .taskwarrior)
        #expect(InterchangeFormat(name: " json ") == .json)
        #expect(InterchangeFormat(name: "csv") == nil)
        #expect(InterchangeFormat(name: "") == nil)
        #expect(InterchangeFormat.allCases.map(\.rawValue) == ["ics", "taskwarrior", "json"])
    }

    @Test("Hostile input never crashes a reader, and extreme values never crash a writer")
    func hostileInput() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
        let pieces = [
            "BEGIN:VCALENDAR", "BEGIN:VTODO", "END:VTODO", "END:VCALENDAR", "DUE;VALUE=DATE:", "DUE;TZID=\"", "20261301", "T",
            "\r\n", "\n ", "\n\t", ":", ";", ",", "\\", "\"", "SUMMARY:", "CATEGORIES:", "{", "}", "[", "]", "\"due\":",
            "\"description\"", "\"uuid\":", "\u{0}", "\u{7}", "🌷", "\u{FEFF}", "99999999T999999Z", "UID:", "RRULE:FREQ=",
        ]
        let calendar = InterchangeSupport.berlin
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int(next() % 40) { text += pieces[Int(next() % UInt64(pieces.count))] }
            let bytes = Array(text.utf8) + (0..<Int(next() % 4)).map { _ in UInt8(truncatingIfNeeded: next()) }
            _ = InterchangeFormat.detect(bytes)
            _ = try? ICalendar.decode("BEGIN:VCALENDAR\r\n" + String(decoding: bytes, as: UTF8.self), calendar: calendar)
            _ = try? TaskwarriorJSON.decode(Data(bytes), calendar: calendar)
        }
        let deep = Data(repeating: 0x5B, count: 100_000)
        #expect(throws: TaskwarriorJSONError.self) { try TaskwarriorJSON.decode(deep, calendar: calendar) }
        let nested = "BEGIN:VCALENDAR\n" + String(repeating: "BEGIN:X\n", count: 100)
        #expect(throws: ICalendarError.self) { try ICalendar.decode(nested, calendar: calendar) }
        let extremes = [Date(timeIntervalSince1970: 1e300), Date(timeIntervalSince1970: -1e300), Date(timeIntervalSince1970: .nan)]
        let todos = extremes.map {
            PortableTodo(
                uid: "x", title: "t", due: DueDate($0, allDay: true), repeatRule: "FREQ=WEEKLY;BYDAY=MO", isCompleted: true, completedAt: $0,
                created: $0, modified: $0, annotations: [Annotation(entry: $0, text: "a")])
        }
        let ics = ICalendar.encode(todos, calendar: calendar, includeList: true, now: extremes[0])
        #expect(try ICalendar.decode(ics, calendar: calendar).todos.map(\.due) == [nil])
        #expect(TaskwarriorJSON.encode(todos, calendar: calendar, now: extremes[0]).text.contains("\"due\"") == false)
    }
}
