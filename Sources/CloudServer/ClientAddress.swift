import Foundation
import Hummingbird
import NIOCore

/// The request context of the cloud's responder: Hummingbird's basics plus the peer's socket address.
struct CloudRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The TCP peer: the device, or the reverse proxy in front of the cloud.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// Who a request comes from, for the per-address sign-in budgets.
enum ClientAddress {
    /// The header our nginx snippet sets to the address nginx accepted the connection from.
    static let realIPField = HTTPFields.Element.Name("X-Real-IP")!

    /// The peer's IP address; when the peer is a loopback address and `X-Real-IP` holds an IP address, that one.
    ///
    /// A cloud behind a TLS proxy on the same machine sees every device as 127.0.0.1: without the proxy's word, one
    /// guesser would spend everyone's per-address budget. The header is believed from loopback peers only, because
    /// only a process on this machine (the proxy, which overwrites whatever the device sent) can be one; a remote
    /// peer could write any address there to escape its budget.
    static func resolve(peerIP: String?, realIP: String?) -> String {
        guard let peerAddress = peerIP else { return "unknown" }
        if ListenAddress.isLoopback(peerAddress), let realIP, let forwarded = canonicalIP(realIP.trimmingCharacters(in: .whitespaces)) {
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
