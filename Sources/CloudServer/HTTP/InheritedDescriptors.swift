import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a spawned child inherits of this process's open descriptors.
public enum InheritedDescriptors {
    /// Marks every descriptor above `lowest` close-on-exec, so a child spawned next gets only what its spawn actions
    /// give it (its standard streams): no listening socket, connection or pipe of this process lives on in it.
    ///
    /// SwiftNIO's sockets are inherited otherwise: a PostgreSQL a test started kept a test cloud's listening socket
    /// open after that cloud shut down, and devices meant to find the cloud gone waited 60 s on it instead.
    ///
    /// A descriptor opened between the scan and the spawn (a socket an event loop accepts meanwhile) is still
    /// inherited: spawners use `closeInChild`, which has no such gap, and this where it cannot.
    public static func closeOnExec(above lowest: Int32 = 2) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for descriptor in entries.compactMap(Int32.init) where descriptor > lowest {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// Adds to `actions`, after what is in it already, the closing in the child of every descriptor above its
    /// standard streams (glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`). It happens in the child, so no
    /// descriptor this process opens while the spawn is under way slips through, as one could past `closeOnExec`'s
    /// scan: a connection a test cloud accepted then lived on in a test's child after the cloud closed it. Where the C
    /// library lacks it, marks this process's descriptors close-on-exec instead.
    public static func closeInChild(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom = closeFromInChild, closeFrom(&actions, 3) == 0 { return }
        closeOnExec()
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// Not in Swift's view of the C library (it is declared for `_GNU_SOURCE` only): looked up by name.
    private static let closeFromInChild: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
}
