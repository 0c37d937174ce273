import CloudServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The end-to-end suites of trusted text (hostile text, terminal quirks, messages), one test at a time: each starts
/// many processes, and the timed two-terminal tests run beside them.
@Suite(.serialized)
struct TrustedTextEndToEnd {}

/// Runs the real `todo` binary as a whole process against an end-to-end stage's cloud, one account per call.
struct TodoCommandLine {
    let stage: E2EStage

    /// What one run printed and how it exited.
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: Data
        var output: String { String(decoding: stdout, as: UTF8.self) }
        var errors: String { String(decoding: stderr, as: UTF8.self) }
        /// Every byte the process wrote, both streams.
        var allText: String { output + errors }
    }

    /// Runs `todo ARGUMENTS --account A --password … --server … --data-dir …` and waits for it.
    ///
    /// The wait polls instead of blocking in waitpid: the cloud the process talks to runs on this test process's
    /// cooperative threads, which a blocked wait would take away from it.
    @discardableResult
    func run(_ account: String, _ arguments: [String], device: String = "main", environment: [String: String] = [:]) async throws -> Result {
        let options = [
            "--account", account, "--password", "e2e-password-\(account)", "--device", device, "--server",
            stage.server.baseURL.absoluteString, "--data-dir", stage.directory.appendingPathComponent("devices").path,
        ]
        return try await run(arguments + options, environment: environment)
    }

    /// Runs `todo ARGUMENTS` as given (no flags added), standard input empty, and waits for it; `environment` is set over this process's.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await SpawnedProcess.run(stage.binary, arguments, environment: environment)
    }
}

/// A process of the suite's, started with posix_spawn: standard input empty, both outputs in files (a process it
/// starts in turn, such as a detached cloud, never holds the test runner's pipes), waited for by polling so the
/// cooperative threads (which may run the cloud it talks to) stay free. Foundation's `Process.run()` is not used:
/// it crashed once in CI (a bad read inside its own copying) while other tests ran beside it.
enum SpawnedProcess {
    /// Runs `binary ARGUMENTS` with `environment` set over this process's; ends it and throws after `timeout`.
    static func run(
        _ binary: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) async throws -> TodoCommandLine.Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out").path
        let err = directory.appendingPathComponent("err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        InheritedDescriptors.closeOnExec()
        guard posix_spawn(&pid, binary, &actions, nil, argv, envp) == 0 else { throw E2EError("cannot start \(binary)") }
        let start = ContinuousClock.now
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped == -1 && errno != EINTR) { break }
            if ContinuousClock.now - start > timeout {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw E2EError("\(binary) \(arguments.joined(separator: " ")) did not end within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return TodoCommandLine.Result(
            status: code, stdout: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(),
            stderr: (try? Data(contentsOf: URL(fileURLWithPath: err))) ?? Data())
    }
}
