import Foundation
import TestSupport
import Testing

@testable import TodoPlanning

@Suite("vdir layout (vdirsyncer, todoman)")
struct VdirTests {
    let calendar = InterchangeSupport.berlin
    let utc = InterchangeSupport.utc

    @Test("todoman's own files (made with todoman 4.7.0 in Europe/Berlin) read exactly")
    func readsTodomanFixture() throws {
        let result = try VdirLayout.read(directory: InterchangeSupport.fixture("todoman"), calendar: calendar)
        #expect(result.warnings == [])
        let made = utc("20261127T092122Z")
        let expected = [
            PortableTodo(
                uid: "51bc39830a484297af4c57fe54b6f25e@vm",
                title: "Call plumber about the leaking kitchen tap before the weekend, and ask whether the long-overdue boiler service can be booked too",
                priority: 2, created: made, modified: made, listName: "Home & Garden"),
            PortableTodo(
                uid: "d7b02a42a1d8464bba7036aaa34c6c34@vm", title: "Plant tulip bulbs 🌷",
                notes: "Line one\nLine two with ümlaut; semicolon, comma\\backslash\n", tags: ["garden"],
                due: DueDate(utc("20261114T230000Z"), allDay: true), priority: 1, created: made, modified: made, listName: "Home & Garden"),
            PortableTodo(
                uid: "78d75cd498bd4625a2e008cfe97fe6a7@vm", title: "Prepare quarterly report", tags: ["urgent", "q4;review"],
                due: DueDate(utc("20261201T073000Z"), allDay: false), priority: 3, created: made, modified: made, listName: "work"),
            PortableTodo(
                uid: "9000ab27d221451693f58f819202fc25@vm", title: "Submit expenses", isCompleted: true,
                completedAt: utc("20261127T092123Z"), created: utc("20261127T092123Z"), modified: utc("20261127T092123Z"),
                listName: "work"),
        ]
        #expect(result.todos == expected)
        // One list directory on its own: the list is its displayname.
        let home = try VdirLayout.read(directory: InterchangeSupport.fixture("todoman/home"), calendar: calendar)
        #expect(home.todos == Array(expected.prefix(2)))
    }

    /// Todos for writing: two named lists (one needing a safe directory name), one without a list, awkward uids.
    var sample: [PortableTodo] {
        let base = utc("20260501T080000Z")
        return [
            PortableTodo(
                uid: "rec-1", title: "Prepare talk; slides, notes", notes: "Outline\nDemo", tags: ["work", "talk"],
                due: DueDate(utc("20261201T073000Z"), allDay: false), priority: 3, created: base, modified: base, listName: "Work"),
            PortableTodo(
                uid: "rec/2:ü", title: "Plant bulbs 🌷", due: .day(utc("20261115T120000Z"), in: calendar), priority: 1,
                created: base, modified: base, listName: "Home & Garden"),
            PortableTodo(uid: "rec-3", title: "Loose end", priority: 2, created: base, modified: base),
            PortableTodo(
                uid: "rec-4", title: "Filed", isCompleted: true, completedAt: utc("20260502T090000Z"), created: base, modified: base,
                listName: "Home & Garden"),
        ]
    }

    @Test("Writing makes one directory per list with displayname and one <uid>.ics per todo; reading gives them back")
    func writesAndReadsBack() throws {
        let root = try InterchangeSupport.scratch("vdir").appendingPathComponent("out")
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        try VdirLayout.write(sample, to: root, calendar: calendar)
        let manager = FileManager.default
        #expect(try manager.contentsOfDirectory(atPath: root.path).sorted() == ["Home-Garden", "Todos", "Work"])
        #expect(try manager.contentsOfDirectory(atPath: root.appendingPathComponent("Work").path).sorted() == ["displayname", "rec-1.ics"])
        let garden = try manager.contentsOfDirectory(atPath: root.appendingPathComponent("Home-Garden").path).sorted()
        #expect(garden == ["displayname", "rec-2-" + StableID.uuid("rec/2:ü").prefix(8) + ".ics", "rec-4.ics"])
        #expect(try String(contentsOf: root.appendingPathComponent("Home-Garden/displayname"), encoding: .utf8) == "Home & Garden")
        let file = try String(contentsOf: root.appendingPathComponent("Work/rec-1.ics"), encoding: .utf8)
        #expect(file.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//CloudTodo//todo//EN\r\nBEGIN:VTODO\r\nUID:rec-1\r\n"))
        #expect(!file.contains("X-CLOUDTODO-LIST"))

        let back = try VdirLayout.read(directory: root, calendar: calendar)
        #expect(back.warnings == [])
        var expected = sample
        expected[2].listName = "Todos"
        #expect(Set(back.todos) == Set(expected))
        #expect(back.todos.count == 4)
    }

