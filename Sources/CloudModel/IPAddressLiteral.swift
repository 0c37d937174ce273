#if canImport(Glibc)
import Glibc
#endif

/// IP address literals read as bytes with `inet_pton`: never a name lookup.
public enum IPAddressLiteral {
    /// The address's bytes (4 for IPv4, 16 for IPv6), nil when `text` is not an address literal.
    public static func bytes(_ text: String) -> [UInt8]? {
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return v4 }
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, text, &v6) == 1 { return v6 }
        return nil
    }
}
