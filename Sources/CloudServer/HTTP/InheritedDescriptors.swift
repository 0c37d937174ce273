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
    public static func closeOnExec(above lowest: Int32 = 2) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for descriptor in entries.compactMap(Int32.init) where descriptor > lowest {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
