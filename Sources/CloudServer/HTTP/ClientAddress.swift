import Foundation
import Hummingbird
import NIOCore

/// The peers whose `X-Real-IP` the cloud believes, and whose connections are not counted per address
/// (`todo server --trusted-proxy`): the reverse proxies in front of it.
public struct TrustedProxies: Sendable, Equatable {
    /// Whether every loopback address (127.0.0.0/8, ::1) is trusted.
    public var loopback: Bool
    /// Trusted addresses, canonically spelled.
    public var addresses: Set<String>

    /// Nobody is trusted: every request is budgeted by its TCP peer.
    public static let none = TrustedProxies(loopback: false, addresses: [])

    /// Trust `loopback` peers and `addresses` (IPv4 or IPv6 literals).
    public init(loopback: Bool, addresses: Set<String>) {
        self.loopback = loopback
        self.addresses = addresses
    }

    /// Parses `--trusted-proxy` values: IP literals, or `loopback` for every loopback address; nil names the first
    /// value that is neither.
    public static func parse(_ values: [String]) -> Result<TrustedProxies, TrustedProxyError> {
        var trusted = TrustedProxies.none
        for value in values {
            let text = value.trimmingCharacters(in: .whitespaces)
            if text.lowercased() == "loopback" {
                trusted.loopback = true
            } else if let address = ClientAddress.canonicalIP(text) {
                trusted.addresses.insert(address)
            } else {
                return .failure(TrustedProxyError(value: value))
            }
        }
        return .success(trusted)
    }

    /// Whether `peer` (an IP address) is a trusted proxy.
    public func contains(_ peer: String) -> Bool {
        if loopback, ListenAddress.isLoopback(peer) { return true }
        guard !addresses.isEmpty else { return false }
        return addresses.contains(ClientAddress.canonicalIP(peer) ?? peer)
    }
}

/// A `--trusted-proxy` value that is no IP address.
public struct TrustedProxyError: Error, Equatable, CustomStringConvertible {
    /// The value as given.
    public var value: String
    public var description: String { "--trusted-proxy \(value) is not an IP address (nor `loopback`)" }
}

/// Who a request comes from, for the per-address sign-in budgets.
enum ClientAddress {
    /// The header our nginx snippet sets to the address nginx accepted the connection from.
    static let realIPField = HTTPFields.Element.Name("X-Real-IP")!

    /// The peer's IP address; when the peer is a trusted proxy and `X-Real-IP` holds an IP address, that one.
    ///
    /// A cloud behind a TLS proxy sees every device as the proxy: without the proxy's word, one guesser would spend
    /// everyone's per-address budget. The header is believed from the proxies named by `--trusted-proxy` only
    /// (loopback by default behind `--insecure-http`), which overwrite whatever the device sent; any other peer, a
    /// local process included, could write any address there to escape its budget.
    static func resolve(peerIP: String?, realIP: String?, trusted: TrustedProxies) -> String {
        guard let peerAddress = peerIP else { return "unknown" }
        if let realIP, trusted.contains(peerAddress), let forwarded = canonicalIP(realIP.trimmingCharacters(in: .whitespaces)) {
            return forwarded
        }
        return canonicalIP(peerAddress) ?? peerAddress
    }

    /// An IPv4 or IPv6 literal in its canonical spelling; nil for anything else (names, garbage, ports).
    static func canonicalIP(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 64, !text.contains("%") else { return nil }
        // NIO parses with inet_pton (literals only, never a name lookup) and prints with inet_ntop.
        return (try? SocketAddress(ipAddress: text, port: 0))?.ipAddress
    }
}
