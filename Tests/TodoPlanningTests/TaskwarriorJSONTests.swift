import Foundation
import TestSupport
import Testing

@testable import TodoPlanning

@Suite("Taskwarrior JSON")
struct TaskwarriorJSONTests {
    let calendar = InterchangeSupport.berlin
    let utc = InterchangeSupport.utc

    @Test("A real `task export` (Taskwarrior 2.6.2 in Europe/Berlin) reads exactly")
    func readsFixture() throws {
        let data = try Data(contentsOf: InterchangeSupport.fixture("taskwarrior/export.json"))
        let result = try TaskwarriorJSON.decode(data, calendar: calendar)
        let made = utc("20261127T092135Z")
        let later = utc("20261127T092136Z")
        // The waiting task keeps its wait (Taskwarrior writes `status: pending` with a `wait` in its future).
        var someday = PortableTodo(uid: "5f7f7d10-57f5-40a8-99ef-bf92778acda9", title: "Someday sort photos", created: later, modified: later)
        someday.wait = utc("20261231T230000Z")
        let expected = [
            PortableTodo(
                uid: "c65619c6-acad-4ba2-85b0-6ddd875a7780", title: "Renew passport", tags: ["errand", "gov"],
                due: DueDate(utc("20261209T230000Z"), allDay: true), priority: 3, created: made, modified: made, listName: "Admin"),
            PortableTodo(
                uid: "dfee0dd3-510d-43e4-b6df-10f5bd4461cb", title: "Dentist appointment",
                due: DueDate(utc("20261203T131500Z"), allDay: false), priority: 2, created: made, modified: made, listName: "Health"),
            PortableTodo(
                uid: "f6373103-a6a9-4ec9-8cf3-042006b2a722", title: "Review PR #42; check \"edge, cases\"", tags: ["review"], priority: 1,
                created: made, modified: made, listName: "Work.Code",
                annotations: [Annotation(entry: made, text: "Asked Sam for a second look")]),
            someday,
            PortableTodo(
                // Instance 0 of a template made in Taskwarrior: occurrence 1 of the series the template's uuid names.
                uid: "1ca7a384-8d12-46ca-970a-fa095d22495f", title: "Water plants", tags: ["home"],
                due: DueDate(utc("20261130T230000Z"), allDay: true), repeatRule: "FREQ=WEEKLY;INTERVAL=2", created: later, modified: made),
            PortableTodo(
                uid: "1ba149e9-fa75-45e2-bb77-f1dec0865507", title: "Buy milk ü 🥛", tags: ["shopping"], isCompleted: true,
                completedAt: later, created: later, modified: later),
        ]
        #expect(result.todos == expected)
        #expect(result.warnings == ["1 deleted task was skipped."])
    }

