import Foundation
import ProcessTestSupport

/// A private certificate authority made with `openssl` in a temporary directory, for TLS tests on both ends.
public struct TestCertificateAuthority: Sendable {
    /// A certificate and its private key, both PEM files.
    public struct Issued: Sendable {
        /// The certificate (PEM).
        public var certificate: URL
        /// Its private key (PEM, unencrypted).
        public var key: URL
    }

    /// When an issued certificate is valid.
    public enum Validity: Sendable {
        /// From now for `days` days.
        case days(Int)
        /// A window that ended in 2020.
        case expired
        /// A window that starts in 2099.
        case notYetValid
    }

    /// Where the authority keeps its files.
    public let directory: URL
    /// The authority's own certificate: what a device's `--ca-file` names.
    public let certificate: URL
    private let key: URL

    /// Whether `openssl` can be run here; tests that need certificates skip with a line when it cannot.
    public static var isAvailable: Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/openssl") }
    }

    /// Makes a new authority (an EC P-256 key and a self-signed CA certificate) in `directory`.
    public init(in directory: URL, name: String = "CloudTodo Test CA") async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        certificate = directory.appendingPathComponent("ca.pem")
        key = directory.appendingPathComponent("ca.key")
        try Data(Self.authorityConfiguration.utf8).write(to: directory.appendingPathComponent("ca.cnf"))
        try Data().write(to: directory.appendingPathComponent("index.txt"))
        try Data("01\n".utf8).write(to: directory.appendingPathComponent("serial"))
        try await Self.run(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.path, "-out",
                certificate.path, "-days", "3650", "-subj", "/CN=\(name)", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ], in: directory)
    }

    /// Issues a server certificate for `hosts` (names become DNS entries, addresses IP entries), signed by this authority.
    public func issue(_ name: String, hosts: [String] = ["localhost", "127.0.0.1", "::1"], validity: Validity = .days(30)) async throws -> Issued {
        let issued = Issued(
            certificate: directory.appendingPathComponent("\(name).pem"), key: directory.appendingPathComponent("\(name).key"))
        let request = directory.appendingPathComponent("\(name).csr")
        try await Self.run(
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", issued.key.path, "-out",
                request.path, "-subj", "/CN=\(hosts.first ?? name)", "-addext", "subjectAltName=\(Self.alternativeNames(hosts))",
                "-addext", "extendedKeyUsage=serverAuth",
            ], in: directory)
        var signing = [
            "ca", "-batch", "-config", "ca.cnf", "-cert", certificate.path, "-keyfile", key.path, "-in", request.path, "-out",
            issued.certificate.path, "-notext",
        ]
        switch validity {
        case .days(let days): signing += ["-days", String(days)]
        case .expired: signing += ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"]
        case .notYetValid: signing += ["-startdate", "20990101000000Z", "-enddate", "20990201000000Z"]
        }
        try await Self.run(signing, in: directory)
        return issued
    }

    /// A self-signed server certificate no authority vouches for.
    public func selfSigned(_ name: String, hosts: [String] = ["localhost", "127.0.0.1", "::1"]) async throws -> Issued {
        let issued = Issued(
            certificate: directory.appendingPathComponent("\(name).pem"), key: directory.appendingPathComponent("\(name).key"))
        try await Self.run(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", issued.key.path, "-out",
                issued.certificate.path, "-days", "30", "-subj", "/CN=\(hosts.first ?? name)", "-addext",
                "subjectAltName=\(Self.alternativeNames(hosts))",
            ], in: directory)
        return issued
    }

    private static func alternativeNames(_ hosts: [String]) -> String {
        hosts.map { host in
            let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
            return isAddress ? "IP:\(host)" : "DNS:\(host)"
        }.joined(separator: ",")
    }

    private static let authorityConfiguration = """
        [ ca ]
        default_ca = local
        [ local ]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = any
        copy_extensions = copy
        unique_subject = no
        [ any ]
        commonName = supplied

        """

    @discardableResult
    private static func run(_ arguments: [String], in directory: URL) async throws -> String {
        let result = try await ChildProcess.run("/usr/bin/env", ["-C", directory.path, "openssl"] + arguments, timeout: .seconds(60))
        let text = result.output + result.errors
        guard result.status == 0 else {
            throw CertificateError(message: "openssl \(arguments.first ?? "") failed: \(text)")
        }
        return text
    }
}

/// `openssl` refused to make a certificate.
public struct CertificateError: Error, CustomStringConvertible {
    /// What openssl said.
    public var message: String
    public var description: String { message }
}
