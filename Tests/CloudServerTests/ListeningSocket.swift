import Foundation

/// What the kernel says of a loopback port's sockets (from `/proc/net/tcp` and `tcp6`), for a connection test's
/// failure message: whether connections the cloud never saw wait in the accept queue or were accepted and are still
/// open in this process, and in which state the clients' ends are.
enum ListeningSocket {
    /// The accept queue's length and the server side's connections on `port`, by state and by whether this process
    /// holds their descriptors.
    static func describe(port: Int) -> String {
        let held = Set(openSocketInodes())
        var acceptQueue = 0
        var states: [String: Int] = [:]
        var established = (held: 0, queued: 0)
        var clients: [String: Int] = [:]
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = procFile(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                guard columns.count > 9, let local = columns[1].split(separator: ":").last else { continue }
                // This process's client ends of connections to the port (whether they have seen the cloud's close).
                if let remote = columns[2].split(separator: ":").last, Int(remote, radix: 16) == port, Int(local, radix: 16) != port {
                    clients[String(columns[3]), default: 0] += 1
                }
                guard Int(local, radix: 16) == port else { continue }
                let state = String(columns[3])
                states[state, default: 0] += 1
                if state == "0A", let queue = columns[4].split(separator: ":").last { acceptQueue += Int(queue, radix: 16) ?? 0 }
                if state == "01" {
                    if held.contains(String(columns[9])) { established.held += 1 } else { established.queued += 1 }
                }
            }
        }
        func names(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\(stateNames[$0.key] ?? $0.key) \($0.value)" }.joined(separator: ", ")
        }
        return "accept queue \(acceptQueue); established held \(established.held), not accepted \(established.queued); "
            + "server ends: \(names(states)); client ends: \(names(clients))"
    }

    private static let stateNames = [
        "01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2", "06": "TIME_WAIT",
        "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING",
    ]

    /// A `/proc` file's whole text. Foundation's `String(contentsOfFile:)` reads what the file's size says, and a
    /// `/proc` file says 0 and gives a page a read: it saw the first 26 sockets of thousands, and every connection
    /// past them looked gone from the kernel.
    static func procFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[0..<count]
        }
    }

    /// The inodes of the sockets this process has open.
    private static func openSocketInodes() -> [String] {
        let directory = "/proc/self/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)"),
                target.hasPrefix("socket:[")
            else { return nil }
            return String(target.dropFirst(8).dropLast())
        }
    }
}
