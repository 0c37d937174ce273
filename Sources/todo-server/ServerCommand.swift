import ArgumentParser
import CloudServer
import Foundation
import Logging

/// `todo server`: runs the cloud in the foreground, or detached in the background.
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo server",
        abstract: "Run the CloudKit-compatible cloud (started on demand by the app).",
        subcommands: [SchemaCommand.self, ServerStatusCommand.self, ServerStopCommand.self, ServerAccountCommand.self, ServerMigrateCommand.self]
    )

    @Option(help: "Interface to listen on.")
    var host = "127.0.0.1"

    @Option(help: "TCP port (0 picks a free one).")
    var port = 8787

    @Option(name: .customLong("data-dir"), help: "Where the cloud keeps its SQLite files (default: $XDG_DATA_HOME/cloudtodo/server).")
    var dataDir: String?

    @Flag(name: .customLong("open-registration"), help: "Let anyone create an account.")
    var openRegistration = false

    @Flag(help: "Start in the background, wait until it answers, then return.")
    var detach = false

    @Flag(name: .customLong("enable-faults"), help: "Serve the admin fault and compaction routes (tests only).")
    var enableFaults = false

    @Option(name: .customLong("rate-limit"), help: "Requests per second per user (0: unlimited).")
    var rateLimit: Double = 2000

    @Option(name: .customLong("tombstone-retention"), help: "Seconds to keep tombstones; older change tokens expire.")
    var tombstoneRetention: Double = 30 * 24 * 3600

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(
        name: .customLong("api-token"),
        help: ArgumentHelp(
            "Require this ckAPIToken query parameter on every request (default: $TODO_API_TOKEN).",
            discussion: "Arguments are visible to other users in ps: prefer --api-token-file or $TODO_API_TOKEN."))
    var apiToken: String?

    @Option(
        name: .customLong("api-token-file"), help: "Read the ckAPIToken every request must carry from this file (its first line).")
    var apiTokenFile: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A reverse proxy whose X-Real-IP header is believed: an IP address, or `loopback` (repeatable; default: loopback with --insecure-http, none otherwise).",
            discussion: "Sign-in budgets count the address the proxy names; connections from it are not counted per address."))
    var trustedProxy: [String] = []

    @Option(name: .customLong("password-cost"), help: "yescrypt cost of password hashes, 1 to 11 (4: ~11 ms, 8 MB per sign-in).")
    var passwordCost: UInt = 4

    @Option(name: .customLong("max-asset-size"), help: "Largest asset an upload takes, in MB.")
    var maxAssetSize: Int = 50

    @Option(name: .customLong("tls-cert"), help: "Serve HTTPS with this certificate chain (PEM); needs --tls-key.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The private key (PEM) of --tls-cert.")
    var tlsKey: String?

    @Flag(name: .customLong("insecure-http"), help: "Serve plain HTTP on a non-loopback --host: a TLS proxy stands in front.")
    var insecureHTTP = false

    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection has to send a whole request head (and between body reads, and between requests).")
    var idleTimeout: Double = 30

    @Option(
        name: .customLong("defer-accept"),
        help: "Seconds a new connection waits in the kernel until its client sends something (Linux; 0: accept at once).")
    var deferAccept: Double = 30

    @Option(
        name: .customLong("max-connections-per-address"),
        help: "Concurrent connections one client address may hold (0: no cap).")
    var maxConnectionsPerAddress = ServerConfiguration.defaultMaxConnectionsPerAddress

    @Option(name: .customLong("session-idle-days"), help: "Days a session may go unused before it ends.")
    var sessionIdleDays: Int = 90

    @Option(
        name: .customLong("session-cache-seconds"),
        help: ArgumentHelp(
            "On PostgreSQL, seconds an instance trusts a session it read before reading it again (0: every request).",
            discussion: "Sign-outs and revocations through any instance reach every instance at once; what `todo server account` ends is refused within this time."))
    var sessionCacheSeconds: Double = 1

    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "Keep the cloud's data in PostgreSQL, shared by any number of instances: postgres://USER[:PASS]@HOST[:PORT]/DB[?sslmode=...] (default: $TODO_DATABASE_URL, else SQLite in --data-dir).",
            discussion: "Prefer $TODO_DATABASE_URL when the URL holds a password: arguments are visible to other users in ps."))
    var databaseURL: String?

    /// `--database-url`, else `$TODO_DATABASE_URL`, parsed (the password never in an error).
    var storage: CloudStorage {
        get throws {
            let text = databaseURL ?? ProcessInfo.processInfo.environment["TODO_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
            guard let text else { return .sqlite }
            do {
                return .postgres(try DatabaseURL(parsing: text))
            } catch {
                throw ValidationError("\(databaseURL == nil ? "$TODO_DATABASE_URL" : "--database-url"): \(error)")
            }
        }
    }

    /// `--api-token`, else the first line of `--api-token-file`, else `$TODO_API_TOKEN`; nil when none is given.
    var resolvedAPIToken: String? {
        get throws {
            if let apiToken {
                guard apiTokenFile == nil else { throw ValidationError("give --api-token or --api-token-file, not both") }
                guard !apiToken.isEmpty else { throw ValidationError("--api-token must not be empty") }
                return apiToken
            }
            if let apiTokenFile {
                let text: String
                do {
                    text = try String(contentsOfFile: apiTokenFile, encoding: .utf8)
                } catch {
                    throw ValidationError("cannot read --api-token-file \(apiTokenFile): \(error.localizedDescription)")
                }
                let token = String(text.split(whereSeparator: \.isNewline).first ?? "").trimmingCharacters(in: .whitespaces)
                guard !token.isEmpty else { throw ValidationError("--api-token-file \(apiTokenFile) holds no token on its first line") }
                return token
            }
            return ProcessInfo.processInfo.environment["TODO_API_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    func validate() throws {
        _ = try storage
        _ = try resolvedAPIToken
        if case .failure(let error) = TrustedProxies.parse(trustedProxy) { throw ValidationError(error.description) }
        guard idleTimeout > 0, idleTimeout <= 86_400 else { throw ValidationError("--idle-timeout must be above 0 and at most 86400 seconds") }
        guard deferAccept >= 0, deferAccept <= 3600 else { throw ValidationError("--defer-accept must be 0 to 3600 seconds") }
        guard maxConnectionsPerAddress >= 0 else { throw ValidationError("--max-connections-per-address must not be negative") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard rateLimit >= 0, tombstoneRetention >= 0 else { throw ValidationError("limits must not be negative") }
        guard (1...11).contains(passwordCost) else { throw ValidationError("--password-cost must be 1 to 11") }
        guard (1...4096).contains(maxAssetSize) else { throw ValidationError("--max-asset-size must be 1 to 4096 MB") }
        guard (1...36500).contains(sessionIdleDays) else { throw ValidationError("--session-idle-days must be 1 to 36500") }
        guard sessionCacheSeconds.isFinite, (0...60).contains(sessionCacheSeconds) else {
            throw ValidationError("--session-cache-seconds must be 0 to 60")
        }
    }

    var serverConfiguration: ServerConfiguration {
        var configuration = ServerConfiguration(
            host: host, port: port,
            dataDirectory: dataDir.map { URL(fileURLWithPath: $0) } ?? ServerConfiguration.defaultDataDirectory,
            openRegistration: openRegistration, enableFaults: enableFaults, tombstoneRetention: tombstoneRetention,
            rateLimitPerSecond: rateLimit > 0 ? rateLimit : nil, logLevel: Logger.Level(rawValue: logLevel) ?? .info,
            apiToken: try? resolvedAPIToken, passwordHashCost: passwordCost, maxAssetBytes: maxAssetSize * 1_048_576,
            tlsCertificateFile: tlsCert.map { URL(fileURLWithPath: $0) }, tlsKeyFile: tlsKey.map { URL(fileURLWithPath: $0) },
            insecureHTTP: insecureHTTP, idleTimeout: idleTimeout, maxConnectionsPerAddress: maxConnectionsPerAddress,
            sessionIdleTimeout: TimeInterval(sessionIdleDays) * 86400)
        configuration.sessionCacheLifetime = sessionCacheSeconds
        configuration.deferAccept = deferAccept
        if !trustedProxy.isEmpty, case .success(let trusted) = TrustedProxies.parse(trustedProxy) {
            configuration.trustedProxyList = trusted
        }
        // validate() refused a URL that does not parse: nothing falls back to SQLite here.
        if case .postgres(let url)? = try? storage { configuration.storage = .postgres(url) }
        return configuration
    }

    func run() async throws {
        let configuration = serverConfiguration
        if detach {
            try await Daemon.detach(configuration: configuration, arguments: Array(CommandLine.arguments.dropFirst()))
            return
        }
        signal(SIGHUP, SIG_IGN)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = configuration.logLevel
            return handler
        }
        try await CloudServer.run(configuration) { url in
            FileHandle.standardError.write(Data("cloudtodo server listening on \(url.absoluteString)\n".utf8))
        }
    }
}
