import Foundation
import Testing

@testable import TodoPlanning

@Suite("iCalendar VTODO files")
struct ICalendarTests {
    let calendar = InterchangeSupport.berlin
    let utc = InterchangeSupport.utc

    /// A todo using every field.
    var full: PortableTodo {
        PortableTodo(
            uid: "rec-1", title: "Buy milk; eggs, bread", notes: "Line 1\nLine 2", tags: ["shop", "a,b"],
            due: DueDate(utc("20261201T083000Z"), allDay: false), repeatRule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO",
            repeatFromCompletion: true, priority: 3, isCompleted: true, completedAt: utc("20260503T120000Z"),
            created: utc("20260501T093000Z"), modified: utc("20260502T100000Z"), listName: "Home",
            annotations: [Annotation(entry: utc("20260501T093000Z"), text: "called, no answer")])
    }

    @Test("Every field is written as RFC 5545 says, CRLF line ends")
    func encodesEveryField() throws {
        let text = ICalendar.encode([full], calendar: calendar, includeList: true)
        let expected = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CloudTodo//todo//EN", "BEGIN:VTODO", "UID:rec-1", "DTSTAMP:20260502T100000Z",
            "SUMMARY:Buy milk\\; eggs\\, bread", "DESCRIPTION:Line 1\\nLine 2", "DUE:20261201T083000Z",
            "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", "CATEGORIES:shop,a\\,b", "PRIORITY:1", "STATUS:COMPLETED",
            "COMPLETED:20260503T120000Z", "CREATED:20260501T093000Z", "LAST-MODIFIED:20260502T100000Z",
            "COMMENT:2026-05-01T09:30:00Z called\\, no answer", "X-CLOUDTODO-LIST:Home", "X-CLOUDTODO-REPEAT-FROM:COMPLETION",
            "END:VTODO", "END:VCALENDAR",
        ].map { $0 + "\r\n" }.joined()
        #expect(text == expected)
        let back = try ICalendar.decode(text, calendar: calendar)
        #expect(back.todos == [full])
        #expect(back.warnings == [])
    }

    @Test("All-day due dates are floating calendar dates; the list only when asked; minimal todos")
    func encodesAllDayWithoutList() throws {
        let day = DueDate.day(utc("20261130T230000Z"), in: calendar)
        let todo = PortableTodo(uid: "d", title: "Day", due: day, priority: 2, listName: "Home")
        let text = ICalendar.encode([todo], calendar: calendar, includeList: false, now: utc("20260101T000000Z"))
        #expect(text.contains("\r\nDUE;VALUE=DATE:20261201\r\n"))
        #expect(text.contains("\r\nDTSTAMP:20260101T000000Z\r\n"))
        #expect(text.contains("\r\nPRIORITY:5\r\n\(ICalendarTests.needsAction)"))
        #expect(!text.contains("X-CLOUDTODO-LIST") && !text.contains("DESCRIPTION") && !text.contains("CATEGORIES"))
        let back = try ICalendar.decode(text, calendar: calendar).todos
        var expected = todo
        expected.listName = nil
        #expect(back == [expected])
        #expect(back.first?.due?.date == utc("20261201T000000Z"), "00:00 UTC of the day: the same day in every zone")
    }

    static let needsAction = "STATUS:NEEDS-ACTION\r\n"

    @Test("Priority 0-3 maps to none, 9, 5, 1 and back")
    func priorities() throws {
        let todos = (0...3).map { PortableTodo(uid: "p\($0)", title: "P", priority: $0) }
        let text = ICalendar.encode(todos, calendar: calendar, includeList: false, now: .distantPast)
        #expect(text.components(separatedBy: "PRIORITY:").count == 4)
        #expect(try ICalendar.decode(text, calendar: calendar).todos.map(\.priority) == [0, 1, 2, 3])
    }

    @Test("TEXT escaping: backslash, semicolon, comma, line breaks; control characters dropped")
    func escaping() {
        #expect(ICalendar.escape("a\\b;c,d\ne\r\nf\rg\u{7}h\u{0}\ti\u{7F}") == "a\\\\b\\;c\\,d\\ne\\nf\\ngh\ti")
        #expect(ICalendar.unescape("a\\\\b\\;c\\,d\\ne\\Nf\\:g\\x\u{1}") == "a\\b;c,d\ne\nf:g\\x")
        #expect(ICalendar.unescape("trailing\\") == "trailing\\")
        #expect(ICalendar.splitList("a,b\\,c,,d\\\\,e") == ["a", "b\\,c", "", "d\\\\", "e"])
    }

    @Test("Lines fold at 75 octets without splitting a UTF-8 sequence, and unfold back")
    func folding() throws {
        let title = String(repeating: "aé🌷中", count: 40) + String(repeating: "x", count: 80)
        var bytes: [UInt8] = []
        ICalendar.appendFolded("SUMMARY:" + title, to: &bytes)
        let physical = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n").dropLast()
        #expect(physical.count > 5)
        for (index, line) in physical.enumerated() {
            #expect(line.utf8.count <= 75)
            #expect(index == 0 || line.hasPrefix(" "))
        }
        var lineStart = 0
        for index in bytes.indices where bytes[index] == 0x0A {
            #expect(String(validating: bytes[lineStart...index], as: UTF8.self) != nil)
            lineStart = index + 1
        }
        let lines = ICalendar.contentLines(String(decoding: bytes, as: UTF8.self))
        #expect(lines.map(\.value) == [title])
    }

    /// A file from elsewhere: LF line ends, lowercase names, parameters, time zones, several calendars.
    static let foreign = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//Other//EN
        BEGIN:VTIMEZONE
        TZID:Europe/Berlin
        END:VTIMEZONE
        BEGIN:VEVENT
        UID:event-1
        SUMMARY:Not a todo
        END:VEVENT
        begin:vtodo
        uid:t-1
        summary;language=en:Long title that is fol
        \tded with a tab
        dUE;TZID="Europe/Berlin":20261201T083000
        CATEGORIES:a,b\\,c
        CATEGORIES:d
        PRIORITY:2
        X-UNKNOWN;X-P="a:b;c":whatever
        BEGIN:VALARM
        ACTION:DISPLAY
        DESCRIPTION:alarm text
        TRIGGER:-PT15M
        END:VALARM
        END:VTODO
        END:VCALENDAR
        BEGIN:VCALENDAR
        BEGIN:VTODO
        UID:t-2
        SUMMARY:Floating
        DUE:20261201T083000
        STATUS:CANCELLED
        PRIORITY:5
        END:VTODO
        BEGIN:VTODO
        UID:t-3
        SUMMARY:Unknown zone
        DUE;TZID=Mars/Olympus:20261201T083000
        PRIORITY:7
        COMPLETED:20261102T100000Z
        END:VTODO
        BEGIN:VTODO
        UID:t-4
        SUMMARY:Bad due
        DUE:2026-13-01
        END:VTODO
        BEGIN:VTODO
        SUMMARY:No uid
        DUE;VALUE=DATE:20261224
        PRIORITY:0
        END:VTODO
        BEGIN:VTODO
        UID:t-6
        SUMMARY:Mozilla zone
        DUE;TZID=/mozilla.org/20050126_1/America/New_York:20261201T083000
        END:VTODO
        END:VCALENDAR

        """

    @Test("Foreign files: unfolding, parameters, time zones, statuses, priorities, skipped components, line-numbered warnings")
    func decodesForeignFile() throws {
        let result = try ICalendar.decode(Self.foreign, calendar: calendar)
        #expect(result.todos.map(\.uid).filter { $0.hasPrefix("t-") } == ["t-1", "t-2", "t-3", "t-6"])
        #expect(result.todos.count == 5)
        let byTitle = Dictionary(result.todos.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
        let first = try #require(byTitle["Long title that is folded with a tab"])
        #expect(first.due == DueDate(utc("20261201T073000Z"), allDay: false))
        #expect(first.tags == ["a", "b,c", "d"])
        #expect(first.priority == 3)
        #expect(first.notes == "")
        #expect(!first.isCompleted)
        let floating = try #require(byTitle["Floating"])
        #expect(floating.due == DueDate(utc("20261201T073000Z"), allDay: false))
        #expect(floating.isCompleted && floating.completedAt == nil && floating.priority == 2)
        let unknown = try #require(byTitle["Unknown zone"])
        #expect(unknown.due == DueDate(utc("20261201T073000Z"), allDay: false))
        #expect(unknown.isCompleted && unknown.completedAt == utc("20261102T100000Z") && unknown.priority == 1)
        let noUID = try #require(byTitle["No uid"])
        #expect(noUID.due == DueDate(utc("20261223T230000Z"), allDay: true))
        #expect(noUID.priority == 0)
        #expect(noUID.uid.count == 36)
        #expect(byTitle["Mozilla zone"]?.due == DueDate(utc("20261201T133000Z"), allDay: false))
        #expect(byTitle["Not a todo"] == nil && byTitle["Bad due"] == nil)
        #expect(
            result.warnings == [
                "line 32: the todo 'Floating' was cancelled; it was read as completed.",
                "line 38: time zone 'Mars/Olympus' is unknown; times in it were read in Europe/Berlin.",
                "line 45: DUE value '2026-13-01' is not a date (YYYYMMDD or YYYYMMDDTHHMMSS, optionally ending in Z); the todo was skipped.",
            ])
        // The derived UID depends only on the content: the same file gives the same one, a changed todo another.
        let again = try ICalendar.decode(Self.foreign.replacingOccurrences(of: "\n", with: "\r\n"), calendar: calendar)
        #expect(again.todos.first { $0.title == "No uid" }?.uid == noUID.uid)
        let changed = try ICalendar.decode(Self.foreign.replacingOccurrences(of: "No uid", with: "No UID"), calendar: calendar)
        #expect(changed.todos.first { $0.title == "No UID" }?.uid != noUID.uid)
    }

    @Test("Broken structure: unclosed todos, stray ENDs, duplicate UIDs, occurrence overrides")
    func brokenStructure() throws {
        let text = [
            "BEGIN:VCALENDAR", "END:VEVENT", "BEGIN:VTODO", "UID:a", "SUMMARY:First", "END:VTODO", "BEGIN:VTODO", "UID:a",
            "SUMMARY:Again", "END:VTODO", "BEGIN:VTODO", "UID:a", "RECURRENCE-ID:20260101T000000Z", "END:VTODO", "BEGIN:VTODO",
            "UID:b", "PRIORITY:high", "garbage line", "CREATED:yesterday", "SUMMARY:Ok", "END:VTODO", "BEGIN:VTODO", "UID:c", "SUMMARY:Cut",
        ].joined(separator: "\r\n")
        let result = try ICalendar.decode(text, calendar: calendar)
        #expect(result.todos.map(\.title) == ["First", "Ok"])
        #expect(
            result.warnings == [
                "line 2: END:VEVENT has no matching BEGIN; it was ignored.",
                "line 7: a second VTODO with UID 'a'; only the first was kept.",
                "line 13: the VTODO from line 11 changes one occurrence of a repeating todo; it was skipped.",
                "line 17: PRIORITY value 'high' is not a number 0-9; it was ignored.",
                "line 18: 'garbage line' is not a NAME:value line; it was ignored.",
                "line 19: CREATED value 'yesterday' is not a date and time; it was ignored.",
                "line 22: the VTODO starting here is not closed by END:VTODO; it was skipped.",
            ])
    }

    @Test("Text that is not iCalendar is refused in words")
    func notICalendar() {
        #expect(throws: ICalendarError(description: "This is not an iCalendar file: line 2 should be BEGIN:VCALENDAR.")) {
            try ICalendar.decode("\nBEGIN:VCARD\nEND:VCARD\n", calendar: calendar)
        }
        #expect(throws: ICalendarError(description: "The text is empty; an iCalendar file starts with BEGIN:VCALENDAR.")) {
            try ICalendar.decode("\u{FEFF}\r\n\r\n", calendar: calendar)
        }
        #expect((try? ICalendar.decode("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", calendar: calendar))?.todos == [])
    }

    @Test("Unicode, escapes, long lines, multi-line notes and injected structure survive a round trip")
    func hostileRoundTrip() throws {
        let long = String(repeating: "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich 🥊 ", count: 5)
        let todo = PortableTodo(
            uid: "rec-ü;,\\ x", title: "Ünïcødé 🌷👩‍👩‍👧 ; semi, comma \\ back \"quote\" " + long,
            notes: "first line\nsecond; line, with\\ backslash\n\nEND:VTODO\nBEGIN:VTODO\nUID:evil\n" + long,
            tags: ["a,b", "c;d", "e\\f", "ü 🌷"], due: .day(utc("20261224T120000Z"), in: calendar),
            repeatRule: "FREQ=MONTHLY;BYMONTHDAY=24", priority: 1, created: utc("20260101T000001Z"), modified: utc("20260102T000002Z"),
            listName: "Liste; eins, zwei", annotations: [Annotation(entry: utc("20260103T000003Z"), text: "multi\nline, note \\;")])
        let text = ICalendar.encode([todo, full], calendar: calendar, includeList: true)
        for line in text.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 75) }
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        let back = try ICalendar.decode(text, calendar: calendar)
        #expect(back.todos == [todo, full])
        #expect(back.warnings == [])

        var controls = todo
        controls.title = "bell\u{7}nul\u{0}esc\u{1B}[31m cr\rlf\n"
        controls.notes = "windows\r\nline\rends\u{7F}"
        let cleaned = try ICalendar.decode(ICalendar.encode([controls], calendar: calendar, includeList: true), calendar: calendar)
        #expect(cleaned.todos.map(\.title) == ["bellnulesc[31m cr\nlf\n"])
        #expect(cleaned.todos.map(\.notes) == ["windows\nline\nends"])
    }

    @Test("Time values: compact and extended forms, real days only")
    func times() {
        #expect(CompactTime.parse("20260229") == nil)
        #expect(CompactTime.parse("20240229")?.day == 29)
        #expect(CompactTime.parse("2026-13-01") == nil)
        #expect(CompactTime.parse("20261201T250000Z") == nil)
        #expect(CompactTime.parse("20261201T083000X") == nil)
        #expect(CompactTime.parse("2026-12-01T08:30:00Z") == CompactTime.parse("20261201T083000Z"))
        #expect(CompactTime.parse("20261201T083000Z").map { $0.utc && $0.hasTime && $0.minute == 30 } == true)
        #expect(CompactTime.utcText(utc("19691231T235959Z")) == "19691231T235959Z")
        #expect(CompactTime.utcText(utc("99991231T235959Z")) == "99991231T235959Z")
        #expect(CompactTime.utcText(Date(timeIntervalSince1970: .infinity)) == nil)
        #expect(CompactTime.utcText(.distantFuture) == "40010101T000000Z")
        #expect(CompactTime.utcText(Date(timeIntervalSince1970: 1e15)) == nil)
        for seconds in stride(from: -5_000_000_000, to: 5_000_000_000, by: 86_399 * 97) {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(CompactTime.utcText(date).map(utc) == date)
        }
        // Against Foundation's own calendar (Gregorian from 1583 on, where its calendar stops being Julian), appended
        // after what the buffer already holds.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var seed: UInt64 = 0xDA7E_5EED
        for round in 0..<3_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = round == 0 ? 253_402_300_799 : -12_212_553_600 + Int64(seed >> 20) % 265_614_854_399
            let date = Date(timeIntervalSince1970: Double(seconds))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = [(parts.year!, 4), (parts.month!, 2), (parts.day!, 2)].map { pad($0.0, $0.1) }.joined() + "T"
                + [parts.hour!, parts.minute!, parts.second!].map { pad($0, 2) }.joined() + "Z"
            var bytes = Array("x".utf8)
            #expect(CompactTime.appendUTC(date, to: &bytes))
            #expect(String(decoding: bytes, as: UTF8.self) == "x" + expected, "\(seconds)")
        }
    }

    /// `value`'s decimal digits after as many zeros as make `width`.
    private func pad(_ value: Int, _ width: Int) -> String {
        String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
    }

    @Test("Derived identifiers are standard version 5 UUIDs")
    func stableIDs() {
        let dns: [UInt8] = [0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8]
        #expect(StableID.uuid("www.example.com", namespace: dns) == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
        #expect(StableID.uuid("rec-1") == "efe23e85-ee4b-51e0-93c2-e456b51f1622")
        let hex = { (bytes: [UInt8]) in bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined() }
        #expect(hex(StableID.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(StableID.sha1(Array(repeating: 0x61, count: 1000))) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
    }
}
