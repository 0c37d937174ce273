import NIOSSL
import PostgresNIO

extension DatabaseURL {
    /// The TLS settings `tlsMode` and `rootCertificateFile` ask for.
    func tlsConfiguration() -> TLSConfiguration? {
        guard tlsMode != .disable, !isUnixSocket else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable, .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let rootCertificateFile { tls.trustRoots = .file(rootCertificateFile) }
        return tls
    }

    /// What postgres-nio's pool connects with.
    public func clientConfiguration() -> PostgresClient.Configuration {
        if isUnixSocket {
            return PostgresClient.Configuration(unixSocketPath: unixSocketPath, username: user, password: password, database: database)
        }
        let tls: PostgresClient.Configuration.TLS =
            switch (tlsMode, tlsConfiguration()) {
            case (.disable, _), (_, nil): .disable
            case (.prefer, let settings?): .prefer(settings)
            case (_, let settings?): .require(settings)
            }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// What one postgres-nio connection connects with (the TLS context made here: a bad `sslrootcert` throws).
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if isUnixSocket {
            return PostgresConnection.Configuration(unixSocketPath: unixSocketPath, username: user, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        if let settings = tlsConfiguration() {
            let context = try NIOSSLContext(configuration: settings)
            tls = tlsMode == .prefer ? .prefer(context) : .require(context)
        } else {
            tls = .disable
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
