import CloudServer
import Foundation
import ProcessTestSupport
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

/// A process of the suite's, run as every test child is (`ChildProcess`): both outputs in files, so a process it starts
/// in turn, such as a detached cloud, never holds the test runner's pipes.
enum SpawnedProcess {
    /// Runs `binary ARGUMENTS` with `environment` set over this process's; ends it and throws after `timeout`.
    static func run(
        _ binary: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)
    ) async throws -> TodoCommandLine.Result {
        let result = try await ChildProcess.run(binary, arguments, environment: environment, timeout: timeout)
        return TodoCommandLine.Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}