    @Test("Writing refuses a non-empty directory or a file, in words")
    func refusesNonEmpty() throws {
        let root = try InterchangeSupport.scratch("vdir-full")
        defer { try? FileManager.default.removeItem(at: root) }
        try VdirLayout.write([], to: root, calendar: calendar)
        try Data("x".utf8).write(to: root.appendingPathComponent("keep.txt"))
        #expect(throws: VdirError(description: "\(root.path) is not empty; give a new or empty directory to write the vdir into.")) {
            try VdirLayout.write(sample, to: root, calendar: calendar)
        }
        let file = root.appendingPathComponent("keep.txt")
        #expect(throws: VdirError(description: "\(file.path) is a file; give a new or empty directory to write the vdir into.")) {
            try VdirLayout.write(sample, to: file, calendar: calendar)
        }
        #expect(throws: VdirError.self) { try VdirLayout.read(directory: file, calendar: calendar) }
    }

    @Test("Broken files are named in warnings and skipped; the rest is read")
    func brokenFiles() throws {
        let root = try InterchangeSupport.scratch("vdir-broken")
        defer { try? FileManager.default.removeItem(at: root) }
        let list = root.appendingPathComponent("l")
        try FileManager.default.createDirectory(at: list, withIntermediateDirectories: true)
        try Data("not a calendar".utf8).write(to: list.appendingPathComponent("a.ics"))
        try Data(ICalendar.encode([sample[2]], calendar: calendar, includeList: false).utf8).write(to: list.appendingPathComponent("b.ics"))
        try Data(ICalendar.encode([sample[2]], calendar: calendar, includeList: false).utf8).write(to: list.appendingPathComponent("c.ics"))
        try Data([0xFF, 0xFE, 0x00]).write(to: list.appendingPathComponent("displayname"))
        let result = try VdirLayout.read(directory: root, calendar: calendar)
        #expect(result.todos.map(\.title) == ["Loose end"])
        #expect(result.todos.first?.listName == "\u{FFFD}\u{FFFD}")
        #expect(
            result.warnings == [
                "l/a.ics: This is not an iCalendar file: line 1 should be BEGIN:VCALENDAR.",
                "l/c.ics: a second todo with UID 'rec-3'; only the first was kept.",
            ])
    }

    @Test("Safe names: portable characters only, no leading dot, bounded, collision-free for uids")
    func safeNames() {
        #expect(VdirLayout.safeName("Home & Garden", fallback: "List", keep: "") == "Home-Garden")
        #expect(VdirLayout.safeName("../..", fallback: "List", keep: "") == "List")
        #expect(VdirLayout.safeName("Ärger/Über", fallback: "List", keep: "") == "rger-ber")
        #expect(VdirLayout.safeName(String(repeating: "a", count: 300), fallback: "List", keep: "").count == 64)
        #expect(VdirLayout.fileStem("78d75cd498bd4625a2e008cfe97fe6a7@vm") == "78d75cd498bd4625a2e008cfe97fe6a7@vm")
        #expect(VdirLayout.fileStem("a/b") != VdirLayout.fileStem("a?b"))
        #expect(VdirLayout.fileStem("a/b").hasPrefix("a-b-"))
        #expect(VdirLayout.fileStem(".hidden") == "hidden-" + StableID.uuid(".hidden").prefix(8))
    }

    @Test("todoman lists our vdir as we wrote it (when todoman is installed)")
    func todomanReadsOurVdir() async throws {
        // Through Python: todoman's executable is also called `todo`, and PATH may name either.
        let python = "/usr/bin/env"
        let todoman = ["python3", "-c", "import sys; from todoman.cli import cli; sys.argv[0] = 'todoman'; cli()"]
        guard (try? await InterchangeSupport.run(python, ["python3", "-c", "import todoman"], environment: [:]))?.status == 0 else {
            print("VdirTests: skipped the live todoman check: todoman is not installed (pip install todoman); the fixture checks still ran.")
            return
        }
        let scratch = try InterchangeSupport.scratch("todoman")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let root = scratch.appendingPathComponent("vdir")
        try VdirLayout.write(sample, to: root, calendar: calendar)
        let config = try TodomanConfig.write(to: scratch.appendingPathComponent("config.py"), calendars: "\(root.path)/*", defaultList: "Work")
        let (status, output) = try await InterchangeSupport.run(
            python, todoman + ["--porcelain", "--config", config.path, "list", "--status", "ANY"], environment: ["TZ": "Europe/Berlin"])
        #expect(status == 0)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        let rows = listed.map { row -> String in
            let due = (row["due"] as? Int).map(String.init) ?? "-"
            let categories = (row["categories"] as? [String] ?? []).joined(separator: "|")
            return [
                row["summary"] as? String ?? "?", row["list"] as? String ?? "?", due, "\(row["priority"] as? Int ?? -1)", categories,
                row["description"] as? String ?? "?", "\(row["completed"] as? Bool ?? false)", "\(row["completed_at"] as? Int ?? 0)",
            ].joined(separator: " / ")
        }
        #expect(
            rows.sorted() == [
                "Filed / Home & Garden / - / 0 /  /  / true / 1777712400",
                "Loose end / Todos / - / 5 /  /  / false / 0",
                "Plant bulbs 🌷 / Home & Garden / 1794697200 / 9 /  /  / false / 0",
                "Prepare talk; slides, notes / Work / 1796110200 / 1 / talk|work / Outline\nDemo / false / 0",
            ])
    }
}
