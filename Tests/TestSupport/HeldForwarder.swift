import Foundation
import Glibc
import Synchronization

/// A loopback TCP forwarder that holds every connection it accepts until `release()`, then joins it to the target
/// port: a cloud that is slow to answer, for exactly as long as a test says.
public final class HeldForwarder: Sendable {
    /// The loopback port devices connect to.
    public let port: Int
    private let listener: Int32
    private let target: Int
    private let gate = DispatchGroup()
    private let state = Mutex(State())

    private struct State {
        var accepted = 0
        var released = false
        var stopped = false
        var descriptors: [Int32] = []
    }

    /// Listens on a free loopback port and forwards to `target` (a loopback port) once released.
    public init(target: Int) throws {
        self.target = target
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ForwarderError("socket: errno \(errno)") }
        var address = LoopbackAddress.ipv4(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            Glibc.close(socket)
            throw ForwarderError("bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        gate.enter()
        let accepting = Thread { [self] in acceptLoop() }
        accepting.start()
    }

    /// How many connections have arrived so far (held or forwarded).
    public var accepted: Int { state.withLock { $0.accepted } }

    /// Lets every held connection and every later one through to the target.
    public func release() {
        let first = state.withLock { state in
            defer { state.released = true }
            return !state.released
        }
        if first { gate.leave() }
    }

    /// Stops listening and closes every connection it holds or forwards.
    public func stop() {
        // Under the lock: a descriptor is closed (and its number reused) only once it left the list under it, and
        // the listener only once the accepting thread saw `stopped`, which it reads under the same lock.
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            for descriptor in state.descriptors { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
        }
        release()
    }

    /// Takes `descriptors` off the list and closes them.
    private func close(_ descriptors: Int32...) {
        state.withLock { state in
            state.descriptors.removeAll { descriptors.contains($0) }
            for descriptor in descriptors { Glibc.close(descriptor) }
        }
    }

    private func acceptLoop() {
        defer { Glibc.close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                // Only a stop ends the loop (its shutdown wakes the accept); anything else (an aborted connection, no
                // descriptor left) is the next accept's to retry.
                if state.withLock({ $0.stopped }) { return }
                sched_yield()
                continue
            }
            let keep = state.withLock { state in
                guard !state.stopped else { return false }
                state.accepted += 1
                state.descriptors.append(client)
                return true
            }
            guard keep else {
                Glibc.close(client)
                return
            }
            let joining = Thread { [self] in join(client) }
            joining.start()
        }
    }

    /// Waits for the release, then copies both ways between `client` and a new connection to the target.
    private func join(_ client: Int32) {
        gate.wait()
        let upstream = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackAddress.ipv4(port: target)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let stopped = state.withLock { state in
            if !state.stopped { state.descriptors.append(upstream) }
            return state.stopped
        }
        guard connected == 0, !stopped else {
            if stopped { Glibc.close(upstream) } else { close(upstream) }
            close(client)
            return
        }
        let answered = DispatchGroup()
        answered.enter()
        let back = Thread {
            Self.copy(from: upstream, to: client)
            answered.leave()
        }
        back.start()
        Self.copy(from: client, to: upstream)
        answered.wait()
        close(client, upstream)
    }

    /// Copies until `source` ends, then ends the writing half of `sink`.
    private static func copy(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(sink, $0.baseAddress! + offset, count - offset) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { break copying }
                offset += written
            }
        }
        Glibc.shutdown(sink, Int32(SHUT_WR))
    }
}

/// What went wrong setting up a forwarder.
public struct ForwarderError: Error, CustomStringConvertible {
    /// The failure, in words.
    public let description: String
    init(_ description: String) { self.description = description }
}
