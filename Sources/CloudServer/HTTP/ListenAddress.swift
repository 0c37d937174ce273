import CloudModel
import Foundation

/// What the cloud's `--host` names: whether it is loopback, and how it is written inside a URL.
public enum ListenAddress {
    /// Whether `host` only reaches this machine: `localhost`, 127.0.0.0/8, `::1` (also IPv4-mapped loopback).
    public static func isLoopback(_ host: String) -> Bool {
        let bare = unbracketed(host)
        if ["localhost", "localhost."].contains(bare.lowercased()) { return true }
        guard let bytes = IPAddressLiteral.bytes(bare) else { return false }
        if bytes.count == 4 { return bytes[0] == 127 }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        // ::ffff:127.x.y.z
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
    }

    /// Whether `host` is an IPv6 literal (with or without brackets).
    public static func isIPv6Literal(_ host: String) -> Bool {
        unbracketed(host).contains(":")
    }

    /// `host` as the host part of a URL: IPv6 literals in brackets (a zone's `%` escaped), others as they are.
    public static func urlHost(_ host: String) -> String {
        let bare = unbracketed(host)
        guard bare.contains(":") else { return bare }
        return "[" + bare.replacingOccurrences(of: "%", with: "%25") + "]"
    }

    /// `scheme://host:port`, or nil when `host` cannot stand in a URL.
    public static func url(scheme: String, host: String, port: Int) -> URL? {
        let text = "\(scheme)://\(urlHost(host)):\(port)"
        guard let url = URL(string: text), url.host != nil else { return nil }
        return url
    }

    /// The address a client on this machine uses to reach a server listening on `host`: the wildcard addresses
    /// (`0.0.0.0`, `::`) are reached through loopback.
    public static func localReach(_ host: String) -> String {
        switch unbracketed(host) {
        case "0.0.0.0", "": return "127.0.0.1"
        case "::", "0:0:0:0:0:0:0:0": return "::1"
        default: return unbracketed(host)
        }
    }

    /// `host` without the brackets of a URL's IPv6 literal.
    public static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
