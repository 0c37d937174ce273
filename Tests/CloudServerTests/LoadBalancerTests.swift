import CloudModel
import CloudServer
import Foundation
import NIOHTTP1
import TLSTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The README's "Several instances on PostgreSQL" nginx site, run for real with two upstreams: a real cloud and an
/// instance that dies with each request in hand (it reads the request, then drops the connection unanswered), later
/// one that is gone altogether (connection refused). What the site must do: pass GETs on to the live instance, never
/// send a POST that reached the dying instance a second time, and pass on every request it could not send.
@Suite(
    "nginx before several instances",
    .enabled(if: NginxProxy.isAvailable, "nginx is not installed (apt-get install nginx)"),
    .enabled(if: TestCertificateAuthority.isAvailable, "openssl is not installed: no test certificates"))
struct LoadBalancerTests {
    @Test func getsArePassedOnPostsThatReachedADyingInstanceAreNotAndARefusingInstanceIsSkipped() async throws {
        let scratch = ScratchDirectory.path("balancer")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let authority = try await TestCertificateAuthority(in: scratch.appendingPathComponent("ca"))
        let issued = try await authority.issue("nginx", hosts: ["localhost", "127.0.0.1"])
        let cloud = try await TestCloud(configure: { $0.insecureHTTP = true })
        let dying = try DyingInstance()
        let port = try NginxProxy.freePort()
        // max_fails=0: the dying instance keeps its turn in every round, so each kind of request meets it.
        let site = try NginxProxy.readmeInstancesSite(
            instancePorts: (dying.port, cloud.server.port), port: port, certificate: issued, upstreamOptions: "max_fails=0;")
        let nginx: NginxProxy
        do {
            nginx = try await NginxProxy(site: site, port: port, directory: scratch.appendingPathComponent("nginx"))
        } catch {
            dying.stop()
            await cloud.close()
            throw error
        }
        do {
            // The client is shut down on every path: one left to its deinit traps in debug builds.
            try await TLSTestClient.with(trusting: authority.certificate) { client in
                try await Self.drive(cloud: cloud, dying: dying, through: "https://127.0.0.1:\(port)", client: client)
            }
        } catch {
            Issue.record("nginx log: \(nginx.log)")
            await nginx.stop()
            dying.stop()
            await cloud.close()
            throw error
        }
        await nginx.stop()
        dying.stop()
        await cloud.close()
    }

    private static func drive(cloud: TestCloud, dying: DyingInstance, through base: String, client: TLSTestClient) async throws {
        let device = try await cloud.signIn("balanced")
        try await cloud.createTodosZone(device)
        let modify = base + cloud.address.databasePath(.private, "records/modify")

        // GETs: every one answered by the live instance, also those the dying instance received first.
        for _ in 0..<8 { #expect(try await client.send(.GET, base + "/health").status == 200) }
        #expect(dying.received.contains { $0.method == "GET" }, "no GET met the dying instance: the test proved nothing")

        // POSTs: those that reached the dying instance fail with 502 and were never sent to the live one.
        var answered: [String: Int] = [:]
        for index in 0..<8 {
            let name = "meets-\(index)"
            let body = try JSONEncoder().encode(ModifyRecordsRequest(operations: [.init(.create, todo(name, "Balanced \(index)"))], zoneID: todos))
            answered[name] = try await client.send(.POST, modify, body: body, token: device.token).status
        }
        let reachedDying = Set(dying.received.filter { $0.method == "POST" }.compactMap(\.recordName))
        #expect(!reachedDying.isEmpty, "no POST met the dying instance: the test proved nothing")
        #expect(Set(answered.filter { $0.value == 502 }.keys) == reachedDying)
        #expect(Set(answered.filter { $0.value == 200 }.keys) == Set(answered.keys).subtracting(reachedDying))
        #expect(try await Self.recordNames(cloud, device) == Set(answered.filter { $0.value == 200 }.keys))

        // The instance is gone (connection refused): nothing was sent to it, so every POST goes to the live one.
        dying.stop()
        var afterwards: Set<String> = []
        for index in 0..<6 {
            let name = "after-\(index)"
            let body = try JSONEncoder().encode(ModifyRecordsRequest(operations: [.init(.create, todo(name, "Still here \(index)"))], zoneID: todos))
            #expect(try await client.send(.POST, modify, body: body, token: device.token).status == 200)
            afterwards.insert(name)
        }
        #expect(try await Self.recordNames(cloud, device).isSuperset(of: afterwards))
    }

    private static func recordNames(_ cloud: TestCloud, _ device: Device) async throws -> Set<String> {
        let changes: ZoneChangesResponse = try await cloud.post(
            .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: device.token)
        return Set(changes.zones.first?.records.map(\.recordName) ?? [])
    }
}

/// An upstream that dies with every request in hand: it reads the whole request, notes it, and closes the connection
/// without a byte of answer, as an instance killed mid-request does. `stop()` closes its listener: connections are
/// refused from then on.
private final class DyingInstance: @unchecked Sendable {
    /// What one request was: its method, and the first record name of a `records/modify` body.
    struct Request: Sendable {
        var method: String
        var recordName: String?
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var requests: [Request] = []
    private var stopped = false

    /// The requests it has read so far.
    var received: [Request] { lock.withLock { requests } }

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw NginxError("the dying instance could not listen: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        // shutdown wakes the accept loop; the port refuses connections from here on.
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            if let request = Self.readRequest(connection) { lock.withLock { requests.append(request) } }
            close(connection)
        }
    }

    /// Reads a request head and its `Content-Length` body; nil when the peer closed first.
    private static func readRequest(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var bodyLength = 0
        while headEnd.map({ bytes.count < $0 + bodyLength }) ?? true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes.append(contentsOf: buffer[0..<count])
            if headEnd == nil, let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                headEnd = end
                let head = String(decoding: bytes[0..<end], as: UTF8.self).lowercased()
                bodyLength = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            }
        }
        guard let headEnd else { return nil }
        let method = String(decoding: bytes.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
        let body = Data(bytes[headEnd...])
        let name = (try? JSONDecoder().decode(ModifyRecordsRequest.self, from: body))?.operations.first?.record.recordName
        return Request(method: method, recordName: name)
    }
}
