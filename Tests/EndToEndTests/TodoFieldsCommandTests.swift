import CloudServer
import Foundation
import Testing

/// Issue 27's fields on the real `todo` binary against a real cloud: wait, scheduled, until, start and stop, depends.
@Suite("Todo fields on the command line", .serialized)
struct TodoFieldsCommandTests {
    func todo(_ stage: E2EStage, _ arguments: [String], device: String = "laptop") async throws -> TodoCommandLine.Result {
        try await TodoCommandLine(stage: stage).run("alice", arguments, device: device, environment: ["TZ": "UTC"])
    }

    func id(_ result: TodoCommandLine.Result) -> String { result.output.trimmingCharacters(in: .whitespacesAndNewlines) }

    func rows(_ result: TodoCommandLine.Result) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]], "\(result.output) \(result.errors)")
    }

    func titles(_ result: TodoCommandLine.Result) -> [String] {
        result.output.split(separator: "\n").map(String.init)
    }

    @Test func waitHidesScheduledFiltersAndBothClear() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let later = id(try await todo(stage, ["add", "Repot the fern", "--wait", "in 3 days"]))
        let planned = id(try await todo(stage, ["add", "Prune roses", "--scheduled", "tomorrow"]))
        #expect(try await todo(stage, ["add", "Water plants"]).status == 0)

        let listed = try await todo(stage, ["list", "--offline"])
        #expect(!listed.output.contains("Repot") && listed.output.contains("Prune roses") && listed.output.contains("scheduled "), "\(listed.output)")
        let waiting = try await todo(stage, ["list", "--offline", "is:waiting"])
        #expect(titles(waiting).count == 1 && waiting.output.contains("Repot the fern (") == false, "\(waiting.output)")
        #expect(waiting.output.contains("(waiting until ") && waiting.output.contains("Repot the fern"), "\(waiting.output)")
        #expect(try await todo(stage, ["list", "--offline", "--all"]).output.contains("Repot the fern"))
        #expect(!(try await todo(stage, ["next", "--offline"])).output.contains("Repot"))
        #expect(try await todo(stage, ["next", "--offline", "is:waiting"]).output.contains("Repot"))
        #expect(titles(try await todo(stage, ["list", "--offline", "wait.after:tomorrow", "--all"])).count == 1)
        #expect(titles(try await todo(stage, ["list", "--offline", "wait:none"])).count == 2)

        #expect(titles(try await todo(stage, ["list", "--offline", "is:scheduled"])).count == 1)
        #expect(titles(try await todo(stage, ["list", "--offline", "scheduled.before:\"in 2 days\""])).first?.contains("Prune") == true)
        #expect(titles(try await todo(stage, ["list", "--offline", "scheduled.after:\"in 2 days\""])).isEmpty)
        let json = try rows(try await todo(stage, ["list", "--offline", "--json", "--all"]))
        let byTitle = Dictionary(uniqueKeysWithValues: json.map { ($0["title"] as? String ?? "", $0) })
        #expect((byTitle["Repot the fern"]?["wait"] as? String)?.hasSuffix("T00:00:00Z") == true, "\(json)")
        #expect((byTitle["Prune roses"]?["scheduled"] as? String)?.hasSuffix("T00:00:00Z") == true, "\(json)")
        #expect(byTitle["Water plants"]?["wait"] == nil && byTitle["Water plants"]?["scheduled"] == nil)

        // Another device sees the fields; none clears each.
        let phone = try await todo(stage, ["list", "is:waiting"], device: "phone")
        #expect(phone.output.contains("Repot the fern"), "\(phone.output) \(phone.errors)")
        #expect(try await todo(stage, ["edit", later, "--wait", "none"], device: "phone").status == 0)
        #expect(try await todo(stage, ["edit", planned, "--scheduled", "none"], device: "phone").status == 0)
        let after = try await todo(stage, ["list"])
        #expect(after.output.contains("Repot the fern") && !after.output.contains("scheduled "), "\(after.output)")
        let empty = try await todo(stage, ["edit", later, "--wait", ""])
        #expect(empty.status != 0 && empty.errors.contains("--wait is empty"), "\(empty.errors)")
        let bad = try await todo(stage, ["list", "wait.soon:today"])
        #expect(bad.status != 0 && bad.errors.lowercased().contains("unknown filter 'wait.soon:'"), "\(bad.errors)")
        await stage.server.shutdown()
    }

    @Test func untilTrashesOnceOnAnyDevice() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let milk = id(try await todo(stage, ["add", "Drink the milk", "--until", "in 2 days"]))
        #expect(try await todo(stage, ["list", "until.before:eoy", "--offline"]).output.contains("until "))
        #expect(try await todo(stage, ["list"], device: "phone").output.contains("Drink the milk"))
        // Past its until (set on the laptop, offline from the phone's view): the next sync on any device trashes it.
        #expect(try await todo(stage, ["edit", milk, "--until", "-1d"]).status == 0)
        let laptop = try await todo(stage, ["list", "--all", "--json"])
        let row = try #require(try rows(laptop).first { $0["title"] as? String == "Drink the milk" })
        #expect(row["isTrashed"] as? Bool == true && row["until"] == nil, "\(row)")
        let phone = try rows(try await todo(stage, ["list", "--all", "--json"], device: "phone"))
        #expect(phone.first { $0["title"] as? String == "Drink the milk" }?["isTrashed"] as? Bool == true, "\(phone)")
        #expect(!(try await todo(stage, ["list"], device: "phone")).output.contains("Drink the milk"))
        #expect(try await todo(stage, ["conflicts"], device: "phone").output.contains("Drink") == false)
        await stage.server.shutdown()
    }

    @Test func startAndStopShowActiveFirst() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        #expect(try await todo(stage, ["add", "Answer mail", "--due", "today"]).status == 0)
        let report = id(try await todo(stage, ["add", "Write the report"]))
        let started = try await todo(stage, ["start", report])
        #expect(started.status == 0 && started.output.contains("Started"), "\(started.output)")
        #expect(try await todo(stage, ["start", report]).output.contains("is active already"))
        let lines = titles(try await todo(stage, ["list", "--offline"]))
        #expect(lines.first?.contains("(active 0m)") == true && lines.first?.contains("Write the report") == true, "\(lines)")
        #expect(titles(try await todo(stage, ["list", "--offline", "is:active"])).count == 1)
        let json = try rows(try await todo(stage, ["list", "--offline", "--json"]))
        #expect(json.first { $0["title"] as? String == "Write the report" }?["start"] is String)
        #expect(json.first { $0["title"] as? String == "Answer mail" }?["start"] == nil)
        // Urgency's active term: 4.
        let next = titles(try await todo(stage, ["next", "--offline", "is:active"]))
        #expect(next.first?.hasPrefix("  4.00") == true, "\(next)")
        #expect(try await todo(stage, ["list", "is:active"], device: "phone").output.contains("Write the report"))
        let stopped = try await todo(stage, ["stop", report], device: "phone")
        #expect(stopped.status == 0 && stopped.output.contains("Stopped"), "\(stopped.output)")
        #expect(titles(try await todo(stage, ["list", "is:active"])).isEmpty)
        #expect(try await todo(stage, ["stop", report]).output.contains("is not active"))
        // Done stops it.
        #expect(try await todo(stage, ["start", report]).status == 0)
        #expect(try await todo(stage, ["done", report]).status == 0)
        #expect(titles(try await todo(stage, ["list", "--offline", "is:active", "--all"])).isEmpty)
        await stage.server.shutdown()
    }

    @Test func dependsBlocksUntilTheLastBlockerIsDoneAndRefusesCycles() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let sand = id(try await todo(stage, ["add", "Sand the fence"]))
        let buy = id(try await todo(stage, ["add", "Buy paint"]))
        _ = id(try await todo(stage, ["add", "Paint the fence", "--depends", "\(sand),\(buy)"]))
        let line = try #require(titles(try await todo(stage, ["list", "--offline", "is:blocked"])).first)
        #expect(line.contains("Paint the fence") && line.contains("(blocked by \(sand),\(buy))"), "\(line)")
        #expect(Set(titles(try await todo(stage, ["list", "--offline", "is:blocking"])).map { $0.contains("Sand") || $0.contains("Buy") }) == [true])
        let json = try rows(try await todo(stage, ["list", "--offline", "--json", "is:blocked"]))
        #expect((json.first?["depends"] as? [String])?.count == 2, "\(json)")
        // Blocked lowers urgency (-5), blocking raises it (+8).
        let next = titles(try await todo(stage, ["next", "--offline"]))
        #expect(next.last?.hasPrefix(" -5.00") == true && next.first?.hasPrefix("  8.00") == true, "\(next)")

        // The other device sees it blocked; completing the blockers one by one unblocks it at the last.
        #expect(try await todo(stage, ["list", "is:blocked"], device: "phone").output.contains("Paint the fence"))
        #expect(try await todo(stage, ["done", sand], device: "phone").status == 0)
        let still = try #require(titles(try await todo(stage, ["list", "is:blocked"])).first)
        #expect(still.contains("(blocked by \(buy))"), "\(still)")
        #expect(try await todo(stage, ["done", buy]).status == 0)
        #expect(titles(try await todo(stage, ["list", "--offline", "is:blocked"])).isEmpty)
        #expect(!(try await todo(stage, ["list", "--offline"])).output.contains("blocked by"))

        // A cycle is refused with the cycle named; removing an edge with --no-depends.
        let plan = id(try await todo(stage, ["add", "Plan the garden"]))
        let dig = id(try await todo(stage, ["add", "Dig the beds", "--depends", plan]))
        let cycle = try await todo(stage, ["edit", plan, "--depends", dig])
        #expect(cycle.status != 0 && cycle.errors.contains("cycle: 'Plan the garden' (\(plan)) → 'Dig the beds' (\(dig)) → 'Plan the garden' (\(plan))"), "\(cycle.errors)")
        #expect(try await todo(stage, ["edit", dig, "--depends", dig]).errors.contains("cannot wait on itself"))
        #expect(try await todo(stage, ["edit", dig, "--no-depends", plan]).status == 0)
        #expect(try await todo(stage, ["edit", plan, "--depends", dig]).status == 0)

        // A blocker trashed leaves no reference on screen.
        #expect(try await todo(stage, ["trash", dig], device: "phone").status == 0)
        let after = try await todo(stage, ["list"])
        #expect(!after.output.contains("blocked by") && after.output.contains("Plan the garden"), "\(after.output)")
        let planRow = try rows(try await todo(stage, ["list", "--offline", "--json"])).first { $0["title"] as? String == "Plan the garden" }
        #expect(planRow?["depends"] == nil, "\(String(describing: planRow))")
        await stage.server.shutdown()
    }

    @Test func projectsAreListPathsAndProjectsAndTagsCountOpenTodos() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        #expect(try await todo(stage, ["add", "Mow the lawn", "--project", "Home.Garden", "--tag", "weekend"]).status == 0)
        #expect(try await todo(stage, ["add", "Weed the beds", "--project", "home.garden", "--tag", "weekend"]).status == 0)
        #expect(try await todo(stage, ["add", "Fix the tap", "--project", "Home", "--tag", "Weekend", "--tag", "tools"]).status == 0)
        let homework = id(try await todo(stage, ["add", "Essay", "--project", "Homework"]))
        let loose = id(try await todo(stage, ["add", "Call mum"]))
        let finished = id(try await todo(stage, ["add", "Finished chore", "--project", "Home", "--tag", "tools"]))
        #expect(try await todo(stage, ["done", finished]).status == 0)

        let home = titles(try await todo(stage, ["list", "--offline", "project:Home"]))
        #expect(home.count == 3 && !home.contains { $0.contains("Essay") }, "\(home)")
        #expect(titles(try await todo(stage, ["list", "--offline", "project:home.garden"])).count == 2)
        #expect(titles(try await todo(stage, ["list", "--offline", "project:none"])).first?.contains("Call mum") == true)
        let json = try rows(try await todo(stage, ["list", "--offline", "--json", "project:Home.Garden"]))
        #expect(json.allSatisfy { $0["project"] as? String == "Home.Garden" }, "\(json)")

        let projects = try await todo(stage, ["projects"], device: "phone")
        #expect(projects.status == 0, "\(projects.errors)")
        let lines = titles(projects)
        #expect(lines.first?.hasPrefix("Project") == true, "\(lines)")
        // Each project with its open todos, a parent counting its children's, the nested ones indented below their
        // parent (as task projects shows and counts them).
        let words = lines.map { $0.split(separator: " ").joined(separator: " ") }
        #expect(words == ["Project Open", "Home 3", "Garden 2", "Homework 1", "(none) 1", "3 projects, 5 open"], "\(lines)")
        #expect(lines[2].hasPrefix("  Garden"), "\(lines)")

        let tags = titles(try await todo(stage, ["tags", "--offline"]))
        #expect(tags.map { $0.lowercased().split(separator: " ").joined(separator: " ") } == ["tag open", "tools 1", "weekend 3"], "\(tags)")

        // Moving with --project (and none) on another device.
        #expect(try await todo(stage, ["edit", homework, "--project", "Home.Study"], device: "phone").status == 0)
        #expect(try await todo(stage, ["edit", loose, "--project", "none"], device: "phone").status == 0)
        #expect(titles(try await todo(stage, ["list", "project:Home"])).count == 4)
        let bad = try await todo(stage, ["add", "Odd", "--project", "Home..Garden"])
        #expect(bad.status != 0 && bad.errors.contains("not a project"), "\(bad.errors)")
        await stage.server.shutdown()
    }

    @Test func infoShowsEveryFieldAndTheHistoryAcrossDevices() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let blocker = id(try await todo(stage, ["add", "Buy seeds"]))
        let sow = id(try await todo(stage, [
            "add", "Sow carrots", "--project", "Home.Garden", "--due", "2031-04-01", "--tag", "garden", "--priority", "2",
            "--scheduled", "2031-03-25", "--depends", blocker, "--notes", "Rows 30 cm apart",
        ]))
        #expect(try await todo(stage, ["annotate", sow, "Bought the fleece"]).status == 0)
        #expect(try await todo(stage, ["list"], device: "phone").status == 0)
        #expect(try await todo(stage, ["edit", sow, "--title", "Sow early carrots"], device: "phone").status == 0)

        let info = try await todo(stage, ["info", sow])
        #expect(info.status == 0, "\(info.errors)")
        let text = info.output
        for expected in [
            "Title       Sow early carrots", "Project     Home.Garden", "Due         2031-04-01", "Scheduled   2031-03-25",
            "Priority    2", "Tags        +garden", "Blocked by  \(blocker) Buy seeds", "Notes       Rows 30 cm apart", "Bought the fleece",
            "Status      open", "Database    private",
        ] {
            #expect(text.contains(expected), "\(expected) in \(text)")
        }
        let history = text.components(separatedBy: "History").last ?? ""
        let lines = history.split(separator: "\n").map(String.init)
        // Newest first: the phone's title edit (via the cloud), then this device's own edits down to the creation.
        #expect(lines.first?.contains("(via the cloud): title: 'Sow early carrots'") == true, "\(lines)")
        #expect(lines.first?.contains("this device") == false, "\(lines)")
        #expect(lines.last?.contains("this device: created") == true, "\(lines)")
        #expect(lines.contains { $0.contains("annotations:") && $0.contains("Bought the fleece") }, "\(lines)")
        let missing = try await todo(stage, ["info", "ffffffff"])
        #expect(missing.status != 0 && missing.errors.lowercased().contains("no todo has the id"), "\(missing.errors)")
        await stage.server.shutdown()
    }
}
