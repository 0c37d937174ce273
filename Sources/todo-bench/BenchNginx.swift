import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx in front of the bench's cloud instances: plain HTTP on a loopback port (TLS termination is not what
/// the server bench measures), balancing round-robin over the instances with kept-alive upstream connections, with
/// the proxy settings of the README's "Several instances on PostgreSQL" site.
final class BenchNginx {
    let port: Int
    let directory: URL
    private let process = Process()

    /// Where nginx is installed, if it is.
    static let binary = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts nginx before `instancePorts` and waits until it answers `/health` through them.
    init(instancePorts: [Int]) throws {
        guard let binary = Self.binary else { throw BenchError("nginx is not installed (apt-get install nginx)") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-bench-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = Int.random(in: 40_001...50_000)
        let path = directory.path
        let servers = instancePorts.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=5s;" }.joined(separator: "\n")
        // As root nginx hands its workers to `nobody`, which could not read this private directory.
        let user = geteuid() == 0 ? "user root root;" : ""
        let configuration = """
            \(user)
            daemon off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 4096; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                # A batch of 200 records is ~100 KB each way: keep bodies and answers in memory, not in temp files.
                client_body_buffer_size 1m;
                proxy_buffers 64 16k;
                proxy_busy_buffers_size 256k;
                upstream cloudtodo_instances {
            \(servers)
                    keepalive 64;
                }
                upstream cloudtodo_push {
                    hash $uri consistent;
            \(servers)
                    keepalive 64;
                }
                server {
                    listen 127.0.0.1:\(port);
                    client_max_body_size 51m;
                    keepalive_timeout 30s;
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_set_header Host $http_host;
                    proxy_set_header X-Real-IP $remote_addr;
                    proxy_connect_timeout 2s;
                    proxy_next_upstream error timeout;
                    location / { proxy_pass http://cloudtodo_instances; }
                    location ~ ^/device/1/[^/]+/[^/]+/courier/ {
                        proxy_pass http://cloudtodo_push;
                        proxy_buffering off;
                        proxy_read_timeout 330s;
                    }
                }
            }

            """
        try Data(configuration.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", path, "-e", "\(path)/error.log", "-c", "\(path)/nginx.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            guard process.isRunning else { throw BenchError("nginx exited: \(log)") }
            if (try? HTTP.shared.get("http://127.0.0.1:\(port)/health"))?.status == 200 { return }
            usleep(50_000)
        }
        stop()
        throw BenchError("nginx did not answer on port \(port) within 15 s: \(log)")
    }

    /// nginx's error log.
    var log: String { (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "" }

    /// Stops nginx (SIGTERM) and removes its directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