    @Test("One object per line, numbers as epoch seconds, uid from cloudtodo_uid, bad lines and fields named")
    func readsLines() throws {
        let text = """
            {"uuid":"AAAAAAAA-0000-4000-8000-000000000001","description":"one","status":"waiting","due":1796110200}
            not json
            {"uuid":"u2","cloudtodo_uid":"rec-2","description":"two","status":"completed","priority":"x","due":"20261201T000000"}

            {"uuid":"u3","description":"three","due":"someday"}
            {"uuid":"u4","description":"four","status":"archived"}
            {"uuid":"u5","description":"five","recur":"3h","due":"20261201T080000Z","entry":"yesterday","cloudtodo_notes":"n\\n2"}
            {"uuid":"u6","description":"six","recur":"P1M","due":"20261201T080000Z","rtype":"chained","tags":["a",1,"a","b"]}
            """
        let result = try TaskwarriorJSON.decode(Data(text.utf8), calendar: calendar)
        #expect(result.todos.map(\.uid) == ["aaaaaaaa-0000-4000-8000-000000000001", "rec-2", "u5", "u6"])
        #expect(result.todos[0].due == DueDate(utc("20261201T073000Z"), allDay: false))
        #expect(result.todos[1].isCompleted && result.todos[1].completedAt == nil)
        #expect(result.todos[1].due == DueDate(utc("20261130T230000Z"), allDay: true))
        #expect(result.todos[2].repeatRule == nil && result.todos[2].created == nil && result.todos[2].notes == "n\n2")
        #expect(result.todos[3].repeatRule == "FREQ=MONTHLY" && result.todos[3].repeatFromCompletion && result.todos[3].tags == ["a", "b"])
        #expect(
            result.warnings == [
                "line 2: is not a JSON object; it was skipped.",
                "line 3: priority 'X' is not H, M or L; it was ignored.",
                "line 5: due 'someday' is not a date (YYYYMMDDTHHMMSSZ); skipped.",
                "line 6: status 'archived' is not pending, waiting, completed, deleted or recurring; skipped.",
                "line 7: entry 'yesterday' is not a date (YYYYMMDDTHHMMSSZ); it was ignored.",
                "line 7: repeat '3h' has no RRULE equivalent; the todo was read without repeating.",
            ])
    }

    @Test("Several pending occurrences of one template: only the earliest is kept")
    func keepsEarliestOccurrence() throws {
        let text = """
            [{"uuid":"i2","description":"w","status":"pending","parent":"t","recur":"weekly","due":"20261208T080000Z"},
             {"uuid":"i1","description":"w","status":"pending","parent":"t","recur":"weekly","due":"20261201T080000Z"},
             {"uuid":"i0","description":"w","status":"completed","parent":"t","recur":"weekly","due":"20261124T080000Z"},
             {"uuid":"t","description":"w","status":"recurring","recur":"weekly","due":"20261124T080000Z"}]
            """
        let result = try TaskwarriorJSON.decode(Data(text.utf8), calendar: calendar)
        #expect(result.todos.map(\.uid) == ["i1", "i0"])
        // A done occurrence keeps its series' rule, as ours do; both belong to the template's series.
        #expect(result.todos.map(\.repeatRule) == ["FREQ=WEEKLY", "FREQ=WEEKLY"])
        #expect(result.todos.map(\.series) == ["t", "t"])
        #expect(result.warnings == ["1 later pending occurrence was skipped (each repeating task keeps its earliest)."])
    }

    @Test("Not Taskwarrior JSON at all is refused in words")
    func refusesOtherText() {
        #expect(throws: TaskwarriorJSONError(description: "This is not Taskwarrior JSON: it should start with [ (an array) or { (one task per line).")) {
            try TaskwarriorJSON.decode(Data("BEGIN:VCALENDAR".utf8), calendar: calendar)
        }
        #expect(throws: TaskwarriorJSONError(description: "The Taskwarrior file is not valid JSON; give the output of `task export`.")) {
            try TaskwarriorJSON.decode(Data("[{\"description\":".utf8), calendar: calendar)
        }
        #expect((try? TaskwarriorJSON.decode(Data("[1, \"x\", null]".utf8), calendar: calendar))?.warnings.count == 3)
    }

    @Test("recur words and RRULE text map both ways")
    func recurMapping() {
        let words: [String: String?] = [
            "daily": "FREQ=DAILY", "weekly": "FREQ=WEEKLY", "monthly": "FREQ=MONTHLY", "yearly": "FREQ=YEARLY",
            "2w": "FREQ=WEEKLY;INTERVAL=2", "3d": "FREQ=DAILY;INTERVAL=3", "biweekly": "FREQ=WEEKLY;INTERVAL=2",
            "quarterly": "FREQ=MONTHLY;INTERVAL=3", "2 weeks": "FREQ=WEEKLY;INTERVAL=2", "6mo": "FREQ=MONTHLY;INTERVAL=6",
            "2q": "FREQ=MONTHLY;INTERVAL=6", "P14D": "FREQ=DAILY;INTERVAL=14", "p1y": "FREQ=YEARLY", "Weekdays": TaskwarriorRecur.weekdaysRule,
            "biannual": "FREQ=YEARLY;INTERVAL=2", "3h": nil, "5min": nil, "0d": nil, "fortnightly": nil, "": nil, "P1DT2H": nil,
        ]
        for (word, rule) in words { #expect(TaskwarriorRecur.rule(from: word) == rule, "\(word)") }
        let monday = DueDate(utc("20261130T080000Z"), allDay: false)
        let rules: [String: String?] = [
            "FREQ=DAILY": "daily", "FREQ=DAILY;INTERVAL=3": "3d", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO": "2w", "FREQ=WEEKLY;BYDAY=TU": nil,
            "FREQ=MONTHLY": "monthly", "FREQ=MONTHLY;INTERVAL=3": "quarterly", "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=30": "2mo",
            "FREQ=MONTHLY;BYMONTHDAY=1": nil, "FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=30": "yearly", "FREQ=YEARLY;INTERVAL=5": "5y",
            "freq=weekly;wkst=su": "weekly", "FREQ=DAILY;BYDAY=FR,MO,TU,WE,TH": "weekdays", "FREQ=DAILY;COUNT=3": nil,
            "FREQ=WEEKLY;UNTIL=20270101T000000Z": nil, "FREQ=HOURLY": nil, "FREQ=WEEKLY;FREQ=DAILY": nil, "INTERVAL=2": nil, "junk": nil,
        ]
        for (rule, word) in rules { #expect(TaskwarriorRecur.word(from: rule, due: monday, calendar: calendar) == word, "\(rule)") }
        #expect(TaskwarriorRecur.word(from: "FREQ=WEEKLY;BYDAY=MO", due: nil, calendar: calendar) == nil)
    }

    @Test("Writing: the exact shape `task import` reads, with warnings for what Taskwarrior cannot carry")
    func encodesExactly() {
        let todo = PortableTodo(
            uid: "rec-1", title: "Buy \"milk\" \\ now", notes: "n1\nn2", tags: ["shop", "two words"],
            due: .day(utc("20261201T120000Z"), in: calendar), repeatRule: "FREQ=WEEKLY", priority: 2, created: utc("20260501T093000Z"),
            modified: utc("20260502T100000Z"), listName: "Home", annotations: [Annotation(entry: utc("20260501T093000Z"), text: "called")])
        let done = PortableTodo(
            uid: "0e024811-3055-49ef-ae51-e9858344529e", title: "", repeatRule: "FREQ=DAILY;COUNT=2", priority: 3, isCompleted: true)
        let result = TaskwarriorJSON.encode([todo, done], calendar: calendar, now: utc("20260601T000000Z"))
        // An open occurrence Taskwarrior can repeat: the series' template (index 0 pending), then the occurrence as
        // instance 0. The exact rule travels in `cloudtodo_repeat` on every repeating todo, done ones too.
        let expected = """
            [
            {"uuid":"756212cf-ff5e-5e15-abde-bed2c83a71f3","description":"Buy \\"milk\\" \\\\ now","status":"recurring",\
            "entry":"20260501T093000Z","modified":"20260502T100000Z","due":"20261130T230000Z","priority":"M","project":"Home",\
            "tags":["shop","two_words"],"cloudtodo_repeat":"FREQ=WEEKLY","recur":"weekly","mask":"-","cloudtodo_notes":"n1\\nn2",\
            "cloudtodo_series":"rec-1"},
            {"uuid":"efe23e85-ee4b-51e0-93c2-e456b51f1622","description":"Buy \\"milk\\" \\\\ now","status":"pending","entry":"20260501T093000Z",\
            "modified":"20260502T100000Z","due":"20261130T230000Z","priority":"M","project":"Home","tags":["shop","two_words"],\
            "cloudtodo_repeat":"FREQ=WEEKLY","recur":"weekly","parent":"756212cf-ff5e-5e15-abde-bed2c83a71f3","imask":0,\
            "annotations":[{"entry":"20260501T093000Z","description":"called"}],"cloudtodo_uid":"rec-1","cloudtodo_notes":"n1\\nn2"},
            {"uuid":"0e024811-3055-49ef-ae51-e9858344529e","description":"(no title)","status":"completed","end":"20260601T000000Z",\
            "priority":"H","cloudtodo_repeat":"FREQ=DAILY;COUNT=2"}
            ]

            """
        #expect(result.text == expected)
        #expect(
            result.warnings == [
                "todo 'Buy \"milk\" \\ now': tags with spaces or commas were written with '_' instead (Taskwarrior allows neither).",
                "todo '0e024811-3055-49ef-ae51-e9858344529e' has no title; Taskwarrior needs one, so it is '(no title)'.",
            ])
        #expect(TaskwarriorJSON.uuid(for: "rec-1") == TaskwarriorJSON.uuid(for: "rec-1"))
        #expect(TaskwarriorJSON.uuid(for: "0E024811-3055-49EF-AE51-E9858344529E") == "0e024811-3055-49ef-ae51-e9858344529e")
    }

    /// The uuid of a uid is what Foundation's parse and print give, whether the uid is canonical (the fast path) or
    /// only nearly so: seeded uids of hex digits, dashes and a few other characters, each mutated in one place.
    /// The fast path for plain tags answers as the scalar-by-scalar rewrite does, on its edges: DEL, the last
    /// printable ASCII, commas, ASCII and Unicode whitespace, controls, and non-ASCII letters and emoji.
    @Test func tagsAreRewrittenAsBeforeOnEveryPath() {
        func rewritten(_ tag: String) -> String {
            String(String.UnicodeScalarView(tag.unicodeScalars.map { $0 == "," || $0.properties.isWhitespace || $0.value < 0x20 ? "_" : $0 }))
        }
        let tags = [
            "home", "a-b_c.d", "~", "!", "del\u{7F}", "a,b", "two words", "tab\there", "nl\n", "nbsp\u{A0}x", "ideographic\u{3000}space",
            "café", "日本", "🏠", "\u{1B}[31m", "", ",", " ", "line\u{2028}sep", "zero\u{200B}width",
        ]
        for tag in tags { #expect(TaskwarriorJSON.taskwarriorTag(tag) == rewritten(tag), "\(tag.debugDescription)") }
    }

    /// Each all-day day's start is worked out once per export: the cached answers equal `DueDate.start(in:)` in zones
    /// with daylight saving, half-hour and +14 offsets, for the same date asked again and for timed dates.
    @Test func dayStartsAnswerAsStartInDoes() throws {
        let days = [utc("20260308T000000Z"), utc("20260329T000000Z"), utc("20261025T000000Z"), utc("20261101T000000Z"), utc("20261231T000000Z")]
        for zone in ["UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Pacific/Kiritimati", "Pacific/Pago_Pago"] {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: zone))
            var starts = DayStarts(calendar: calendar)
            for _ in 0..<2 {
                for day in days {
                    let allDay = DueDate(day, allDay: true), timed = DueDate(day.addingTimeInterval(3_723), allDay: false)
                    #expect(starts.start(of: allDay) == allDay.start(in: calendar), "\(zone) \(day)")
                    #expect(starts.start(of: timed) == timed.date, "\(zone) \(day)")
                }
            }
        }
    }

    @Test func uuidsAreFoundationsForCanonicalAndNearlyCanonicalUIDs() {
        var rng = SplitMix(seed: 36)
        let alphabet = Array("0123456789abcdefABCDEF-- +xXgG\u{e9}")
        let foundation: (String) -> String = { UUID(uuidString: $0).map { $0.uuidString.lowercased() } ?? StableID.uuid($0) }
        var canonical = 0
        for round in 0..<20_000 {
            var characters = Array(UUID().uuidString)
            if round % 3 == 0 { characters = characters.map { Character($0.lowercased()) } }
            let changes = Int(rng.next() % 3)  // 0: left canonical
            for _ in 0..<changes {
                let at = Int(rng.next() % UInt64(characters.count))
                switch rng.next() % 3 {
                case 0: characters[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                case 1: characters.remove(at: at)
                default: characters.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                }
            }
            let uid = String(characters)
            if TaskwarriorJSON.lowercasedCanonicalUUID(uid) != nil { canonical += 1 }
            #expect(TaskwarriorJSON.uuid(for: uid) == foundation(uid), "\(uid)")
        }
        #expect(canonical > 6_000, "the fast path was taken \(canonical) times")
    }

    /// Todos Taskwarrior can carry whole.
    var sample: [PortableTodo] {
        let base = utc("20260501T080000Z")
        return [
            PortableTodo(
                uid: "rec-1", title: "Ünïcødé 🌷 \"quoted\" \\ back; semi, comma", notes: "first\nsecond\n\nfourth", tags: ["work", "ü"],
                due: DueDate(utc("20261201T073000Z"), allDay: false), priority: 3, created: base, modified: base,
                listName: "Home & Garden", annotations: [Annotation(entry: base, text: "note, one"), Annotation(entry: utc("20260502T000000Z"), text: "two")]),
            PortableTodo(
                uid: "0E024811-3055-49EF-AE51-E9858344529E", title: "Day", due: .day(utc("20261115T120000Z"), in: calendar), priority: 1,
                created: base, modified: base),
            PortableTodo(uid: "6f1c2d3e-4b5a-4c6d-8e7f-001122334455", title: "Lower uuid", priority: 2, created: base, modified: base, listName: "Work.Code"),
            PortableTodo(
                uid: "rec-4", title: "Done", isCompleted: true, completedAt: utc("20260502T090000Z"), created: base, modified: base),
            PortableTodo(
                uid: "rec-5", title: "Water plants", due: .day(utc("20261201T120000Z"), in: calendar), repeatRule: "FREQ=WEEKLY;INTERVAL=2",
                repeatFromCompletion: true, created: base, modified: base),
        ]
    }

    @Test("Round trip through our own JSON, including control characters and long text")
    func roundTrip() throws {
        var todos = sample
        todos[0].title += " bell\u{7} nul\u{0} tab\t newline\n " + String(repeating: "long ", count: 500)
        todos[0].notes += "\r\n\u{1B}[31m"
        let result = TaskwarriorJSON.encode(todos, calendar: calendar)
        #expect(result.warnings == [])
        let back = try TaskwarriorJSON.decode(Data(result.text.utf8), calendar: calendar)
        #expect(back.todos == todos)
        #expect(back.warnings == [])
    }

    @Test("Round trip through the real Taskwarrior: task import, task export (when `task` is on PATH)")
    func liveRoundTrip() async throws {
        guard let task = InterchangeSupport.onPath("task") else {
            print("TaskwarriorJSONTests: skipped the live round trip: `task` is not on PATH (the fixture checks still ran).")
            return
        }
        let scratch = try InterchangeSupport.scratch("taskwarrior")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let data = scratch.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let rc = scratch.appendingPathComponent("taskrc")
        try Data("data.location=\(data.path)\nconfirmation=off\nverbose=nothing\nhooks=off\n".utf8).write(to: rc)
        let file = scratch.appendingPathComponent("import.json")
        try Data(TaskwarriorJSON.encode(sample, calendar: calendar).text.utf8).write(to: file)
        let environment = ["TASKRC": rc.path, "TASKDATA": data.path, "TZ": "Europe/Berlin"]
        #expect(try await InterchangeSupport.run(task, ["import", file.path], environment: environment).status == 0)
        let export = try await InterchangeSupport.run(task, ["export"], environment: environment)
        #expect(export.status == 0)
        let back = try TaskwarriorJSON.decode(Data(export.output.utf8), calendar: calendar)
        let byUID = Dictionary(back.todos.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(back.todos.count == sample.count)
        for todo in sample {
            var got = try #require(byUID[todo.uid], "\(todo.uid)")
            if todo.repeatRule != nil {
                // Taskwarrior turns a repeating task into a template and makes occurrences, stamped when they were made.
                #expect(got.created != nil)
                got.created = todo.created
            }
            #expect(got == todo)
        }
    }
}
