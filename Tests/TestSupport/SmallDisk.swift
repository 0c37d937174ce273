import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small file system for tests of a full disk: a tmpfs mounted on a scratch directory (root only), filled on demand.
public enum SmallDisk {
    /// Mounts a tmpfs of `megabytes` on `directory`; false where mounting is not permitted (the test then skips).
    public static func mount(megabytes: Int, on directory: URL) -> Bool {
        mount(["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", directory.path])
    }

    /// Runs `mount` with `arguments` (a read-only bind, say); whether it succeeded.
    public static func mount(_ arguments: [String]) -> Bool {
        run("/bin/mount", arguments)
    }

    /// Unmounts what `mount` put on `directory`; lazily by default, so that a child still in it does not stop it.
    public static func unmount(_ directory: URL, lazily: Bool = true) {
        _ = run("/bin/umount", (lazily ? ["-l"] : []) + [directory.path])
    }

    /// Writes one file in `directory` until its file system refuses more; the file, whose removal frees the disk.
    @discardableResult
    public static func fill(_ directory: URL) -> URL {
        let filler = directory.appendingPathComponent("filler")
        // Close-on-exec: a child another test starts meanwhile must not inherit the descriptor, or removing the
        // filler frees nothing until that child ends (seen in the whole suite: the disk stayed full).
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return filler }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        return filler
    }

    /// Runs `mount` or `umount` to its end (milliseconds); whether it succeeded. posix_spawn and waitpid on the
    /// child's own pid: Foundation's `Process` has missed a child's end and hung the suite.
    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 && (status >> 8) & 0xFF == 0
    }
}
