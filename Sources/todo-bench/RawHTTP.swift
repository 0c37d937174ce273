import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal keep-alive HTTP/1.1 client over a blocking socket, so benchmarks measure the server,
/// not the client library.
final class RawHTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// What each read() fills, allocated once (a fresh 256 KB per read cost the client more than the cloud's answer).
    private var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    private let host: String

    init(port: Int, host: String = "127.0.0.1") throws {
        self.host = "\(host):\(port)"
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket failed") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw BenchError("connect to \(host):\(port) failed") }
    }

    deinit { close(fd) }

    /// Sends one request (a bearer `token` and any other `headers`) and reads the whole response; returns status and
    /// body.
    func request(
        _ method: String, _ path: String, body: [UInt8] = [], token: String? = nil, contentType: String = "application/json",
        headers: [(name: String, value: String)] = []
    ) throws -> (status: Int, body: [UInt8]) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        // Headers.
        var headerEnd: Int?
        while headerEnd == nil {
            if let index = findHeaderEnd() { headerEnd = index } else { try fill() }
        }
        let headerText = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        let lines = headerText.split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var length = 0
        for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
        while buffer.count < length { try fill() }
        let responseBody = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return (status, responseBody)
    }

    private func findHeaderEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw BenchError("write failed") }
            offset += written
        }
    }

    private func fill() throws {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { throw BenchError("connection closed") }
        buffer.append(contentsOf: chunk[0..<count])
    }
}

/// Where `needle` first stands in `haystack` at or after `start`: memchr to its first byte, memcmp for the rest. The
/// benches scan every answer, so the scan must cost less than the cloud's writing of it (the generic
/// `firstRange(of:)`, and an array made per candidate, did not, and capped the figures they were meant to check).
func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
    guard let first = needle.first else { return start <= haystack.count ? start : nil }
    return haystack.withUnsafeBytes { hay -> Int? in
        needle.withUnsafeBytes { pin -> Int? in
            guard let base = hay.baseAddress, let pinBase = pin.baseAddress else { return nil }
            var at = start
            while at >= 0, hay.count - at >= pin.count {
                guard let hit = memchr(base + at, Int32(first), hay.count - at - pin.count + 1) else { return nil }
                let index = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(hit, pinBase, pin.count) == 0 { return index }
                at = index + 1
            }
            return nil
        }
    }
}

/// Pulls `"syncToken":"…"` and `"moreComing":bool` out of a changes page without decoding its records.
func scanPage(_ body: [UInt8]) -> (token: String?, moreComing: Bool, records: Int) {
    func find(_ needle: String, from start: Int = 0) -> Int? {
        let needle = Array(needle.utf8)
        return firstIndex(of: needle, in: body, from: start).map { $0 + needle.count }
    }
    var records = 0
    var cursor = 0
    while let next = find("{\"recordName\":", from: cursor) {
        records += 1
        cursor = next
    }
    var token: String?
    if let start = find("\"syncToken\":\"", from: cursor) {
        let end = body[start...].firstIndex(of: 0x22) ?? body.count
        token = String(decoding: body[start..<end], as: UTF8.self)
    }
    return (token, find("\"moreComing\":true", from: cursor) != nil, records)
}
