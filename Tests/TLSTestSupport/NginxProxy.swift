import Foundation
import ProcessTestSupport
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx as a child process of the test: its own prefix, configuration, pid and log files in a temporary
/// directory, a site given as text, listening on a loopback port. Shared by the cloud's tests (one instance behind
/// it) and the end-to-end tests (several instances, one killed).
public final class NginxProxy: @unchecked Sendable {
    /// Where nginx is installed, if it is.
    public static let binary = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether nginx can run here; prints why not once when it cannot.
    public static let isAvailable: Bool = {
        guard binary != nil else {
            print("SKIPPED nginx-in-front test: nginx is not installed (Debian: apt-get install nginx; .ci/run installs it)")
            return false
        }
        return true
    }()

    /// The loopback port nginx listens on.
    public let port: Int
    /// Its prefix: configuration, pid, logs and temporary files.
    public let directory: URL
    private let child: ChildProcess.Running

    /// Starts nginx with `site` (server and upstream blocks, inside `http`) and waits until `port` accepts connections;
    /// each worker takes up to `workerConnections` connections, client and upstream together.
    public init(site: String, port: Int, directory: URL, workerConnections: Int = 1024) async throws {
        guard let binary = Self.binary else { throw NginxError("nginx is not installed") }
        self.port = port
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.path
        // As root nginx hands its workers to `nobody`, which could not read this private directory.
        let user = geteuid() == 0 ? "user root root;\n" : ""
        let main = """
            \(user)daemon off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections \(workerConnections); }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                include \(path)/site.conf;
            }

            """
        try Data(main.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
        try Data(site.utf8).write(to: directory.appendingPathComponent("site.conf"))
        child = try ChildProcess.start(binary, ["-p", path, "-e", "\(path)/error.log", "-c", "\(path)/nginx.conf"])
        // Listening is nginx's only if it said nothing fatal: another process may hold the port.
        let outcome = await firstValue(within: 15) { () -> Bool? in
            if ChildProcess.finished(child) != nil || self.log.contains("[emerg]") { return false }
            return Self.accepts(port: port) ? true : nil
        }
        if outcome == false {
            await ChildProcess.stop(child)
            throw NginxError("nginx did not start: \(log)")
        }
        if outcome == true { return }
        await ChildProcess.stop(child)
        throw NginxError("nginx did not listen on \(port) within 15 s: \(log)")
    }

    /// nginx's error log.
    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "" }

    /// Stops nginx (SIGTERM: its fast shutdown) and waits for it.
    public func stop() async {
        await ChildProcess.stop(child)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The `nginx` code block after `marker` in the project's hosting documents (`docs/HOSTING.md`,
    /// `docs/POSTGRESQL.md`), with each `from` replaced by its `to`; an error when the block or one of the `from` texts
    /// is missing (the documents changed under the test).
    public static func readmeSite(after marker: String, replacing replacements: [(from: String, to: String)]) throws -> String {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs")
        let text = try ["HOSTING.md", "POSTGRESQL.md"].map { try String(contentsOf: docs.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        guard let found = text.range(of: marker), let open = text.range(of: "```nginx\n", range: found.upperBound..<text.endIndex),
            let close = text.range(of: "\n```", range: open.upperBound..<text.endIndex)
        else { throw NginxError("docs/HOSTING.md and docs/POSTGRESQL.md have no nginx snippet after `\(marker)`") }
        var site = String(text[open.upperBound..<close.lowerBound])
        for (from, to) in replacements {
            guard site.contains(from) else { throw NginxError("the documented nginx snippet no longer says `\(from)`") }
            site = site.replacingOccurrences(of: from, with: to)
        }
        return site
    }

    /// The README's "Several instances on PostgreSQL" site, its two upstream instances at `instancePorts`, listening on
    /// `port` with `certificate`; `upstreamOptions` replaces the instances' `max_fails=1 fail_timeout=5s` when given.
    public static func readmeInstancesSite(
        instancePorts: (Int, Int), port: Int, certificate: TestCertificateAuthority.Issued, upstreamOptions: String? = nil
    ) throws -> String {
        let options = "max_fails=1 fail_timeout=5s;"
        return try readmeSite(
            after: "<!-- nginx instances snippet",
            replacing: [
                ("server 127.0.0.1:8787 \(options)", "server 127.0.0.1:\(instancePorts.0) \(upstreamOptions ?? options)"),
                ("server 127.0.0.1:8788 \(options)", "server 127.0.0.1:\(instancePorts.1) \(upstreamOptions ?? options)"),
                ("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
                ("server_name cloud.example.com;", "server_name localhost;"),
                ("/etc/letsencrypt/live/cloud.example.com/fullchain.pem", certificate.certificate.path),
                ("/etc/letsencrypt/live/cloud.example.com/privkey.pem", certificate.key.path),
            ])
    }

    /// Whether something accepts TCP connections on a loopback port now.
    public static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = LoopbackAddress.ipv4(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A loopback TCP port nothing holds now, from below the kernel's ephemeral range (32768 and up here): a port
    /// taken by `bind(0)` comes from that range, which every outgoing connection's local port comes from too, so
    /// between this check and the child's own bind a client could take it (nginx then failed to bind, and a test
    /// talked to whatever listened there). Each process walks the range from a random start.
    public static func freePort() throws -> Int {
        for _ in 0..<portRange.count {
            let port = portRange.lowerBound + (nextPort.add(1, ordering: .relaxed).newValue % portRange.count)
            if isFree(port) { return port }
        }
        throw NginxError("no free port in \(portRange)")
    }

    /// Where `freePort` looks: below Linux's default ephemeral range.
    private static let portRange = 20_000..<32_000
    private static let nextPort = Atomic<Int>(Int.random(in: 0..<12_000))

    /// Whether a socket without `SO_REUSEADDR` can bind `port` on loopback now (so nothing listens on it or uses it).
    private static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = LoopbackAddress.ipv4(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// nginx would not run, or the documented snippet is not what a test expects.
public struct NginxError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
