import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx as a child process of the test: its own prefix, configuration, pid and log files in a temporary
/// directory, a site given as text, listening on a loopback port.
final class NginxProxy: @unchecked Sendable {
    /// Where nginx is installed, if it is.
    static let binary = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether nginx can run here; prints why not once when it cannot.
    static let isAvailable: Bool = {
        guard binary != nil else {
            print("SKIPPED nginx-in-front test: nginx is not installed (Debian: apt-get install nginx; .ci/run installs it)")
            return false
        }
        return true
    }()

    let port: Int
    let directory: URL
    private let process: Process

    /// Starts nginx with `site` (server and upstream blocks, inside `http`) and waits until `port` accepts connections.
    init(site: String, port: Int, directory: URL) async throws {
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
            events { worker_connections 1024; }
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
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", path, "-e", "\(path)/error.log", "-c", "\(path)/nginx.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(15) {
            if !process.isRunning { throw NginxError("nginx exited: \(log)") }
            if (try? RawClient(port: port)) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw NginxError("nginx did not listen on \(port) within 15 s: \(log)")
    }

    /// nginx's error log.
    var log: String { (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "" }

    /// Stops nginx (SIGTERM: its fast shutdown) and waits for it.
    func stop() async {
        process.terminate()
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A loopback TCP port nothing listens on now.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw NginxError("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// nginx would not run.
struct NginxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
