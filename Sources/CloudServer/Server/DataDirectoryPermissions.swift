import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The cloud's files hold password hashes, session digests and everyone's todos: the data directory is made 0700
/// and every file in it 0600, and wider modes found at start (an older cloud made 0755 / 0644) are tightened.
enum DataDirectoryPermissions {
    /// Mode of the data directory and its sub-directories.
    static let directoryMode: mode_t = 0o700
    /// Mode of every file the cloud writes.
    static let fileMode: mode_t = 0o600

    /// Before the database opens: the directory exists 0700 and `cloud.sqlite` exists 0600, so SQLite, which gives
    /// its `-wal` and `-shm` files the database file's mode, creates them 0600 too.
    static func prepare(_ directory: URL) throws {
        try makeDirectory(directory)
        try createFile(directory.appendingPathComponent("cloud.sqlite"))
    }

    /// After the database opened: removes group and other permissions from the directory and everything under it.
    static func tighten(_ directory: URL) throws {
        try restrict(directory.path, isDirectory: true)
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return }
        while let relative = walker.nextObject() as? String {
            let path = directory.appendingPathComponent(relative).path
            // The item itself, not what a link points to (as lstat).
            switch (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType {
            case .typeDirectory?: try restrict(path, isDirectory: true)
            case .typeRegular?: try restrict(path, isDirectory: false)
            default: continue  // symbolic links and sockets keep their own modes
            }
        }
    }

    /// Creates `directory` (and missing parents) with mode 0700 for the ones it makes.
    static func makeDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(directoryMode)])
        } catch {
            throw ServerStartError(reason: "cannot create the data directory \(directory.path): \(error.localizedDescription)")
        }
        try restrict(directory.path, isDirectory: true)
    }

    /// Creates `file` empty with mode 0600 unless it exists, then tightens its mode.
    static func createFile(_ file: URL) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else {
            throw ServerStartError(reason: "cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        try restrict(file.path, isDirectory: false)
    }

    /// Removes group and other permission bits from `path` (a directory also keeps its owner's search bit).
    static func restrict(_ path: String, isDirectory: Bool) throws {
        let mode: Int
        do {
            mode = try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
        } catch {
            throw ServerStartError(reason: "cannot read the mode of \(path): \(error.localizedDescription)")
        }
        let current = mode_t(truncatingIfNeeded: mode) & 0o7777
        let wanted = isDirectory ? (current & 0o700) | 0o700 : current & 0o700
        guard wanted != current else { return }
        guard chmod(path, wanted) == 0 else {
            throw ServerStartError(reason: "cannot make \(path) private (mode \(String(wanted, radix: 8))): \(String(cString: strerror(errno)))")
        }
    }
}
