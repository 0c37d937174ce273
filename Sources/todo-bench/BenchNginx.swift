import CloudModel
import Foundation
import TLSTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx in front of the bench's cloud instances (the tests' `NginxProxy` with the bench's site): plain HTTP
/// on a loopback port (TLS termination is not what the server bench measures), balancing round-robin over the
/// instances with kept-alive upstream connections, with the proxy settings of docs/POSTGRESQL.md's "Several instances on
/// PostgreSQL" site.
final class BenchNginx {
    private let proxy: NginxProxy
    /// The loopback port nginx listens on.
    var port: Int { proxy.port }

    /// Where nginx is installed, if it is.
    static var binary: String? { NginxProxy.binary }

    /// Starts nginx before `instancePorts` and waits until it answers `/health` through them.
    init(instancePorts: [Int]) async throws {
        guard Self.binary != nil else { throw BenchError("nginx is not installed (apt-get install nginx)") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-bench-nginx-\(UUID().uuidString)")
        let port = Int.random(in: 40_001...50_000)
        let servers = instancePorts.map { "    server 127.0.0.1:\($0) max_fails=1 fail_timeout=5s;" }.joined(separator: "\n")
        let site = """
            upstream cloudtodo_instances {
            \(servers)
                keepalive 64;
            }
            upstream cloudtodo_push {
                hash $uri consistent;
            \(servers)
                keepalive 64;
            }
            upstream cloudtodo_feeds {
                hash $http_authorization consistent;
            \(servers)
                keepalive 64;
            }
            server {
                listen 127.0.0.1:\(port);
                # A batch of 200 records is ~100 KB each way: keep bodies and answers in memory, not in temp files.
                client_body_buffer_size 1m;
                proxy_buffers 64 16k;
                proxy_busy_buffers_size 256k;
                client_max_body_size 51m;
                keepalive_timeout 30s;
                proxy_http_version 1.1;
                proxy_set_header Connection "";
                proxy_set_header Host $http_host;
                proxy_set_header X-Real-IP $remote_addr;
                proxy_connect_timeout 2s;
                proxy_next_upstream error timeout;
                location / { proxy_pass http://cloudtodo_instances; }
                location ~ ^/database/1/[^/]+/[^/]+/private/changes/zone$ { proxy_pass http://cloudtodo_feeds; }
                location ~ ^/device/1/[^/]+/[^/]+/\(CapabilityURL.courier.action)/ {
                    proxy_pass http://cloudtodo_push;
                    proxy_buffering off;
                    proxy_read_timeout 330s;
                }
            }

            """
        proxy = try await NginxProxy(site: site, port: port, directory: directory, workerConnections: 4096)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if (try? HTTP.shared.get("http://127.0.0.1:\(port)" + EndpointAPI.healthPath))?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = proxy.log
        await proxy.stop()
        throw BenchError("nginx did not answer /health on port \(port) within 15 s: \(log)")
    }

    /// Stops nginx and removes its directory.
    func stop() async { await proxy.stop() }

    /// Runs `body` with nginx in front of `instancePorts`, and stops nginx afterwards, whether `body` threw or not.
    static func inFront<T>(of instancePorts: [Int], _ body: (BenchNginx) throws -> T) async throws -> T {
        let nginx = try await BenchNginx(instancePorts: instancePorts)
        do {
            let value = try body(nginx)
            await nginx.stop()
            return value
        } catch {
            await nginx.stop()
            throw error
        }
    }
}
