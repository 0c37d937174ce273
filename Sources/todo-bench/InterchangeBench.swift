import CloudModel
import Foundation

/// `todo-bench interchange [COUNT]`: `todo export` and `todo import` of COUNT todos (tags, due times, repeats,
/// annotations, lists) in every format, the real `todo` binary as whole processes, beside Taskwarrior's own
/// `task export` / `task import` of the same todos when it is installed.
enum InterchangeBench {
    static func run(count: Int = 100_000) async throws {
        print("== export and import of \(count) todos: whole processes, release build ==")
        let todo = try DeviceBench.todoExecutable()
        let task = CreateBench.taskwarriorExecutable()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-interchange-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let server = try ServerProcess()
        defer { server.stop() }
        var accounts = 0
        func freshDevice() throws -> [String] {
            accounts += 1
            let account = "porter\(accounts)"
            BenchAccounts.create(server.baseURL, account: account)
            let arguments = [
                "--account", account, "--password", CreateBench.password, "--device", "main", "--server", server.baseURL,
                "--data-dir", scratch.appendingPathComponent("device-\(accounts)").path,
            ]
            let signIn = try runProcess(todo, ["sync"] + arguments)
            guard signIn.status == 0 else { throw BenchError("todo sync (sign-in) exited with \(signIn.status): \(signIn.errorText)") }
            return arguments
        }

        let source = scratch.appendingPathComponent("planned.json")
        try writePlannedFile(count, to: source)
        let filled = try freshDevice()
        let fill = try runProcess(todo, ["import", source.path, "--quiet", "--no-send"] + filled)
        guard fill.status == 0 else { throw BenchError("todo import (filling) exited with \(fill.status): \(fill.errorText)") }
        print(String(format: "filling a cache with %d planned todos (todo import --no-send, json): %.2f s", count, fill.seconds))

        for format in ["ics", "taskwarrior", "json"] {
            let file = scratch.appendingPathComponent("export.\(format)")
            let export = try runProcess(todo, ["export", "--offline", "--format", format, "--output", file.path] + filled)
            guard export.status == 0 else { throw BenchError("todo export --format \(format) exited with \(export.status): \(export.errorText)") }
            let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            let reader = try freshDevice()
            let imported = try runProcess(todo, ["import", file.path, "--quiet", "--no-send"] + reader)
            guard imported.status == 0, imported.outputText.contains("Added") else {
                throw BenchError("todo import of \(format) exited with \(imported.status): \(imported.errorText)")
            }
            print(String(format: "%-11@ todo export %.2f s, todo import %.2f s (%d MB; target <= 10 s each)", format, export.seconds, imported.seconds, size >> 20))
            if format == "taskwarrior", let task {
                let environment = try CreateBench.taskEnvironment(scratch.appendingPathComponent("taskdata"), extraSettings: "recurrence=off\n")
                let taskImport = try runProcess(task, ["import", file.path], environment: environment)
                guard taskImport.status == 0 else { throw BenchError("task import exited with \(taskImport.status): \(taskImport.errorText)") }
                let taskExport = try runProcess(task, ["export"], environment: environment)
                guard taskExport.status == 0 else { throw BenchError("task export exited with \(taskExport.status)") }
                print(String(format: "            task import %.2f s, task export %.2f s (Taskwarrior, the same file)   todo/task: import %.2f, export %.2f",
                             taskImport.seconds, taskExport.seconds, imported.seconds / taskImport.seconds, export.seconds / taskExport.seconds))
            }
        }
        if task == nil { print("Taskwarrior is not installed (apt-get install taskwarrior): only our figures are printed.") }
    }

    /// `todo import`'s JSON of `count` todos as people plan: tags, due days and times, some repeating, some in lists,
    /// some annotated.
    static func writePlannedFile(_ count: Int, to url: URL) throws {
        let tags = ["home", "garden", "work", "errand", "call", "read"]
        let repeats = ["FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,TH", "FREQ=MONTHLY;INTERVAL=2"]
        let todos = (0..<count).map { index -> JSONValue in
            var todoTags: [JSONValue] = [.string(tags[index % tags.count])]
            if index % 3 == 0 { todoTags.append(.string(tags[(index / 3) % tags.count] + "2")) }
            var todo: [String: JSONValue] = [
                "title": .string(CreateBench.title(index)), "tags": .array(todoTags),
                "due": .string(CreateBench.dueDay(index) + (index % 2 == 0 ? "" : " 09:30")), "priority": .int(Int64(index % 4)),
                "done": .bool(index % 5 == 0),
            ]
            if index % 10 == 0 { todo["repeat"] = .string(repeats[(index / 10) % repeats.count]) }
            if index % 7 == 0 { todo["list"] = .string("List \(index % 5)") }
            if index % 4 == 0 {
                todo["annotations"] = .array([.object(["entry": .string("2026-11-01T09:00:00Z"), "text": .string("Asked about it")])])
            }
            return .object(todo)
        }
        try CreateBench.write(todos, count * 220, to: url)
    }
}
