import Foundation
import Logging

/// Where a cloud keeps what must survive a restart.
public enum CloudStorage: Sendable, Hashable {
    /// SQLite (`cloud.sqlite`, WAL) and asset files in the configuration's data directory: the embedded default.
    case sqlite
    /// A PostgreSQL database that any number of instances may share (`todo server --database-url`); asset bytes live
    /// in it too, and the data directory keeps only the server's lock file.
    case postgres(DatabaseURL)
    /// This process's memory, gone when the cloud stops: for fast tests (the data directory keeps only the lock file).
    case memory
}

/// How a cloud server instance runs: address, storage, policies.
public struct ServerConfiguration: Sendable {
    /// Interface to listen on; loopback by default.
    public var host: String
    /// TCP port; 0 picks a free one (tests).
    public var port: Int
    /// The server's own files (its lock file, and with `.sqlite` storage the database and the asset files).
    public var dataDirectory: URL
    /// Which store keeps the cloud's data.
    public var storage: CloudStorage
    /// Whether anyone may create an account (`POST /auth/1/{container}/accounts`).
    public var openRegistration: Bool
    /// Whether the admin fault route is served (tests only).
    public var enableFaults: Bool
    /// How long tombstones and deleted-zone entries are kept before compaction; older tokens expire.
    public var tombstoneRetention: TimeInterval
    /// Requests per second one user may make (token bucket, burst of twice that); nil for no limit.
    public var rateLimitPerSecond: Double?
    /// Request log level.
    public var logLevel: Logger.Level
    /// If set, requests must carry this `ckAPIToken` query parameter.
    public var apiToken: String?
    /// yescrypt cost factor of password hashes (libxcrypt's `count`, 1–11): 4 takes ~11 ms and 8 MB per hash here,
    /// 5 (libxcrypt's default) ~21 ms and 16 MB; every sign-in pays it once.
    public var passwordHashCost: UInt
    /// The largest asset an upload URL takes, in bytes.
    public var maxAssetBytes: Int
    /// The server's certificate chain (PEM): with `tlsKeyFile`, the cloud serves HTTPS.
    public var tlsCertificateFile: URL?
    /// The private key (PEM) of `tlsCertificateFile`.
    public var tlsKeyFile: URL?
    /// Plain HTTP on a non-loopback interface, because a TLS proxy stands in front (`--insecure-http`).
    public var insecureHTTP: Bool
    /// Seconds a connection may take to send a whole request head, and may stay silent between body reads or
    /// between requests, before it is closed. A request answered later (a long-poll) is never cut.
    public var idleTimeout: TimeInterval
    /// Seconds the kernel keeps a new connection from the cloud until its client sends something (Linux's deferred
    /// accept, `todo server --defer-accept`; 0: every connection is accepted at once). HTTP and TLS clients speak
    /// first, so only silent connections wait; one still silent at the end is accepted then, and the idle timeout
    /// applies to it as to any other.
    public var deferAccept: TimeInterval = 30
    /// Concurrent connections one client address may hold; 0 for no cap.
    public var maxConnectionsPerAddress: Int
    /// Sign-in failures and registrations allowed per account name and client address before `THROTTLED`.
    public var signInLimits: SignInLimits
    /// How long a session may go unused before it ends (`todo server --session-idle-days`), in seconds.
    public var sessionIdleTimeout: TimeInterval
    /// Seconds an instance on PostgreSQL trusts a session it read before reading it again (`SessionCache`; 0: read
    /// on every request). Sessions ended through an instance are forgotten by every instance at once; ones ended by
    /// `todo server account` within this time. SQLite and memory stores read the session on every request.
    public var sessionCacheLifetime: TimeInterval = 1
    /// The reverse proxies whose `X-Real-IP` is believed (`todo server --trusted-proxy`); nil: loopback behind
    /// `--insecure-http` without TLS (a proxy on this machine), nobody otherwise.
    public var trustedProxyList: TrustedProxies?
    /// Connections held at most; nil: what the open-file limit allows after a reserve (`DescriptorLimit`).
    public var maxOpenConnections: Int?

    /// The proxies in force: `trustedProxyList`, else its default.
    public var trustedProxies: TrustedProxies {
        trustedProxyList ?? (insecureHTTP && !servesTLS ? TrustedProxies(loopback: true, addresses: []) : .none)
    }

    /// A configuration with sensible defaults for the embedded local cloud.
    public init(
        host: String = "127.0.0.1", port: Int = 8787, dataDirectory: URL, openRegistration: Bool = false,
        enableFaults: Bool = false, tombstoneRetention: TimeInterval = 30 * 24 * 3600,
        rateLimitPerSecond: Double? = 2000, logLevel: Logger.Level = .info, apiToken: String? = nil,
        passwordHashCost: UInt = 4, maxAssetBytes: Int = 50 * 1_048_576,
        tlsCertificateFile: URL? = nil, tlsKeyFile: URL? = nil, insecureHTTP: Bool = false, idleTimeout: TimeInterval = 30,
        maxConnectionsPerAddress: Int = ServerConfiguration.defaultMaxConnectionsPerAddress,
        signInLimits: SignInLimits = SignInLimits(), sessionIdleTimeout: TimeInterval = 90 * 86400,
        storage: CloudStorage = .sqlite
    ) {
        self.storage = storage
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.openRegistration = openRegistration
        self.enableFaults = enableFaults
        self.tombstoneRetention = tombstoneRetention
        self.rateLimitPerSecond = rateLimitPerSecond
        self.logLevel = logLevel
        self.apiToken = apiToken
        self.passwordHashCost = passwordHashCost
        self.maxAssetBytes = maxAssetBytes
        self.tlsCertificateFile = tlsCertificateFile
        self.tlsKeyFile = tlsKeyFile
        self.insecureHTTP = insecureHTTP
        self.idleTimeout = idleTimeout
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.signInLimits = signInLimits
        self.sessionIdleTimeout = sessionIdleTimeout
    }

    /// Connections per client address unless configured: a device holds one long-poll and one or two requests, so 64
    /// leaves room for a household or office behind one NAT address.
    public static let defaultMaxConnectionsPerAddress = 64

    /// Whether the cloud serves HTTPS.
    public var servesTLS: Bool { tlsCertificateFile != nil }

    /// `https` or `http`.
    public var scheme: String { servesTLS ? "https" : "http" }

    /// `$XDG_DATA_HOME/cloudtodo/server`, or `~/.local/share/cloudtodo/server`.
    public static var defaultDataDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            // $HOME first, as the device's caches do, so a device and the cloud it starts agree on one home.
            ?? URL(fileURLWithPath: environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        return base.appendingPathComponent("cloudtodo/server")
    }
}
