import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port held bound but not listening: a connection to it is refused at once, and no other test's
/// server can take it while it is held. For "the cloud is out of reach" after a test's cloud shut down: a freed
/// port handed out again (to nginx, another cloud) made a device wait for an answer that never came.
public final class HeldPort: @unchecked Sendable {
    private var descriptor: Int32

    /// Binds `port` on 127.0.0.1 (address reuse on, so the shut-down server's closing connections do not stand in
    /// the way); throws when another socket listens there already.
    public init(_ port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            // Through `release`, so the `deinit` a throwing class initializer still runs closes nothing twice.
            release()
            throw NginxError("cannot hold port \(port): \(reason)")
        }
    }

    /// Lets the port go.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
