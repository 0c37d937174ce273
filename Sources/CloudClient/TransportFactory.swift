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
    /// The standard transport for a device, trusting what `trust` says for https.
    // Seam agreed for this session: the client-transport slice replaces the body with the TLS-capable transport.
    public static func make(trust: TrustSettings = TrustSettings()) throws -> any HTTPTransport {
        SocketTransport()
    }
}
