// `stat` is declared by CoreFoundation's C headers in the static SDK once any file of this module imports it
// (ListOrder.swift does): the member-visibility rule then asks for the import here too.
import CommandLineSupport
import CoreFoundation
import Foundation

/// Reading the file `todo import` is given: only a regular file, at most a given size, with reasons a person can act on.
enum ImportSource {
    /// The bytes of the regular file at `path`; refused with the reason when it is missing, unreadable, not a regular
    /// file (a device such as `/dev/zero`, a pipe, a socket: endless or one-shot), or larger than `maximumSize`.
    static func contents(of path: String, maximumSize: Int) throws -> Data {
        var status = stat()
        guard stat(path, &status) == 0 else { throw DeviceCommandError("cannot read \(path): \(reason(errno))") }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            let what =
                switch kind {
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFIFO: "a pipe"
                case S_IFSOCK: "a socket"
                default: "not a regular file"
                }
            throw DeviceCommandError("cannot import \(path): it is \(what), not a file of todos. Save the todos to a file and import that")
        }
        guard Int(status.st_size) <= maximumSize else {
            throw DeviceCommandError("cannot import \(path): it is larger than \(maximumSize / 1_048_576) MB")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw DeviceCommandError("cannot read \(path): \(reason(errno))") }
        defer { try? handle.close() }
        // Read at most one byte past the limit, so a file that grows while it is read cannot run on.
        let bytes: Data
        do {
            bytes = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw DeviceCommandError("cannot read \(path): \(error.localizedDescription)")
        }
        guard bytes.count <= maximumSize else {
            throw DeviceCommandError("cannot import \(path): it is larger than \(maximumSize / 1_048_576) MB")
        }
        return bytes
    }

    /// Words for a failed open or stat.
    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied (check the file's permissions)"
        case ENOTDIR: "a part of the path is not a directory"
        case EISDIR: "it is a directory"
        default: String(cString: strerror(code))
        }
    }
}
