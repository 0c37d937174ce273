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

    /// Unmounts what `mount` put on `directory` (lazily: a child still in it does not stop it).
    public static func unmount(_ directory: URL) {
        _ = run("/bin/umount", ["-l", directory.path])
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

    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
