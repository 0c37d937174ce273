import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `server.lock` in the data directory: held (flock) by the `todo server` process serving that directory for its
/// whole life, and naming its pid, address and start time. `todo server status` and `stop` read it; a second server
/// on the same directory is refused. A file left by a killed server holds no lock and counts for nothing.
public final class ServerLockFile: @unchecked Sendable {
    /// What a running server says about itself.
    public struct Record: Codable, Sendable, Equatable {
        /// Its process id.
        public var pid: Int32
        /// The address clients reach it at (`http://127.0.0.1:8787`, `https://[::1]:8443`).
        public var url: String
        /// When it started listening, in seconds since 1970.
        public var started: Double

        /// A record of a server.
        public init(pid: Int32, url: String, started: Double) {
            self.pid = pid
            self.url = url
            self.started = started
        }
    }

    /// The file's name inside the data directory.
    public static let fileName = "server.lock"

    private let descriptor: Int32
    private let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// The lock file of `directory`.
    public static func location(in directory: URL) -> URL { directory.appendingPathComponent(fileName) }

    /// Takes the lock of `directory` for this process, or throws naming the server that holds it.
    public static func acquire(in directory: URL) throws -> ServerLockFile {
        try DataDirectoryPermissions.makeDirectory(directory)
        let path = location(in: directory).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, DataDirectoryPermissions.fileMode)
        guard descriptor >= 0 else {
            throw ServerStartError(reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = read(descriptor).map { " (pid \($0.pid), \($0.url))" } ?? ""
            close(descriptor)
            throw ServerStartError(reason: "another cloud\(holder) already serves \(directory.path); stop it with `todo server stop --data-dir \(directory.path)`")
        }
        try? DataDirectoryPermissions.restrict(path, isDirectory: false)
        return ServerLockFile(descriptor: descriptor, path: path)
    }

    /// Writes what this server says about itself (after it listens).
    public func publish(_ record: Record) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = Array(try encoder.encode(record)) + [0x0A]
        guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, bytes, bytes.count, 0) == bytes.count else {
            throw ServerStartError(reason: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the file and lets the lock go (at shutdown).
    public func release() {
        unlink(path)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The record of the server that holds `directory`'s lock now, or nil when none does.
    public static func running(in directory: URL) -> Record? {
        let descriptor = open(location(in: directory).path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            // Nobody holds it: a file a killed server left behind.
            flock(descriptor, LOCK_UN)
            return nil
        }
        guard errno == EWOULDBLOCK else { return nil }
        // Held, but the record may not be written yet: a server still starting has no address to give.
        return read(descriptor)
    }

    private static func read(_ descriptor: Int32) -> Record? {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return try? JSONDecoder().decode(Record.self, from: Data(bytes[0..<count]))
    }
}
