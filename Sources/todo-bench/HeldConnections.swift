import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `todo-bench _hold-connections PORT COUNT ADDRESSES`: opens COUNT silent TCP connections to 127.0.0.1:PORT from
/// ADDRESSES loopback sources and holds them until terminated. It runs as a child of the test or benchmark that
/// floods a cloud, so the flood's descriptors count against its own limit and never crowd out that process's files.
enum HeldConnections {
    /// Opens the connections, prints `opened N` as they go and `done N` (and the last failure, if any) at the end,
    /// then holds them until the process is ended. Dies with its parent.
    static func hold(port: Int, count: Int, addresses: Int) -> Never {
        let parent = getppid()
        raiseDescriptorLimit()
        var held: [Int32] = []
        held.reserveCapacity(count)
        var lastError = ""
        for index in 0..<count {
            let source = "127.0.\(2 + index % addresses / 250).\(1 + index % addresses % 250)"
            switch connect(port: port, from: source) {
            case .success(let descriptor): held.append(descriptor)
            case .failure(let error): lastError = error.description
            }
            if (index + 1) % 250 == 0 { say("opened \(held.count)") }
        }
        say("done \(held.count)" + (lastError.isEmpty ? "" : " last error: \(lastError)"))
        // Held until terminated, or until the parent is gone (a test process that crashed leaves no flood behind).
        while getppid() == parent { sleep(1) }
        exit(0)
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func raiseDescriptorLimit() {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return }
        limits.rlim_cur = limits.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
    }

    /// A blocking connect from `source` (a connect may wait while the cloud's backlog is full).
    private static func connect(port: Int, from source: String) -> Result<Int32, BenchError> {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return .failure(BenchError("socket: \(String(cString: strerror(errno)))")) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) } }
        let connected = bound == 0
            && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, size) } } == 0
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            return .failure(BenchError("\(bound == 0 ? "connect" : "bind to \(source)"): \(reason)"))
        }
        return .success(descriptor)
    }
}
