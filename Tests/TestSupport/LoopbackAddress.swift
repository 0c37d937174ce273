import Glibc

/// IPv4 loopback socket addresses, for the test helpers that bind or connect raw sockets.
public enum LoopbackAddress {
    /// 127.0.0.1 on `port`.
    public static func ipv4(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
