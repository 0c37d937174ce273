import CloudServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts `todo server` as a daemon in its own session, logging to a file, and waits until it answers.
enum Daemon {
    /// Re-executes this binary without `--detach`, detached from the terminal, then waits until the child has taken
    /// the data directory's `server.lock` and published its address there (it does so once it listens).
    static func detach(configuration: ServerConfiguration, arguments: [String]) async throws {
        let directory = configuration.dataDirectory
        if let running = ServerLockFile.running(in: directory) {
            throw DaemonError("a cloud already serves \(directory.path) (pid \(running.pid), \(running.url))")
        }
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let logPath = directory.appendingPathComponent("server.log").path
        let executable = try currentExecutable()
        let childArguments = [executable] + arguments.filter { $0 != "--detach" }

        // The daemon outlives this process: it must not keep a pipe or socket of whoever started us open (a caller
        // waiting for our output's end would wait for the daemon's).
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        InheritedDescriptors.closeInChild(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID (glibc, needs _GNU_SOURCE to be named)

        var pid: pid_t = 0
        let argv = childArguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else { throw DaemonError("could not start the server: \(String(cString: strerror(status)))") }

        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let running = ServerLockFile.running(in: directory), running.pid == pid {
                print("CloudTodo server running (pid \(pid)) on \(running.url), log: \(logPath)")
                return
            }
            var childStatus: Int32 = 0
            if waitpid(pid, &childStatus, WNOHANG) == pid {
                throw DaemonError("the server exited during start-up: \(lastLine(of: logPath) ?? "see \(logPath)")")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DaemonError("the server did not start within 15 s; see \(logPath)")
    }

    /// The last line a failed child wrote to its log: usually why it stopped.
    private static func lastLine(of path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").last.map { String($0.suffix(500)) }
    }

    private static func currentExecutable() throws -> String {
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return path
    }
}

/// A daemon start-up failure, said plainly.
struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
