import CloudModel
import Foundation
import ProcessTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Failed sign-ins through the real `todo server`, from its first answer on: a wrong password takes as long whatever
/// the account's cost, and as long as an unknown name.
@Suite("Sign-in timing through todo server", .enabled(if: TodoExecutable.path != nil, "the todo binary is not built"))
struct SignInTimingProcessTests {
    @Test func failedSignInsTakeAsLongWhateverTheCostAndWhetherTheAccountExistsFromTheFirstTry() async throws {
        let directory = ScratchDirectory.path("signin-timing")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("cloud").path
        // Made by the operator's tool under two costs: "light" at 1 (~3 ms a verification), "heavy" at 5 (~35 ms: ten
        // times cost 1, and 600 tries still fit the suite's time).
        for (account, cost) in [("light", "1"), ("heavy", "5")] {
            let added = try await TodoProcess.run(
                TodoExecutable.path!, ["server", "account", "add", account, "--data-dir", data, "--password-cost", cost],
                environment: ["TODO_PASSWORD": "correct horse \(account)"])
            try #require(added.status == 0, "\(added.errors)")
        }
        // A fresh cloud at cost 1: nobody has tried cost 5 since it started, and unknown names are checked at cost 1.
        let server = try await ServerChild(arguments: ["--password-cost", "1"], directory: directory)
        defer { server.stop() }
        let port = server.port
        let times = try await Self.onOwnThread { try Self.failures(port: port, rounds: 200) }
        let heavy = times["heavy"] ?? [], light = times["light"] ?? [], unknown = times["unknown"] ?? []
        print(
            "failed sign-ins from start, 200 each: cost 5 \(Self.quartiles(heavy)), cost 1 \(Self.quartiles(light)), "
                + "unknown \(Self.quartiles(unknown)) (ms: p25/p50/p75; first tries \(Self.ms(heavy.first)), \(Self.ms(light.first)), "
                + "\(Self.ms(unknown.first)))")
        try #require(heavy.count == 200 && light.count == 200 && unknown.count == 200)
        let heavyMedian = Self.percentile(heavy, 0.5)
        for (kind, sample) in [("cost 1", light), ("unknown", unknown)] {
            // The medians: a failure at cost 1 or for an unknown name is held until cost 5's typical time (a moving
            // average), while one at cost 5 takes its own verification when that runs longer: on a busy machine cost
            // 5 is a little slower (at cost 7: 0.88-0.96 of it on two cores shared with other builds, load 8-18).
            // The bound, 2/3 to 3/2, passes that; the leak it guards against was a ratio of about 0.1 here (cost 1
            // and unknown names answering at cost 1's speed; 0.02 and 0.14 against cost 7).
            let ratio = Self.percentile(sample, 0.5) / heavyMedian
            #expect(ratio > 2.0 / 3 && ratio < 1.5, "\(kind): median \(Self.percentile(sample, 0.5)) s, cost 5: \(heavyMedian) s")
            // The distributions overlap: each one's middle half reaches into the other's.
            #expect(Self.percentile(sample, 0.25) < Self.percentile(heavy, 0.75) && Self.percentile(heavy, 0.25) < Self.percentile(sample, 0.75))
            // The first tries after start: a failure is never answered before the floor learnt at start, so these are
            // bounded from below only (a loaded moment makes any try slower, never faster), and loosely, as that floor
            // was timed before the load of the tries that follow. Before the cloud learnt its stored costs at start,
            // the first wrong password at cost 1 answered in ~3 ms, a tenth of the median.
            let firstTries = sample.prefix(3).min() ?? 0
            #expect(firstTries > heavyMedian / 3, "\(kind): first tries \(sample.prefix(3)), cost 5 median \(heavyMedian) s")
        }
        #expect((heavy.prefix(3).min() ?? 0) > heavyMedian / 3, "cost 5: first tries \(heavy.prefix(3)), median \(heavyMedian) s")
        // The successful sign-ins are not held: they say who they are anyway.
        let right = try Self.signIn(port: port, account: "light", password: "correct horse light", from: "127.0.9.1")
        #expect(right.status == 200)
    }

    /// Wrong passwords for "light" and "heavy" and an unknown name, `rounds` of each, taking turns (who goes first
    /// rotates, so the very first try of each kind comes before any other of its kind), each from a loopback address
    /// of its own so no sign-in budget is spent; the seconds each took, by kind.
    private static func failures(port: Int, rounds: Int) throws -> [String: [Double]] {
        var times: [String: [Double]] = [:]
        var address = 0
        for round in 0..<rounds {
            let kinds = ["light", "heavy", "unknown"]
            for turn in 0..<kinds.count {
                let kind = kinds[(round + turn) % kinds.count]
                let account = kind == "unknown" ? "nobody\(round)" : kind
                let source = "127.0.\(10 + address / 250).\(1 + address % 250)"
                address += 1
                let started = ContinuousClock.now
                let answer = try signIn(port: port, account: account, password: "wrong \(round)", from: source)
                let elapsed = ContinuousClock.now - started
                guard answer.status == 401 else { throw RawClientError("\(kind) answered \(answer.status): \(answer.body)") }
                times[kind, default: []].append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
        }
        return times
    }

    /// One sign-in on a new blocking connection from `source`: the status and body of the answer.
    private static func signIn(port: Int, account: String, password: String, from source: String) throws -> (status: Int, body: String) {
        let body = String(decoding: try JSONEncoder().encode(SignInRequest(account: account, password: password, deviceName: "laptop")), as: UTF8.self)
        let request =
            "POST \(ContainerAddress.default.authPath("signin")) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return try BlockingExchange(port: port, from: source).exchange(request)
    }

    /// Runs `work` on a thread of its own: blocking reads time the answers exactly and hold no cooperative thread.
    private static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    private static func quartiles(_ values: [Double]) -> String {
        [0.25, 0.5, 0.75].map { ms(percentile(values, $0)) }.joined(separator: "/")
    }

    private static func ms(_ seconds: Double?) -> String { String(format: "%.1f", (seconds ?? 0) * 1000) }
}

/// One request and its answer over a blocking TCP connection from a chosen loopback address.
private struct BlockingExchange {
    private let descriptor: Int32

    init(port: Int, from source: String) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawClientError("socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        // An answer that never comes fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) } }
        let connected = bound == 0
            && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, size) } } == 0
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw RawClientError("\(bound == 0 ? "connect" : "bind to \(source)"): \(reason)")
        }
    }

    /// Sends `request` and reads until the cloud closes (the request says `Connection: close`); closes the socket.
    func exchange(_ request: String) throws -> (status: Int, body: String) {
        defer { close(descriptor) }
        let bytes = Array(request.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw RawClientError("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                guard count == 0 else { throw RawClientError("recv: \(String(cString: strerror(errno)))") }
                break
            }
            received += chunk[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = Int(text.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
        return (status, text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n"))
    }
}
