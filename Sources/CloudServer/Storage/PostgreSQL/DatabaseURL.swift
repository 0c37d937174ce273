import Foundation

/// Where the cloud's PostgreSQL is: `postgres://USER[:PASS]@HOST[:PORT][/DB][?sslmode=…]`, as libpq reads it.
///
/// The password is kept apart and never printed: `description` and every error name the rest only.
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS, by libpq's `sslmode` names.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, the certificate not checked (libpq's default).
        case prefer
        /// TLS or no connection; the certificate not checked.
        case require
        /// TLS with a certificate from a trusted authority, any host name.
        case verifyCA = "verify-ca"
        /// TLS with a trusted certificate for the host connected to.
        case verifyFull = "verify-full"
    }

    /// The role to sign in as.
    public var user: String
    /// Its password; nil for trust or peer authentication.
    public var password: String?
    /// A host name or IP address (IPv6 without brackets); for a Unix socket, the directory holding it.
    public var host: String
    /// The TCP port, or the number in the Unix socket's file name.
    public var port: Int
    /// The database to open.
    public var database: String
    /// How TLS is used (TCP only).
    public var tlsMode: TLSMode
    /// A PEM file of the authorities to trust instead of the system's (`sslrootcert=`).
    public var rootCertificateFile: String?

    /// A URL value from its parts.
    public init(
        user: String, password: String? = nil, host: String, port: Int = 5432, database: String, tlsMode: TLSMode = .prefer,
        rootCertificateFile: String? = nil
    ) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.tlsMode = tlsMode
        self.rootCertificateFile = rootCertificateFile
    }

    /// Whether `host` names a Unix socket's directory rather than a machine.
    public var isUnixSocket: Bool { host.hasPrefix("/") }

    /// The socket file PostgreSQL makes in `host` for `port`.
    public var unixSocketPath: String { host + (host.hasSuffix("/") ? "" : "/") + ".s.PGSQL.\(port)" }

    /// The URL with its password shown as `***`: what logs and messages print.
    public var description: String { text(password: password == nil ? nil : "***", masked: true) }

    /// The whole URL, password included: to hand to another process, never to print.
    public var secretText: String { text(password: password) }

    /// The same server and role, another database.
    public func withDatabase(_ name: String) -> DatabaseURL {
        var copy = self
        copy.database = name
        return copy
    }

    private func text(password: String?, masked: Bool = false) -> String {
        var userInfo = Self.encode(user)
        if let password { userInfo += ":" + (masked ? password : Self.encode(password)) }
        let hostPart: String
        var query: [String] = []
        if isUnixSocket {
            hostPart = ""
            query.append("host=" + Self.encode(host))
            query.append("port=\(port)")
        } else {
            hostPart = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        }
        if tlsMode != .prefer, !isUnixSocket { query.append("sslmode=" + tlsMode.rawValue) }
        if let rootCertificateFile { query.append("sslrootcert=" + Self.encode(rootCertificateFile)) }
        return "postgres://\(userInfo)@\(hostPart)/\(Self.encode(database))" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// Percent-encodes everything but unreserved characters (and `/` is encoded too).
    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Why a database URL was refused; the words never contain the password.
public struct DatabaseURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in a sentence.
    public var description: String

    init(_ description: String) { self.description = description }
}

extension DatabaseURL {
    /// The grammar in one line, for messages.
    public static let shape = "postgres://USER[:PASS]@HOST[:PORT][/DB][?sslmode=disable|prefer|require|verify-ca|verify-full]"

