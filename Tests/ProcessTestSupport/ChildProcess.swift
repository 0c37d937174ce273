import CloudServer
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Child processes of the tests, started with posix_spawn and reaped by polling `waitpid` on their own pid.
///
/// Foundation's `Process` is not used for them: its waits hang when its SIGCHLD handling misses a child's end (a
/// full suite once hung for 15 minutes with `waitUntilExit` waiting on an openssl that had long exited, beside two
/// unreaped children of another test), and it crashed once in CI inside its own output copying. Output goes to
/// files (never a pipe that could fill), standard input is /dev/null, and the child inherits no descriptor of the
/// test process but its standard streams.
public enum ChildProcess {
    /// How a child ended and what it wrote.
    public struct Result: Sendable {
        /// The exit status (128 + the signal when a signal ended it).
        public var status: Int32
        /// Its standard output.
        public var stdout: Data
        /// Its standard error.
        public var stderr: Data
        /// Standard output as text.
        public var output: String { String(decoding: stdout, as: UTF8.self) }
        /// Standard error as text.
        public var errors: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// A child that does not end in time, or cannot start.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// A started child: its pid and the files its output goes to.
    public struct Running: Sendable {
        /// The child's pid.
        public let pid: pid_t
        /// The directory holding its `out` and `err` files.
        public let directory: URL
        /// What it has written to standard output so far.
        public var outputSoFar: String { (try? String(contentsOf: directory.appendingPathComponent("out"), encoding: .utf8)) ?? "" }
        /// What it has written to standard error so far.
        public var errorsSoFar: String { (try? String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)) ?? "" }
    }

    /// Starts `executable ARGUMENTS` with `environment` set over this process's (an absolute path; `/usr/bin/env` finds
    /// a tool on PATH and `env -C DIR` runs it in DIR).
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Running {
        let directory = ScratchDirectory.path("child")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory.appendingPathComponent("out").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, directory.appendingPathComponent("err").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        InheritedDescriptors.closeInChild(&actions)
        guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw Failure(description: "cannot start \(executable)")
        }
        return Running(pid: pid, directory: directory)
    }

    /// Runs a child to its end, waiting without holding a thread (the cooperative threads may run the cloud it talks
    /// to); kills it and throws after `timeout`.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) async throws -> Result {
        let child = try start(executable, arguments, environment: environment)
        guard let result = await firstValue(within: timeout, { finished(child) }) else {
            throw ended(child, after: timeout, executable, arguments)
        }
        return result
    }

    /// `run` for synchronous callers: polls on the calling thread (a test fails if that thread is a task's).
    public static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120),
        fileID: String = #fileID, line: Int = #line
    ) throws -> Result {
        let child = try start(executable, arguments, environment: environment)
        guard let result = firstValueBlocking(within: timeout, fileID: fileID, line: line, { finished(child) }) else {
            throw ended(child, after: timeout, executable, arguments)
        }
        return result
    }

    /// Ends a child (SIGTERM, then SIGKILL after `grace`), reaps it and removes its output files; what it wrote.
    @discardableResult
    public static func stop(_ child: Running, grace: Duration = .seconds(10)) async -> Result {
        kill(child.pid, SIGTERM)
        if let result = await firstValue(within: grace, { finished(child) }) { return result }
        kill(child.pid, SIGKILL)
        while true {
            if let result = await firstValue(within: 60, { finished(child) }) { return result }
        }
    }

    /// `stop` for synchronous code inside a task (a `defer`, a `deinit`): the signal goes now, and a detached task
    /// does the rest of `stop`, whose waits hold no thread.
    public static func stopInBackground(_ child: Running, grace: Duration = .seconds(10)) {
        kill(child.pid, SIGTERM)
        Task.detached { await stop(child, grace: grace) }
    }

    /// The child's result when it has ended (reaped, its files read and removed), else nil.
    public static func finished(_ child: Running) -> Result? {
        var status: Int32 = 0
        let reaped = waitpid(child.pid, &status, WNOHANG)
        if reaped == 0 || (reaped == -1 && errno == EINTR) { return nil }
        let code = reaped == -1 ? -1 : (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let result = Result(
            status: code, stdout: (try? Data(contentsOf: child.directory.appendingPathComponent("out"))) ?? Data(),
            stderr: (try? Data(contentsOf: child.directory.appendingPathComponent("err"))) ?? Data())
        try? FileManager.default.removeItem(at: child.directory)
        return result
    }

    private static func ended(_ child: Running, after timeout: Duration, _ executable: String, _ arguments: [String]) -> Failure {
        kill(child.pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(child.pid, &status, 0)
        try? FileManager.default.removeItem(at: child.directory)
        return Failure(description: "\(executable) \(arguments.joined(separator: " ")) did not end within \(timeout)")
    }
}
