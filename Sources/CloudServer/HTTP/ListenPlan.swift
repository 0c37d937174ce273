import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// How the cloud listens, decided and checked before it binds: plain or TLS, the loopback rule, and the connection
/// guards (request deadline, per-address cap, header limits) every accepted connection passes through.
struct ListenPlan {
    /// Largest request head the cloud reads (request line and headers together), in bytes.
    static let maxHeaderBytes = 32 * 1024
    /// Most header fields one request may carry.
    static let maxHeaderCount = 100
    /// Connections the kernel queues for `accept`: a flood arriving faster than the cloud accepts fills the queue,
    /// and a SYN that finds it full is dropped and sent again a second later (a new device's, or `/health`'s), so it
    /// is as long as Linux allows by default (`net.core.somaxconn`, 4096; the kernel caps it there).
    static let backlog = 4096

    let tls: TLSConfiguration?
    let idleTimeout: TimeInterval
    /// Seconds a silent connection waits in the kernel before the cloud accepts it (0: none).
    let deferAccept: TimeInterval
    let limiter: ConnectionLimiter
    let displayAddress: String
    /// Every connection held, at most what the descriptors allow.
    let registry: ConnectionRegistry
    /// Whether the configuration sets the connection limit (`maxOpenConnections`) rather than the descriptors.
    private let configuredCapacity: Bool

    init(_ configuration: ServerConfiguration, logger: Logger) throws {
        let host = configuration.host
        displayAddress = "\(ListenAddress.urlHost(host)):\(configuration.port)"
        guard ListenAddress.url(scheme: "http", host: host, port: max(configuration.port, 1)) != nil else {
            throw ServerStartError(reason: "--host \(host) is not a host name or address")
        }
        switch (configuration.tlsCertificateFile, configuration.tlsKeyFile) {
        case let (certificate?, key?):
            tls = try ServerTLS.configuration(certificateFile: certificate, keyFile: key)
        case (nil, nil):
            tls = nil
        case (.some, nil):
            throw ServerStartError(reason: "--tls-cert needs --tls-key: the private key of that certificate")
        case (nil, .some):
            throw ServerStartError(reason: "--tls-key needs --tls-cert: the certificate of that key")
        }
        if tls == nil, !configuration.insecureHTTP, !ListenAddress.isLoopback(host) {
            throw ServerStartError(
                reason: "refusing to serve plain HTTP on \(host), which other machines can reach: passwords and tokens "
                    + "would cross the network in clear. Give --tls-cert FILE --tls-key FILE to serve HTTPS, or "
                    + "--insecure-http if a TLS proxy (nginx, Caddy) stands in front of this cloud")
        }
        guard configuration.idleTimeout >= 0, configuration.maxConnectionsPerAddress >= 0, configuration.deferAccept >= 0 else {
            throw ServerStartError(reason: "the idle timeout, the deferred accept and the connection cap must not be negative")
        }
        idleTimeout = configuration.idleTimeout
        deferAccept = configuration.deferAccept
        limiter = ConnectionLimiter(cap: configuration.maxConnectionsPerAddress, exempts: configuration.trustedProxies)
        configuredCapacity = configuration.maxOpenConnections != nil
        registry = ConnectionRegistry(
            capacity: configuration.maxOpenConnections ?? DescriptorLimit.connectionCapacity(), logger: logger)
    }

    /// Guards the listening socket `channel` once the cloud listens: every connection is counted as it is accepted
    /// (`AcceptGate`), against a capacity that now knows what the store and the event loops keep open.
    func guardAccepts(on channel: any Channel, logger: Logger) async throws {
        if !configuredCapacity { registry.resize(to: DescriptorLimit.connectionCapacity()) }
        try await deferAccepts(on: channel)
        try await AcceptGate.install(on: channel, registry: registry, logger: logger)
        logger.debug("connection limit", metadata: ["connections": "\(registry.capacity)"])
    }

    /// Lets the kernel hold each new connection until its client sends something (`TCP_DEFER_ACCEPT`), for at most
    /// `deferAccept` seconds. A burst of silent connections then waits there, not in the queue ahead of `/health`
    /// and of clients that speak, and costs the cloud no descriptor, task or CPU (docs/HOSTING.md, "Descriptors").
    private func deferAccepts(on channel: any Channel) async throws {
        #if os(Linux)
        guard deferAccept > 0 else { return }
        let option = ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_DEFER_ACCEPT)))
        try await channel.setOption(option, value: SocketOptionValue(min(deferAccept.rounded(.up), 86_400))).get()
        #endif
    }

    /// The child-channel set-up Hummingbird builds each connection with: cap, then TLS, then HTTP/1.1 with limits.
    func serverBuilder(logger: Logger) -> HTTPServerBuilder {
        let timeout = idleTimeout > 0 ? TimeAmount.nanoseconds(Int64(idleTimeout * 1e9)) : nil
        let http = HTTP1Channel.Configuration(
            additionalChannelHandlers: [],
            idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: Self.maxHeaderBytes, maxHeaderListSize: Self.maxHeaderBytes,
                maxHeaderFieldCount: Self.maxHeaderCount))
        let tls = self.tls
        let limiter = self.limiter
        let registry = self.registry
        return HTTPServerBuilder { responder in
            let plain = HTTP1Channel(responder: responder, configuration: http)
            if let tls {
                return LimitedServerChannel(
                    base: try TLSChannel(plain, tlsConfiguration: tls), limiter: limiter, registry: registry, requestTimeout: timeout,
                    plainHTTP: false)
            }
            return LimitedServerChannel(base: plain, limiter: limiter, registry: registry, requestTimeout: timeout, plainHTTP: true)
        }
    }
}
