import CloudClient
import CloudModel
import CloudServer
import Foundation
import Testing

/// All-day due dates are calendar dates in every zone, timed ones instants; repeats step across daylight saving; old
/// records read back as the day meant. On the real `todo` binary, with `TZ` set per run.
@Suite("Due dates across time zones on the command line", .serialized)
struct DueDateZoneTests {
    static let zones = ["Asia/Tokyo", "UTC", "America/New_York"]

    func todo(_ stage: E2EStage, _ arguments: [String], zone: String, device: String = "laptop") async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: device, environment: ["TZ": zone])
    }

    func id(_ result: TodoCommandLine.Result) -> String { result.output.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The `--json` rows of `todo list` in `zone`.
    func rows(_ stage: E2EStage, zone: String, device: String = "laptop", _ filter: [String] = []) async throws -> [[String: Any]] {
        let listed = try await todo(stage, ["list", "--json"] + filter, zone: zone, device: device)
        return try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]], "\(listed.errors)")
    }

    @Test func anAllDayDateIsTheSameDayInEveryZoneAndATimeIsAnInstant() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let day = id(try await todo(stage, ["add", "Day", "--due", "2026-12-10"], zone: "Asia/Tokyo"))
        _ = try await todo(stage, ["add", "Call", "--due", "2026-12-10 09:00"], zone: "Asia/Tokyo")
        let clock = ["Asia/Tokyo": "2026-12-10 09:00", "UTC": "2026-12-10 00:00", "America/New_York": "2026-12-09 19:00"]
        let offsets = ["Asia/Tokyo": "2026-12-10T09:00:00+09:00", "UTC": "2026-12-10T00:00:00Z", "America/New_York": "2026-12-09T19:00:00-05:00"]
        for zone in Self.zones {
            // The phone syncs from the cloud in this zone; the laptop reads its own cache.
            for device in ["laptop", "phone-\(zone.count)"] {
                let listed = try await todo(stage, ["list"], zone: zone, device: device)
                let lines = listed.output.split(separator: "\n")
                #expect(lines.contains { $0.hasSuffix("  Day") && $0.contains("  due 2026-12-10  ") }, "\(zone) \(device): \(listed.output)")
                #expect(lines.contains { $0.hasSuffix("  Call") && $0.contains("  due \(clock[zone]!)  ") }, "\(zone) \(device): \(listed.output)")
                let json = try await rows(stage, zone: zone, device: device)
                let allDay = try #require(json.first { $0["title"] as? String == "Day" })
                #expect(allDay["dueDate"] as? String == "2026-12-10" && allDay["allDay"] as? Bool == true, "\(zone): \(allDay)")
                let timed = try #require(json.first { $0["title"] as? String == "Call" })
                #expect(timed["dueDate"] as? String == offsets[zone] && timed["allDay"] as? Bool == false, "\(zone): \(timed)")
            }
            let ics = try await todo(stage, ["export", "--offline", "--format", "ics"], zone: zone)
            #expect(ics.output.contains("DUE;VALUE=DATE:20261210\r\n") && ics.output.contains("DUE:20261210T000000Z\r\n"), "\(zone)")
            // Filters and the detail agree on the day.
            let onDay = try await todo(stage, ["list", "--offline", "due:2026-12-10"], zone: zone)
            #expect(onDay.output.contains("Day"), "\(zone): \(onDay.output)")
            let dayBefore = try await todo(stage, ["list", "--offline", "due:2026-12-09"], zone: zone)
            #expect(!dayBefore.output.contains("Day"), "\(zone): \(dayBefore.output)")
        }
        // Changed in New York, it is still the day typed there.
        #expect(try await todo(stage, ["edit", day, "--due", "2026-12-11"], zone: "America/New_York").status == 0)
        let tokyo = try await rows(stage, zone: "Asia/Tokyo", device: "phone")
        #expect(tokyo.first { $0["title"] as? String == "Day" }?["dueDate"] as? String == "2026-12-11")
        await stage.server.shutdown()
    }

    /// A timed todo on the evening before a day sorts before that day's all-day todo wherever it is evening, and after
    /// it where the time falls on the day itself: the order is the person's, not 00:00 UTC's.
    @Test func allDayAndTimedDueDatesSortAsThePersonMeetsThem() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        _ = try await todo(stage, ["add", "Day", "--due", "2026-12-10"], zone: "UTC")
        // 2026-12-10 01:00 UTC: the evening of the 9th in New York, the morning of the 10th in Tokyo.
        _ = try await todo(stage, ["add", "Evening", "--due", "2026-12-10 01:00"], zone: "UTC")
        let expected = ["America/New_York": ["Evening", "Day"], "Asia/Tokyo": ["Day", "Evening"], "UTC": ["Day", "Evening"]]
        for zone in Self.zones {
            let listed = try await todo(stage, ["list", "--offline"], zone: zone)
            let titles = listed.output.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
            #expect(titles == expected[zone], "\(zone): \(listed.output)")
        }
        await stage.server.shutdown()
    }

    @Test func repeatsStepByCalendarDateAcrossTheDaylightSavingChange() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let ny = "America/New_York"
        // Daily all day across 2026-03-08 (US clocks forward), weekly all day across 2026-11-01 (back), timed daily.
        var daily = id(try await todo(stage, ["add", "Daily", "--due", "2026-03-07", "--repeat", "daily"], zone: ny))
        var weekly = id(try await todo(stage, ["add", "Weekly", "--due", "2026-10-30", "--repeat", "weekly"], zone: ny))
        var timed = id(try await todo(stage, ["add", "Timed", "--due", "2026-03-07 09:00", "--repeat", "daily"], zone: ny))
        let expected = [
            ("Daily", ["2026-03-08", "2026-03-09"]), ("Weekly", ["2026-11-06", "2026-11-13"]),
            ("Timed", ["2026-03-08T09:00:00-04:00", "2026-03-09T09:00:00-04:00"]),
        ]
        for step in 0..<2 {
            for name in [daily, weekly, timed] { #expect(try await todo(stage, ["done", name], zone: ny).status == 0) }
            let json = try await rows(stage, zone: ny, ["is:open"])
            for (title, dues) in expected {
                let row = try #require(json.first { $0["title"] as? String == title }, "\(title) \(json)")
                #expect(row["dueDate"] as? String == dues[step], "\(title) step \(step): \(row)")
            }
            func next(_ title: String) throws -> String {
                let row = try #require(json.first { $0["title"] as? String == title })
                return try #require(row["id"] as? String)
            }
            daily = try next("Daily")
            weekly = try next("Weekly")
            timed = try next("Timed")
        }
        // Other zones see the same calendar dates for the all-day ones and the same instant for the timed one.
        for zone in ["Asia/Tokyo", "UTC"] {
            let listed = try await todo(stage, ["list", "is:open"], zone: zone, device: "phone")
            #expect(listed.output.contains("due 2026-03-09") && listed.output.contains("due 2026-11-13"), "\(zone): \(listed.output)")
        }
        let utc = try await todo(stage, ["list", "--offline", "is:open", "Timed"], zone: "UTC", device: "phone")
        #expect(utc.output.contains("due 2026-03-09 13:00"), "\(utc.output)")
        await stage.server.shutdown()
    }

    @Test func recordsOfEarlierVersionsReadBackAsTheDayMeant() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        // A device of this version makes the zone; an earlier version then writes all-day dates as its local midnight.
        _ = try await todo(stage, ["add", "Seed"], zone: "UTC")
        let client = CloudClient(baseURL: stage.server.baseURL)
        _ = try await client.signIn(account: "alice", password: "e2e-password-alice", deviceName: "old")
        // Local midnight of 2026-12-10 in Tokyo (+9), Auckland in summer (+13), Berlin (+1), New York (−5), Honolulu (−10).
        let written: [(String, String, Bool)] = [
            ("Tokyo", "2026-12-09T15:00:00Z", true), ("Auckland", "2026-12-09T11:00:00Z", true), ("Berlin", "2026-12-09T23:00:00Z", false),
            ("New York", "2026-12-10T05:00:00Z", true), ("Honolulu", "2026-12-10T10:00:00Z", false),
        ]
        let times = ISO8601DateFormatter()
        let zone = ZoneID(zoneName: TodoSchema.zoneName)
        let operations = written.map { name, moment, withFlag in
            // The oldest records have no `allDay` field at all: all day.
            var fields: [String: FieldValue] = [
                "title": .string("Old \(name)"), "notes": .string(""), "isCompleted": .int64(0), "priority": .int64(0),
                "isTrashed": .int64(0), "dueDate": .timestamp(times.date(from: moment)!),
            ]
            if withFlag { fields["allDay"] = .int64(1) }
            return RecordOperation(.create, Record(recordName: "old-\(name.count)-\(name.first!)", recordType: TodoSchema.todoType, fields: fields, zoneID: zone))
        }
        let results = try await client.modifyRecords(.private, ModifyRecordsRequest(operations: operations, zoneID: zone))
        #expect(results.count == written.count)
        for zone in Self.zones {
            let json = try await rows(stage, zone: zone, device: "reader-\(zone.count)")
            for (name, _, _) in written {
                let row = try #require(json.first { $0["title"] as? String == "Old \(name)" }, "\(zone): \(json)")
                #expect(row["dueDate"] as? String == "2026-12-10" && row["allDay"] as? Bool == true, "\(zone) \(name): \(row)")
            }
        }
        await stage.server.shutdown()
    }

    @Test func dueFlagRefusesNothingAndReadsDaysAgo() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let empty = try await todo(stage, ["add", "Empty", "--due", ""], zone: "UTC")
        #expect(empty.status != 0 && empty.errors.contains("--due is empty: give a date"), "\(empty.errors)")
        #expect(empty.errors.contains("or none to clear it"), "\(empty.errors)")
        let ago = try await todo(stage, ["add", "Ago", "--due", "-3d"], zone: "UTC")
        #expect(ago.status == 0, "\(ago.errors)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let threeDaysAgo = calendar.date(byAdding: .day, value: -3, to: calendar.startOfDay(for: Date()))!
        let text = ISO8601DateFormatter.string(from: threeDaysAgo, timeZone: .gmt, formatOptions: [.withFullDate])
        let listed = try await todo(stage, ["list", "--offline", "is:overdue"], zone: "UTC")
        // (A run across UTC midnight reads "today" twice; the day is then one later.)
        let dayAfter = ISO8601DateFormatter.string(from: threeDaysAgo.addingTimeInterval(86_400), timeZone: .gmt, formatOptions: [.withFullDate])
        #expect(listed.output.contains("Ago") && (listed.output.contains("due \(text)") || listed.output.contains("due \(dayAfter)")), "\(listed.output)")
        let odd = try await todo(stage, ["add", "Odd", "--due", "-3x"], zone: "UTC")
        #expect(odd.status != 0 && odd.errors.lowercased().contains("cannot read the due date '-3x'"), "\(odd.errors)")
        await stage.server.shutdown()
    }

    @Test func aConflictNoticeShowsTheDueDateAsGivenEastOfUTC() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let tokyo = "Asia/Tokyo"
        let milk = id(try await todo(stage, ["add", "Milk", "--due", "2026-12-10"], zone: tokyo))
        _ = try await todo(stage, ["sync"], zone: tokyo, device: "phone")
        #expect(try await todo(stage, ["edit", milk, "--due", "2026-12-11"], zone: tokyo).status == 0)
        let phone = try await todo(stage, ["edit", milk, "--due", "2026-12-12"], zone: tokyo, device: "phone")
        #expect(phone.status == 0, "\(phone.errors)")
        let sync = try await todo(stage, ["sync"], zone: tokyo)
        let notices = sync.output + sync.errors + phone.errors
        #expect(notices.contains("due date 2026-12-11 lost to 2026-12-12"), "\(notices)")
        #expect(!notices.contains("2026-12-10"), "\(notices)")
        let restored = try await todo(stage, ["restore", milk, "due"], zone: tokyo)
        #expect(restored.status == 0, "\(restored.errors)")
        let json = try await rows(stage, zone: "America/New_York", device: "phone")
        #expect(json.first { $0["title"] as? String == "Milk" }?["dueDate"] as? String == "2026-12-11", "todo restore puts the lost day back")
        await stage.server.shutdown()
    }
}
