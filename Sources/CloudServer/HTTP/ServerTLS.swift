import Foundation
import NIOSSL

/// The cloud's TLS set-up: its certificate chain and key read from PEM files, checked before the cloud listens, so a
/// bad file is one clear start-up error naming it rather than a failure on the first connection.
enum ServerTLS {
    /// A server TLS configuration (TLS 1.2 or later) for `certificateFile` and `keyFile`.
    static func configuration(certificateFile: URL, keyFile: URL) throws -> TLSConfiguration {
        let certificateBytes = try read(certificateFile, what: "TLS certificate")
        let keyBytes = try read(keyFile, what: "TLS key")
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateBytes)
        } catch {
            throw ServerStartError(reason: "the TLS certificate \(certificateFile.path) is not a PEM certificate (\(error))")
        }
        guard let leaf = chain.first else {
            throw ServerStartError(reason: "the TLS certificate \(certificateFile.path) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw ServerStartError(
                reason: "the TLS key \(keyFile.path) is not an unencrypted PEM private key (\(error))")
        }
        let now = time(nil)
        if leaf.notValidAfter < now {
            throw ServerStartError(reason: "the TLS certificate \(certificateFile.path) expired on \(Self.date(leaf.notValidAfter))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            // BoringSSL checks here that the key belongs to the certificate.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ServerStartError(
                reason: "the TLS key \(keyFile.path) does not belong to the certificate \(certificateFile.path) (\(error))")
        }
        return configuration
    }

    private static func read(_ file: URL, what: String) throws -> [UInt8] {
        // open(2) first: its errno says why (no such file, permission denied) in words Foundation's error lacks.
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ServerStartError(reason: "cannot read the \(what) \(file.path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        do {
            return Array(try Data(contentsOf: file))
        } catch {
            throw ServerStartError(reason: "cannot read the \(what) \(file.path): \(error.localizedDescription)")
        }
    }

    private static func date(_ time: time_t) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(time)))
    }
}
