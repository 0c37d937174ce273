import ArgumentParser
import CloudServer
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// `todo server status` and `todo server stop`: the cloud serving a data directory, found through the `server.lock`
// that server holds while it runs (see ServerLockFile).

extension ServerCommand {
    /// The data directory `--data-dir` names (ArgumentParser gives the option to `todo server` even after `status` or
    /// `stop`, so both verbs read it from there).
    var dataDirectory: URL { dataDir.map { URL(fileURLWithPath: $0) } ?? ServerConfiguration.defaultDataDirectory }
}

/// `todo server status`: address, pid and uptime of the cloud serving a data directory; exit 1 when none does.
struct ServerStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the cloud serving --data-dir (as for todo server): address, pid, uptime; exit 1 when none runs.")

    @ParentCommand var server: ServerCommand

    func run() throws {
        let directory = server.dataDirectory
        guard let running = ServerLockFile.running(in: directory) else {
            print("No CloudTodo server runs on \(directory.path).")
            throw ExitCode(TodoExitCode.failure)
        }
        let uptime = Date().timeIntervalSince1970 - running.started
        print("CloudTodo server running on \(running.url)")
        print("  pid       \(running.pid)")
        print("  uptime    \(ServerUptime.words(uptime))")
        print("  data dir  \(directory.path)")
    }
}

/// `todo server stop`: SIGTERM to the cloud serving a data directory, then waits until it has let its lock go.
struct ServerStopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop the cloud serving --data-dir (as for todo server) gracefully: SIGTERM, then wait.")

    @ParentCommand var server: ServerCommand

    @Option(help: "Seconds to wait for it to finish its requests and exit.")
    var timeout: Double = 20

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be above 0") }
    }

    func run() async throws {
        let directory = server.dataDirectory
        guard let running = ServerLockFile.running(in: directory) else {
            print("No CloudTodo server runs on \(directory.path); nothing to stop.")
            throw ExitCode(TodoExitCode.failure)
        }
        guard kill(running.pid, SIGTERM) == 0 else {
            throw ServerControlError("cannot signal the cloud (pid \(running.pid)): \(String(cString: strerror(errno)))")
        }
        let started = ContinuousClock.now
        let deadline = started + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if ServerLockFile.running(in: directory) == nil {
                let waited = ContinuousClock.now - started
                print("Stopped the CloudTodo server on \(running.url) (pid \(running.pid)) in \(ServerUptime.words(waited)).")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerControlError(
            "the cloud (pid \(running.pid)) is still running after \(Int(timeout)) s; it may be finishing long requests "
                + "(try again, or a longer --timeout)")
    }
}

/// A duration as people read it: `850 ms`, `42 s`, `3 min 12 s`, `2 h 5 min`, `3 d 4 h`.
enum ServerUptime {
    static func words(_ duration: Duration) -> String {
        words(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    static func words(_ seconds: Double) -> String {
        let whole = Int(max(seconds, 0))
        switch whole {
        case 0: return "\(Int(max(seconds, 0) * 1000)) ms"
        case ..<60: return "\(whole) s"
        case ..<3600: return "\(whole / 60) min \(whole % 60) s"
        case ..<86_400: return "\(whole / 3600) h \(whole % 3600 / 60) min"
        default: return "\(whole / 86_400) d \(whole % 86_400 / 3600) h"
        }
    }
}

/// A control verb's failure, said plainly.
struct ServerControlError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