    /// Parses a URL of the form `shape` shows (scheme `postgres` or `postgresql`; user, password and database
    /// percent-decoded; the database defaults to the user's name and the port to 5432, as in libpq; `host=/dir` and
    /// `port=` as query parameters reach a Unix socket; `sslrootcert=` names the authorities to trust).
    public init(parsing text: String) throws(DatabaseURLError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = trimmed.range(of: "://") else {
            throw DatabaseURLError("a database URL starts with postgres:// (\(Self.shape))")
        }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw DatabaseURLError("a database URL starts with postgres:// or postgresql://, not \(Self.printable(scheme))://")
        }
        var rest = trimmed[schemeEnd.upperBound...]
        var queryText: Substring?
        if let mark = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if rest.contains("#") { throw DatabaseURLError("a database URL has no #fragment") }
        let authority: Substring
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else {
            authority = rest
        }
        // The user part ends at the last `@`: a password may contain `@` (it should be written %40, but people forget).
        guard let at = authority.lastIndex(of: "@") else {
            throw DatabaseURLError("the database URL names no user (\(Self.shape))")
        }
        let userInfo = authority[..<at]
        let hostPort = authority[authority.index(after: at)...]
        let userText: Substring
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            userText = userInfo[..<colon]
            // Only whether it decodes is said: its bytes are secret.
            guard let decoded = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding else {
                throw DatabaseURLError("the database URL's password has a malformed %-escape")
            }
            password = decoded
        } else {
            userText = userInfo
        }
        guard let user = String(userText).removingPercentEncoding else {
            throw DatabaseURLError("the database URL's user name has a malformed %-escape")
        }
        guard !user.isEmpty else { throw DatabaseURLError("the database URL names no user (\(Self.shape))") }
        var host = ""
        var port = 5432
        if !hostPort.isEmpty {
            let portText: Substring?
            if hostPort.hasPrefix("[") {
                guard let close = hostPort.firstIndex(of: "]") else {
                    throw DatabaseURLError("the database URL's IPv6 host has no closing ]")
                }
                host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
                let after = hostPort[hostPort.index(after: close)...]
                guard after.isEmpty || after.hasPrefix(":") else {
                    throw DatabaseURLError("the database URL has text after its IPv6 host")
                }
                portText = after.isEmpty ? nil : after.dropFirst()
            } else if let colon = hostPort.firstIndex(of: ":") {
                host = String(hostPort[..<colon])
                portText = hostPort[hostPort.index(after: colon)...]
            } else {
                host = String(hostPort)
                portText = nil
            }
            if let portText { port = try Self.port(portText) }
            guard let decoded = host.removingPercentEncoding else {
                throw DatabaseURLError("the database URL's host has a malformed %-escape")
            }
            host = decoded
        }
        guard let database = String(path).removingPercentEncoding else {
            throw DatabaseURLError("the database URL's database name has a malformed %-escape")
        }
        self.init(user: user, password: password, host: host, port: port, database: database.isEmpty ? user : database)
        try applyQuery(queryText)
        guard !self.host.isEmpty else { throw DatabaseURLError("the database URL names no host (\(Self.shape))") }
        if isUnixSocket, tlsMode == .require || tlsMode == .verifyCA || tlsMode == .verifyFull {
            throw DatabaseURLError("sslmode=\(tlsMode.rawValue) needs a TCP host, not a Unix socket")
        }
        if rootCertificateFile != nil, tlsMode == .disable {
            throw DatabaseURLError("sslrootcert= needs TLS, and sslmode=disable turns it off")
        }
    }

    private mutating func applyQuery(_ query: Substring?) throws(DatabaseURLError) {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard let value = parts.count == 2 ? String(parts[1]).removingPercentEncoding : nil else {
                throw DatabaseURLError("the database URL's parameter \(Self.printable(name)) has no value or a malformed %-escape")
            }
            switch name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw DatabaseURLError(
                        "sslmode is one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")), not \(Self.printable(value))")
                }
                tlsMode = mode
            case "sslrootcert":
                rootCertificateFile = value
            case "host":
                host = value
            case "port":
                port = try Self.port(Substring(value))
            case "user":
                user = value
            case "dbname":
                database = value
            case "password":
                password = value
            case "application_name", "connect_timeout":
                continue
            default:
                throw DatabaseURLError(
                    "the database URL's parameter \(Self.printable(name)) is not known (sslmode, sslrootcert, host, port, user, password, dbname)")
            }
        }
    }

    private static func port(_ text: Substring) throws(DatabaseURLError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw DatabaseURLError("the database URL's port must be a number from 1 to 65535, not \(printable(String(text)))")
        }
        return port
    }

    /// Text from the URL shown in a message: at most 40 characters, controls replaced.
    private static func printable(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.prefix(40).map {
            $0.properties.generalCategory == .control || $0.properties.generalCategory == .format ? "?" : $0
        }))
        return "\"" + cleaned + (text.unicodeScalars.count > 40 ? "…" : "") + "\""
    }
}
