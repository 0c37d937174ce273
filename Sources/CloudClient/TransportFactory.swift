import Foundation

/// Which certificates a device trusts when it speaks https to a cloud.
public struct TrustSettings: Sendable, Hashable, Codable {
    /// A PEM file of extra authorities to trust (a self-hosted cloud's private CA); nil trusts the system's store only.
    public var caFile: String?

    /// Trust the system's store, plus the authorities in `caFile` when given.
    public init(caFile: String? = nil) { self.caFile = caFile }
}

/// Makes the transport a device uses to reach a cloud.
public enum CloudTransport {
    /// The standard transport for a device, trusting what `trust` says for https; throws `TransportError` when the
    /// CA file cannot be read or holds no certificate.
    public static func make(trust: TrustSettings = TrustSettings()) throws -> any HTTPTransport {
        try HTTPClientTransport(trust: trust)
    }

    /// Closes the process's shared connections and ends its network thread; call once before the process exits.
    public static func shutDown() async { await HTTPClientTransport.shutDown() }
}
