import Foundation
import TodoPlanning

/// A cloud's canonical origin: what credentials and kept passwords are filed under, so that one cloud has one key
/// however its address was typed.
///
/// The scheme and host are lowercased, an IPv6 host is bracketed, the default port of the scheme is filled in, any
/// path, query, user or trailing slash is dropped, and the loopback spellings `localhost`, `127.0.0.1` and `[::1]`
/// of one port are one origin (`localhost`).
public struct CloudOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The lowercased host, bracketed when it is an IPv6 literal; `localhost` for every loopback spelling.
    public let host: String
    /// The port, the scheme's default filled in.
    public let port: Int

    /// The origin of a cloud's URL; nil when it is no http(s) URL with a host and a valid port.
    ///
    /// A plain host (ASCII, no percent escape, no IDNA label) is read from the URL itself: URLComponents' `host`
    /// passes every host through Foundation's IDNA transcoder, whose first use loaded 1 MB of ICU's normalisation data
    /// into a `todo list`. Any other host is read through URLComponents, as it always was.
    public init?(_ url: URL) {
        if url.baseURL == nil, let host = url.host(percentEncoded: true), Self.isPlain(host) {
            self.init(scheme: url.scheme, host: host, port: url.port)
        } else {
            self.init(components: url)
        }
    }

    /// The origin of `url` as URLComponents reads it.
    init?(components url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        self.init(scheme: components.scheme, host: components.host, port: components.port)
    }

    /// Whether `host` reads the same percent-decoded and IDNA-decoded: ASCII without `%` or an `xn--` label.
    static func isPlain(_ host: String) -> Bool {
        host.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "%") } && !host.lowercased().contains("xn--")
    }

    /// The origin of a URL's scheme, host and port.
    private init?(scheme: String?, host: String?, port: Int?) {
        guard let scheme = scheme?.lowercased(), scheme == "http" || scheme == "https",
            var host = host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "@" || $0 == "[" || $0 == "]" }) else { return nil }
        let port = port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        if Self.loopbackSpellings.contains(host) {
            host = "localhost"
        } else if host.contains(":") {
            host = "[\(host)]"
        }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The origin of an address as typed (`http://Example.org:8787/`); nil when it is no http(s) URL with a host.
    public init?(string: String) {
        guard let url = URL(string: string.trimmingSpacesAndTabs) else { return nil }
        self.init(url)
    }

    /// Host names that all mean this machine's loopback interface.
    static let loopbackSpellings: Set<String> = ["localhost", "127.0.0.1", "::1", "0:0:0:0:0:0:0:1"]

    /// `scheme://host:port`, always with the port.
    public var description: String { "\(scheme)://\(host):\(port)" }

    /// Whether the origin is this machine's loopback interface.
    public var isLoopback: Bool { host == "localhost" }

    /// The origin as one file name (`http-localhost-8787`), under which its sessions and passwords are filed.
    public var fileKey: String {
        var host = ""
        for scalar in unbracketedHost.unicodeScalars { host.unicodeScalars.append(scalar == ":" ? "_" : scalar) }
        return "\(scheme)-\(host)-\(port)"
    }

    /// The host without an IPv6 literal's brackets, scalar by scalar (Foundation's replacing bridged the host to
    /// NSString: 0.9 M of the 33 M instructions of a `todo next` over 1,000 todos; `String.UnicodeScalarView(_:)` ran
    /// unspecialised, see `String(scalars:)`).
    private var unbracketedHost: String {
        var bare = ""
        for scalar in host.unicodeScalars where scalar != "[" && scalar != "]" { bare.unicodeScalars.append(scalar) }
        return bare
    }

    /// The directory names earlier versions filed a cloud under (`host-port`, as the address was typed), for migration.
    public var legacyFileKeys: [String] {
        let bare = String(unbracketedHost)
        // Earlier versions spoke http only and filled in port 80 when none was typed.
        guard scheme == "http" else { return [] }
        let hosts = isLoopback ? ["127.0.0.1", "localhost"] : [bare]
        return hosts.map { "\($0)-\(port)" }
    }
}
