import CloudServer
import Foundation
import TestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster in a temporary directory, owned by one test process: started on first use,
/// listening on a free loopback port (and a Unix socket in its directory), stopped and removed when the process ends.
///
/// Tuned for tests, not for data: no fsync, no full-page writes, asynchronous commit.
struct LocalPostgresCluster: Sendable {
    /// The superuser every test connects as (trust authentication on loopback).
    static let superuser = "postgres"
    /// Where Debian puts PostgreSQL 15's programs; `$TODO_TEST_POSTGRES_BIN` overrides.
    static var binDirectory: String {
        ProcessInfo.processInfo.environment["TODO_TEST_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"
    }

    /// The temporary directory: `data/`, the server log, the socket.
    let directory: URL
    /// The loopback TCP port it listens on.
    let port: Int

    /// Why a cluster cannot be started here, or nil when it can be tried.
    static func unavailableReason() -> String? {
        let initdb = binDirectory + "/initdb"
        guard FileManager.default.isExecutableFile(atPath: initdb) else {
            return "PostgreSQL 15 is not installed: no \(initdb) (apt-get install postgresql-15, or set TODO_TEST_DATABASE_URL)"
        }
        if geteuid() == 0, getpwnam(superuser) == nil {
            return "running as root, and initdb refuses root: no \(superuser) user to run it as"
        }
        return nil
    }

    /// initdb, then pg_ctl start; throws with the tool's own words when either fails.
    static func start() throws -> LocalPostgresCluster {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cloudtodo-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // From here on the directory, and the server once it runs, go with this process, however it ends.
        stopWhenProcessEnds(directory: directory)
        do {
            if geteuid() == 0 {
                // The server runs as `postgres`: it must own its directory.
                try FileManager.default.setAttributes([.ownerAccountName: superuser], ofItemAtPath: directory.path)
            }
            let data = directory.appendingPathComponent("data").path
            try run(
                "initdb", ["-D", data, "-U", superuser, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
                in: directory)
            // A port found free may be taken before the server binds it: try a few.
            var lastError: (any Error)?
            for _ in 0..<5 {
                let port = try freeLoopbackPort()
                let options = [
                    "-c listen_addresses=127.0.0.1", "-p \(port)", "-k \(directory.path)",
                    "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
                    "-c max_connections=500", "-c shared_buffers=128MB", "-c log_min_messages=warning",
                ].joined(separator: " ")
                do {
                    try run("pg_ctl", ["-D", data, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60", "-o", options, "start"], in: directory)
                    return LocalPostgresCluster(directory: directory, port: port)
                } catch {
                    lastError = error
                }
            }
            throw lastError ?? ClusterError(message: "pg_ctl start failed")
        } catch {
            stopAndRemove(directory: directory.path)
            throw error
        }
    }

    /// Stops the server at once (SIGQUIT: immediate shutdown) and removes its directory; safe to call twice.
    static func stopAndRemove(directory: String) {
        let pidFile = directory + "/data/postmaster.pid"
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let line = text.split(separator: "\n").first, let pid = pid_t(line.trimmingCharacters(in: .whitespaces)), pid > 0
        {
            kill(pid, SIGQUIT)
            // Up to 10 s for it and its backends to go.
            _ = eventuallyBlocking(10) { kill(pid, 0) != 0 }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Arranges for the cluster to go with this process: at a normal exit, and through a watchdog outside the process
    /// when it is killed (the watchdog polls this process's pid once a second).
    private static func stopWhenProcessEnds(directory: URL) {
        runningCluster.withLock { $0 = directory.path }
        atexit {
            if let directory = runningCluster.withLock({ $0 }) { LocalPostgresCluster.stopAndRemove(directory: directory) }
        }
        let quoted = "'" + directory.path.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            if [ -d \(quoted) ]; then
              pid=$(head -n 1 \(quoted)/data/postmaster.pid 2>/dev/null)
              [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null
              for i in $(seq 1 100); do [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
              rm -rf \(quoted)
            fi
            """
        // It lives as long as this process: it must hold none of this process's descriptors (a connection a cloud
        // closed would stay open in it), so they are closed in the child, not by Foundation's scan beforehand.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0) }
        InheritedDescriptors.closeInChild(&actions)
        var argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/setsid", "/bin/sh", "-c", script] as [String]).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        _ = posix_spawn(&pid, "/usr/bin/setsid", &actions, nil, &argv, environ)
    }

    /// Runs one of PostgreSQL's programs, as `postgres` when this process is root, and waits for it (posix_spawn and
    /// waitpid: Foundation's Process did not see pg_ctl end while the server it started lived on).
    private static func run(_ tool: String, _ arguments: [String], in directory: URL) throws {
        let program = binDirectory + "/" + tool
        let command = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", superuser, "--", program] + arguments : [program] + arguments
        // Output to a file, not a pipe: the server pg_ctl starts inherits it and would hold a pipe open forever.
        let outputPath = directory.appendingPathComponent("\(tool).log").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        InheritedDescriptors.closeInChild(&actions)
        let spawned = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw ClusterError(message: "cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw ClusterError(message: "\(tool) failed (status \(status)): \(tail(outputPath))")
        }
    }

    private static func tail(_ path: String) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "" }
        return String(text.suffix(600))
    }

    /// A loopback TCP port nothing listens on now.
    private static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw ClusterError(message: "no free loopback port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// The directory of the cluster this process started, for the exit handler.
private let runningCluster = Mutex<String?>(nil)

/// A PostgreSQL program refused to set up or start the test cluster.
struct ClusterError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
