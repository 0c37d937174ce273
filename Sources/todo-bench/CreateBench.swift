import CloudModel
import Foundation
import TodoStore
import TodoSync
import TodoUI

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench create`: creating todos as a person does, with the real `todo` binary as whole processes, beside
/// Taskwarrior (`task import` of the same todos) when it is installed.
///
/// - `todo import` of COUNT and LARGE todos, the cloud down (stored and queued only, like `task import`) and up
///   (stored, then sent);
/// - `todo sync` sending COUNT todos created offline;
/// - the first frame of the terminal app over a cache of LARGE todos, the real binary under a pseudo-terminal.
enum CreateBench {
    static let password = "bench-password"

    static func run(count: Int = 10_000, largeCount: Int = 100_000) async throws {
        print("== creating todos: whole processes, release build, \(ProcessInfo.processInfo.activeProcessorCount) cores ==")
        let todo = try DeviceBench.todoExecutable()
        let task = taskwarriorExecutable()
        if task == nil {
            print("Taskwarrior is not installed (apt-get install taskwarrior): only our figures are printed.")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-create-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let server = try ServerProcess()
        defer { server.stop() }
        // A cloud that is stopped once its devices signed in: its address then answers nothing.
        let gone = try ServerProcess()

        var devices = 0
        func freshDevice(on cloud: ServerProcess) throws -> [String] {
            devices += 1
            let arguments = [
                "--account", "creator\(devices)", "--password", password, "--device", "main", "--server", cloud.baseURL,
                "--data-dir", scratch.appendingPathComponent("todo-\(devices)").path,
            ]
            // Signs in and creates the zone: what a device did before.
            BenchAccounts.create(cloud.baseURL, account: "creator\(devices)")
            let signIn = try runProcess(todo, ["sync"] + arguments)
            guard signIn.status == 0 else { throw BenchError("todo sync (sign-in) exited with \(signIn.status): \(signIn.errorText)") }
            return arguments
        }

        for size in [count, largeCount] where size > 0 {
            let file = scratch.appendingPathComponent("todos-\(size).json")
            try writeTodoFile(size, to: file)
            let taskFile = scratch.appendingPathComponent("tasks-\(size).json")
            try writeTaskFile(size, to: taskFile)
            let runs = size <= 20_000 ? 3 : 1

            var down: [Double] = []
            for _ in 0..<runs {
                let arguments = try freshDevice(on: gone)
                gone.process.terminate()
                gone.process.waitUntilExit()
                let result = try runProcess(todo, ["import", file.path, "--quiet"] + arguments)
                guard result.status == 0, result.outputText.contains("added \(size), updated 0") else {
                    throw BenchError("todo import (cloud down) exited with \(result.status): \(result.outputText) \(result.errorText)")
                }
                down.append(result.seconds)
                try gone.restart()
            }
            var up: [Double] = []
            for _ in 0..<runs {
                let arguments = try freshDevice(on: server)
                let result = try runProcess(todo, ["import", file.path, "--quiet"] + arguments)
                guard result.status == 0, !result.errorText.contains("pending") else {
                    throw BenchError("todo import (cloud up) exited with \(result.status): \(result.errorText)")
                }
                up.append(result.seconds)
            }
            var queued: [Double] = []
            for _ in 0..<runs {
                let arguments = try freshDevice(on: server)
                let result = try runProcess(todo, ["import", file.path, "--quiet", "--no-send"] + arguments)
                guard result.status == 0 else { throw BenchError("todo import --no-send exited with \(result.status): \(result.errorText)") }
                queued.append(result.seconds)
            }
            var taskTimes: [Double] = []
            if let task {
                for run in 0..<runs {
                    let data = scratch.appendingPathComponent("task-\(size)-\(run)")
                    let environment = try taskEnvironment(data)
                    let result = try runProcess(task, ["rc.data.location=\(data.path)", "rc.confirmation=off", "import", taskFile.path], environment: environment)
                    guard result.status == 0 else { throw BenchError("task import exited with \(result.status): \(result.errorText)") }
                    taskTimes.append(result.seconds)
                }
            }
            let target = size <= 10_000 ? 0.3 : Double(size) / 100_000 * 3
            print(String(format: "todo import of %6d todos, cloud down (stored and queued):  %@  (target <= %.1f s)", size, summary(down), target))
            print(String(format: "todo import of %6d todos, cloud up (stored, then sent):    %@", size, summary(up)))
            print(String(format: "todo import --no-send of %6d todos, cloud up (stored and queued): %@  (target <= %.1f s)", size, summary(queued), target))
            if !taskTimes.isEmpty {
                print(String(format: "task import of %6d tasks (Taskwarrior):                   %@   todo/task: %.2f (cloud down), %.2f (cloud up)",
                             size, summary(taskTimes), median(down) / median(taskTimes), median(up) / median(taskTimes)))
            }
        }
        gone.stop()

        // `todo sync` sending `count` todos created offline (written to the device's outbox beforehand).
        var syncs: [SyncBench.Measured] = []
        for run in 0..<3 {
            devices += 1
            syncs.append(try await SyncBench.once(
                todo, server: server, count: count, account: "creator\(devices)", in: scratch.appendingPathComponent("sync-\(run)")))
        }
        print(String(format: "todo sync sending %d todos created offline:             %@  (target <= 0.2 s; todo CPU %.3f s, cloud CPU %.3f s)",
                     count, summary(syncs.map(\.wall)), median(syncs.map(\.deviceCPU)), median(syncs.map(\.cloudCPU))))
        // The floor the cloud sets: the same number of records written by a client that spends nothing on them.
        let floor = try DeviceBench.serverAlone(server, count: count)
        print(String(format: "  the cloud alone writing %d records (pre-encoded requests, <= 3 in flight): %.3f s", count, floor))
        if task != nil {
            print("  (no `task sync` beside it: it needs a taskd server with its own TLS certificates; see docs/BENCHMARKS.md)")
        }

        // The first frame of the app over `largeCount` cached todos, the real binary under a pseudo-terminal.
        if largeCount > 0 {
            let frames = try firstFrame(todo, server: server, count: largeCount, in: scratch)
            print(String(format: "todo (the app) over %d cached todos, whole process under a pty: first frame %.0f ms, first rows %.0f ms  (target <= 300 ms; %@)",
                         largeCount, frames.frame * 1000, frames.rows * 1000, frames.runs))
        }
    }

    /// The first frame and the first drawn rows of `todo` (the app) over a cache of `count` todos, as a person sees
    /// them: the real binary started under a pseudo-terminal (120×40, xterm), timed from its start to the first
    /// bytes of the header and to the first todo title in what it writes. Median of 3 launches.
    static func firstFrame(_ todo: String, server: ServerProcess, count: Int, in scratch: URL) throws -> (frame: Double, rows: Double, runs: String) {
        let account = "frame\(count)"
        try UIBench.upload(count, to: server, account: account)
        let directory = scratch.appendingPathComponent("frame")
        let arguments = ["--account", account, "--password", password, "--device", "main", "--server", server.baseURL, "--data-dir", directory.path]
        let filled = try runProcess(todo, ["sync"] + arguments)
        guard filled.status == 0 else { throw BenchError("todo sync (filling the cache) exited with \(filled.status)") }
        var frames: [Double] = []
        var rows: [Double] = []
        for _ in 0..<3 {
            let measured = try PseudoTerminalRun.firstFrame(todo, arguments, header: "CloudTodo", row: "#")
            frames.append(measured.header)
            rows.append(measured.row)
        }
        return (median(frames), median(rows), "3 launches: first frame " + summary(frames) + ", rows " + summary(rows))
    }

    /// `todo import`'s file of `count` todos (what `task import` gets too, in its own JSON).
    static func writeTodoFile(_ count: Int, to url: URL) throws {
        let todos = (0..<count).map { index -> JSONValue in
            var todo: [String: JSONValue] = [
                "title": .string(title(index)), "due": .string(dueDay(index)), "priority": .int(Int64(index % 4)), "done": .bool(index % 5 == 0),
            ]
            if index % 3 == 0 { todo["notes"] = .string("Remember to check the details before Friday.") }
            return .object(todo)
        }
        try write(todos, count * 120, to: url)
    }

    /// The same todos as Taskwarrior's import JSON.
    static func writeTaskFile(_ count: Int, to url: URL) throws {
        let priorities = ["", "L", "M", "H"]
        let tasks = (0..<count).map { index -> JSONValue in
            var task: [String: JSONValue] = [
                "uuid": .string(UUID().uuidString.lowercased()), "description": .string(title(index)), "entry": .string("20261101T000000Z"),
                "due": .string(dueDay(index).replacingOccurrences(of: "-", with: "") + "T000000Z"),
                "status": .string(index % 5 == 0 ? "completed" : "pending"),
            ]
            if index % 3 == 0 {
                task["annotations"] = .array([
                    .object(["entry": .string("20261101T000000Z"), "description": .string("Remember to check the details before Friday.")])
                ])
            }
            if index % 4 > 0 { task["priority"] = .string(priorities[index % 4]) }
            if index % 5 == 0 { task["end"] = .string("20261102T000000Z") }
            return .object(task)
        }
        try write(tasks, count * 200, to: url)
    }

    /// Writes a JSON list (object keys sorted) to `url`.
    static func write(_ items: [JSONValue], _ capacity: Int, to url: URL) throws {
        var writer = JSONWriter(reserving: capacity)
        writer.json(.array(items))
        try Data(writer.bytes).write(to: url)
    }

    static func title(_ index: Int) -> String {
        let titles = ["Buy milk", "Call the plumber", "Renew passport", "写周报", "Book dentist", "Pay electricity bill", "整理书架", "Plan trip to Kyoto"]
        return "\(titles[index % titles.count]) #\(index)"
    }

    static func dueDay(_ index: Int) -> String {
        String(format: "2026-%02d-%02d", 1 + index % 12, 1 + index % 28)
    }

    /// `task` on the PATH, if Taskwarrior is installed.
    /// The environment of a Taskwarrior with its own, empty data directory `data` (made here) and no questions.
    static func taskEnvironment(_ data: URL, extraSettings: String = "") throws -> [String: String] {
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let rc = data.appendingPathComponent("taskrc")
        try Data("data.location=\(data.path)\nconfirmation=off\nverbose=nothing\n\(extraSettings)".utf8).write(to: rc)
        var environment = ProcessInfo.processInfo.environment
        environment["TASKRC"] = rc.path
        environment["TASKDATA"] = data.path
        return environment
    }

    static func taskwarriorExecutable() -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(directory)/task"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }

    /// "median s (min–max)".
    static func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        if sorted.count == 1 { return String(format: "%.3f s", sorted[0]) }
        return String(format: "%.3f s (%.3f–%.3f, %d runs)", median(sorted), sorted.first ?? 0, sorted.last ?? 0, sorted.count)
    }
}

extension ServerProcess {
    /// Starts the cloud again on the same port and data directory after it was terminated.
    func restart() throws {
        let again = Process()
        again.executableURL = process.executableURL
        again.arguments = process.arguments
        again.standardOutput = FileHandle.nullDevice
        try again.run()
        process = again
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? HTTP.shared.get(baseURL + EndpointAPI.healthPath))?.status == 200 { return }
            usleep(20_000)
        }
        throw BenchError("the cloud did not start again")
    }
}

/// What a child process did: its exit status, output and wall time.
struct ProcessRun {
    var status: Int32
    var output: Data
    var error: Data
    var seconds: Double
    var outputText: String { String(decoding: output, as: UTF8.self) }
    var errorText: String { String(decoding: error, as: UTF8.self) }
}

/// Runs `executable` to its end, timing it from launch to exit (its output read meanwhile).
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    let start = ContinuousClock.now
    try process.run()
    let errorText = ErrorCollector()
    let collected = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        errorText.data = error.fileHandleForReading.readDataToEndOfFile()
        collected.signal()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let elapsed = seconds(since: start)
    collected.wait()
    return ProcessRun(status: process.terminationStatus, output: outputData, error: errorText.data, seconds: elapsed)
}

/// Standard error of a child, read on a thread of its own.
final class ErrorCollector: @unchecked Sendable {
    var data = Data()
}
