import CloudModel
import CloudServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench everyday [TODOS [ROUNDS]]`: the commands people run every day, the real `todo` binary beside
/// Taskwarrior's `task` on the same todos, as whole processes, in interleaved rounds (medians), each with its peak
/// resident memory (the child's own `ru_maxrss`, from `wait4` in GNU time) and the ratio theirs / ours (> 1: we are faster).
///
/// TODOS is 1,000, 10,000 (the default) or 100,000 todos: about 1.7 % tagged `home`, due dates spread over weeks
/// before and after today, a tenth done. Taskwarrior gets the same todos by `task import` into a data directory of
/// its own (TASKRC and TASKDATA in a temporary directory); CloudTodo by `todo import` on a device of its own,
/// signed in to a cloud on a loopback port. `BENCH_TODO=path` measures another build's `todo` (a before).
enum EverydayBench {
    /// One command as a whole process: how long it took and its peak resident memory.
    struct Timed {
        var seconds: Double
        var peakMegabytes: Double
    }

    /// One row of the table: our runs and theirs.
    struct Row {
        var name: String
        var ours: [Timed] = []
        var theirs: [Timed] = []
        /// Why there is no peer, when there is none.
        var noPeer: String?
    }

    static func run(count: Int, rounds: Int) async throws {
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        let todo = try ProcessInfo.processInfo.environment["BENCH_TODO"] ?? DeviceBench.todoExecutable()
        guard let task = CreateBench.taskwarriorExecutable() else {
            throw BenchError("Taskwarrior is not installed (apt-get install taskwarrior): this bench compares with it")
        }
        let taskd = findExecutable("taskd")
        print("== todo-bench everyday \(count) \(rounds): whole processes, \(rounds) interleaved rounds (medians), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(load) at the start ==")
        print("ours: \(todo)")
        if carriesTheCloud(todo) {
            print("note: this todo carries the cloud's libraries (a build without --disable-default-traits): its start-up and memory are not an installed todo's")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-everyday-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let server = try ServerProcess()
        defer { server.stop() }

        let todoFile = scratch.appendingPathComponent("todos.json")
        let taskFile = scratch.appendingPathComponent("tasks.json")
        try writeFiles(count, todo: todoFile, task: taskFile)

        var devices = 0
        // A fresh device signed in to the cloud (its account and zone made, as a device did before).
        func freshDevice() throws -> [String] {
            devices += 1
            let account = "everyday\(devices)"
            BenchAccounts.create(server.baseURL, account: account)
            let arguments = [
                "--account", account, "--password", CreateBench.password, "--device", "main", "--server", server.baseURL,
                "--data-dir", scratch.appendingPathComponent("device-\(devices)").path,
            ]
            let signIn = try runProcess(todo, ["sync"] + arguments)
            guard signIn.status == 0 else { throw BenchError("todo sync (sign-in) exited with \(signIn.status): \(signIn.errorText)") }
            return arguments
        }
        var taskDirectories = 0
        func freshTaskData() throws -> [String: String] {
            taskDirectories += 1
            return try CreateBench.taskEnvironment(scratch.appendingPathComponent("task-\(taskDirectories)"), extraSettings: "gc=on\n")
        }

        // The reading commands' data: one device that imported and sent them, one Taskwarrior that imported them.
        let reader = try freshDevice()
        try check(try runProcess(todo, ["import", todoFile.path, "--quiet"] + reader), "todo import (the reading device)")
        let readerTask = try freshTaskData()
        try check(try runProcess(task, ["import", taskFile.path], environment: readerTask), "task import (the reading data)")
        // Taskwarrior moves done tasks out of its pending file at its first report; that is not what is timed.
        _ = try runProcess(task, ["list"], environment: readerTask)

        let reads: [(name: String, ours: [String], theirs: [String])] = [
            ("list +home", ["list", "+home", "--offline"], ["+home", "list"]),
            ("list due.before:eow", ["list", "due.before:eow", "--offline"], ["due.before:eow", "list"]),
            ("next", ["next", "--offline"], ["next"]),
            ("export (taskwarrior JSON vs task export)", ["export", "--offline", "--format", "taskwarrior"], ["export"]),
            ("list all open", ["list", "--offline"], ["list"]),
        ]
        // What each shows, counted once outside the timing, so the rows compare the same answers.
        for read in reads {
            let ours = try runProcess(todo, read.ours + reader)
            let theirs = try runProcess(task, read.theirs, environment: readerTask)
            try check(ours, "todo \(read.ours.joined(separator: " "))")
            print(String(format: "  %@: ours %d lines, theirs %d lines", read.name, lineCount(ours.output), lineCount(theirs.output)))
        }

        var sending = Row(name: "send \(count) offline-created (todo sync vs task sync)")
        if taskd == nil { sending.noPeer = "taskd is not installed: no task sync to compare" }
        var importing = Row(name: "todo import, cloud up (sent) vs task import")
        var readRows = reads.map { Row(name: $0.name) }
        let env = ProcessInfo.processInfo.environment
        for round in 0..<rounds {
            let oursFirst = round % 2 == 0
            // Sending: a device whose outbox holds the todos (imported without sending), then one `todo sync`.
            let offline = try freshDevice()
            try check(try runProcess(todo, ["import", todoFile.path, "--quiet", "--no-send"] + offline), "todo import --no-send")
            // The cloud's background checkpoint of the last writes ends before the clock starts.
            try await Task.sleep(for: .milliseconds(400))
            sending.ours.append(try timed(todo, ["sync"] + offline, environment: env))

            // Creating and sending: a fresh device; a fresh Taskwarrior.
            let importer = try freshDevice()
            let taskData = try freshTaskData()
            try await Task.sleep(for: .milliseconds(400))
            let importPair = try pair(oursFirst) {
                try timed(todo, ["import", todoFile.path, "--quiet"] + importer, environment: env)
            } theirs: {
                try timed(task, ["import", taskFile.path], environment: taskData)
            }
            importing.ours.append(importPair.ours)
            importing.theirs.append(importPair.theirs)

            for (index, read) in reads.enumerated() {
                let measured = try pair(oursFirst) {
                    try timed(todo, read.ours + reader, environment: env)
                } theirs: {
                    try timed(task, read.theirs, environment: readerTask)
                }
                readRows[index].ours.append(measured.ours)
                readRows[index].theirs.append(measured.theirs)
            }
        }
        print(padded("with \(count) todos", 46) + padded("ours", 10) + padded("theirs", 10) + padded("ratio", 9) + "peak RSS ours / theirs")
        for row in [sending, importing] + readRows { print(line(row)) }
        print("ratio = theirs / ours (> 1: we are faster); times and memory are medians of \(rounds) rounds, ours and theirs "
            + "alternating first; the reads are --offline (from the cache), as Taskwarrior reads its files")
    }

    /// Runs the two sides of a row, ours first when `oursFirst`.
    static func pair(_ oursFirst: Bool, ours: () throws -> Timed, theirs: () throws -> Timed) throws -> (ours: Timed, theirs: Timed) {
        if oursFirst {
            let a = try ours()
            return (a, try theirs())
        }
        let b = try theirs()
        return (try ours(), b)
    }

    /// The row as printed: medians, the ratio and both peak memories.
    static func line(_ row: Row) -> String {
        let ours = CreateBench.median(row.ours.map(\.seconds))
        let oursMemory = CreateBench.median(row.ours.map(\.peakMegabytes))
        guard row.noPeer == nil, !row.theirs.isEmpty else {
            return padded(row.name, 46) + String(format: "%7.3f s %9@ %7@   %5.1f MB / —   (%@)", ours, "—", "—", oursMemory, row.noPeer ?? "")
        }
        let theirs = CreateBench.median(row.theirs.map(\.seconds))
        let theirsMemory = CreateBench.median(row.theirs.map(\.peakMegabytes))
        return padded(row.name, 46)
            + String(
                format: "%7.3f s %7.3f s %6.2f×   %5.1f MB / %5.1f MB (%.2f×)", ours, theirs, theirs / max(ours, 1e-6), oursMemory, theirsMemory,
                theirsMemory / max(oursMemory, 1e-6))
    }

    /// Runs `executable` to its end with its output thrown away; the wall time from spawn to exit and its peak RSS.
    ///
    /// The child is started by GNU time (`/usr/bin/time -f %M`), which reports its `ru_maxrss` from `wait4`: Linux
    /// keeps a process's high-water mark across `execve`, so a child spawned from this bench directly would report at
    /// least this bench's own resident memory. Without GNU time, the memory column is that floor.
    static func timed(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Timed {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("everyday-rss-\(getpid())").path
        let measured = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        let command = measured ? ["/usr/bin/time", "-f", "%M", "-o", report, executable] + arguments : [executable] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        InheritedDescriptors.closeInChild(&actions)
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4 failed for \(executable)") }
        }
        let elapsed = seconds(since: start)
        let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exited == 0 else { throw BenchError("\(executable) \(arguments.prefix(3).joined(separator: " ")) exited with \(exited)") }
        var kilobytes = Double(usage.ru_maxrss)
        if measured, let text = try? String(contentsOfFile: report, encoding: .utf8), let reported = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kilobytes = reported
        }
        return Timed(seconds: elapsed, peakMegabytes: kilobytes / 1024)
    }

    /// `text` with spaces after it up to `width` characters.
    static func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }

    static func check(_ run: ProcessRun, _ what: String) throws {
        guard run.status == 0 else { throw BenchError("\(what) exited with \(run.status): \(run.errorText.prefix(300))") }
    }

    static func lineCount(_ data: Data) -> Int { data.reduce(0) { $1 == 10 ? $0 + 1 : $0 } }

    static func findExecutable(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether the `todo` at `path` has the cloud's libraries linked in (SwiftPM's default trait links them, unused).
    static func carriesTheCloud(_ path: String) -> Bool {
        guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return false }
        return bytes.range(of: Data("HummingbirdCore".utf8)) != nil
    }

    /// The same `count` todos as `todo import` reads them and as `task import` does: every 58th tagged `home` (1.7 %),
    /// the others one of five other tags; three in four due, on days from two weeks ago to eight weeks ahead; a tenth
    /// done; a third with notes (Taskwarrior: an annotation).
    static func writeFiles(_ count: Int, todo: URL, task: URL) throws {
        let tags = ["garden", "work", "errand", "call", "read"]
        let priorities = ["", "L", "M", "H"]
        let calendar = Calendar(identifier: .gregorian)
        let today = calendar.startOfDay(for: Date())
        let days = DateFormatter()
        days.locale = Locale(identifier: "en_US_POSIX")
        days.dateFormat = "yyyy-MM-dd"
        let stamps = DateFormatter()
        stamps.locale = Locale(identifier: "en_US_POSIX")
        stamps.timeZone = TimeZone(identifier: "UTC")
        stamps.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var todos: [JSONValue] = []
        var tasks: [JSONValue] = []
        todos.reserveCapacity(count)
        tasks.reserveCapacity(count)
        for index in 0..<count {
            let tag = index % 58 == 0 ? "home" : tags[index % tags.count]
            let due = index % 4 == 3 ? nil : calendar.date(byAdding: .day, value: (index * 7) % 70 - 14, to: today)
            let done = index % 10 == 1
            let title = CreateBench.title(index)
            var todo: [String: JSONValue] = [
                "title": .string(title), "tags": .array([.string(tag)]), "priority": .int(Int64(index % 4)), "done": .bool(done),
            ]
            var entry: [String: JSONValue] = [
                "uuid": .string(UUID().uuidString.lowercased()), "description": .string(title), "entry": .string("20261101T000000Z"),
                "status": .string(done ? "completed" : "pending"), "tags": .array([.string(tag)]),
            ]
            if let due {
                todo["due"] = .string(days.string(from: due))
                entry["due"] = .string(stamps.string(from: due))
            }
            if index % 3 == 0 {
                todo["notes"] = .string("Remember to check the details before Friday.")
                entry["annotations"] = .array([
                    .object(["entry": .string("20261101T000000Z"), "description": .string("Remember to check the details before Friday.")])
                ])
            }
            if index % 4 > 0 { entry["priority"] = .string(priorities[index % 4]) }
            if done { entry["end"] = .string("20261102T000000Z") }
            todos.append(.object(todo))
            tasks.append(.object(entry))
        }
        try CreateBench.write(todos, count * 160, to: todo)
        try CreateBench.write(tasks, count * 240, to: task)
    }
}
