import CloudClient
import CloudServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts `todo server` as a daemon in its own session, logging to a file, and waits until it answers.
enum Daemon {
    /// Re-executes this binary without `--detach`, detached from the terminal, then polls `/health`.
    static func detach(configuration: ServerConfiguration, arguments: [String]) async throws {
        let directory = configuration.dataDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logPath = directory.appendingPathComponent("server.log").path
        let executable = try currentExecutable()
        let childArguments = [executable] + arguments.filter { $0 != "--detach" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID (glibc, needs _GNU_SOURCE to be named)

        var pid: pid_t = 0
        let argv = childArguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else { throw DaemonError("could not start the server: \(String(cString: strerror(status)))") }

        let host = configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host
        let client = CloudClient(baseURL: URL(string: "http://\(host):\(configuration.port)")!)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if await client.isHealthy(timeout: 1) {
                print("CloudTodo server running (pid \(pid)) on http://\(host):\(configuration.port), log: \(logPath)")
                return
            }
            var childStatus: Int32 = 0
            if waitpid(pid, &childStatus, WNOHANG) == pid {
                throw DaemonError("the server exited during start-up; see \(logPath)")
            }
            usleep(50_000)
        }
        throw DaemonError("the server did not answer within 15 s; see \(logPath)")
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
