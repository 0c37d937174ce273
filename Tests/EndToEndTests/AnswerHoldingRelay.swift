import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP relay between a `todo` child and the cloud that can stop the cloud's answer to one request on its
/// way back: when armed, the first bytes answering a request whose head names `path` wait until `whileHeld` has run.
/// The cloud writes its answer only after it committed, so `whileHeld` runs between the cloud keeping a change and
/// the device hearing of it, the moment a full disk is worst for the device (the test fills it there).
final class AnswerHoldingRelay: Sendable {
    /// The port the device is pointed at.
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let path: String
    private let armed = Mutex<(@Sendable () -> Void)?>(nil)
    /// Whether `stop` was called, and whether the accept loop has closed the listener (both under one lock, so the
    /// listener is never shut down after its number was given back).
    private let listening = Mutex((stopped: false, closed: false))

    /// A relay to the cloud on `upstreamPort` that watches for requests naming `path`.
    init(upstreamPort: Int, path: String) throws {
        self.upstreamPort = upstreamPort
        self.path = path
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) } }
        guard descriptor >= 0, bound == 0, listen(descriptor, 64) == 0 else { throw E2EError("the relay cannot listen: \(errno)") }
        var actual = sockaddr_in()
        var length = size
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        listener = descriptor
        port = Int(UInt16(bigEndian: actual.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The next answer to a request naming the path waits for `action` (once).
    func arm(_ action: @escaping @Sendable () -> Void) {
        armed.withLock { $0 = action }
    }

    /// Stops accepting; relayed connections end as their ends close.
    func stop() {
        // Only a shutdown: the accept loop, woken by it, closes the listener, so no accept can meet a number another
        // thread has reopened.
        listening.withLock { state in
            state.stopped = true
            if !state.closed { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            let failure = errno
            let stopped = listening.withLock { $0.stopped }
            if client < 0, failure == EINTR, !stopped { continue }
            guard client >= 0, !stopped else {
                if client >= 0 { close(client) }
                listening.withLock { state in
                    close(listener)
                    state.closed = true
                }
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let size = socklen_t(MemoryLayout<sockaddr_in>.size)
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, size) } }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            // Whether this connection's last request named the path (its answer is the next bytes back).
            let asked = AskedFlag()
            let pair = RelayedPair(client: client, upstream: upstream)
            Thread { [self] in
                pump(from: client, to: upstream) { bytes in
                    if String(decoding: bytes, as: UTF8.self).contains(self.path) { asked.value.store(true, ordering: .sequentiallyConsistent) }
                }
                pair.pumpEnded()
            }.start()
            Thread { [self] in
                pump(from: upstream, to: client) { _ in
                    guard asked.value.exchange(false, ordering: .sequentiallyConsistent) else { return }
                    if let action = self.armed.withLock({ armed in defer { armed = nil }; return armed }) { action() }
                }
                pair.pumpEnded()
            }.start()
        }
    }

    /// Copies bytes from `source` to `sink`, calling `seen` with each chunk before it is passed on; at the end shuts
    /// both down, so the other direction's pump ends too (`RelayedPair` closes them once both have).
    private func pump(from source: Int32, to sink: Int32, seen: ([UInt8]) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            let chunk = Array(buffer[0..<count])
            seen(chunk)
            var sent = 0
            while sent < count {
                let wrote = chunk.withUnsafeBytes { write(sink, $0.baseAddress! + sent, count - sent) }
                guard wrote > 0 else { break }
                sent += wrote
            }
            guard sent == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
    }
}

/// A relayed connection's two descriptors, closed when both pumps have ended: closing one while the other pump may
/// still shut it down or write to it would reach whatever another thread opened under that number meanwhile.
private final class RelayedPair: Sendable {
    private let client: Int32
    private let upstream: Int32
    private let ended = Atomic<Int>(0)

    init(client: Int32, upstream: Int32) {
        self.client = client
        self.upstream = upstream
    }

    /// One direction is done; the second closes both.
    func pumpEnded() {
        guard ended.add(1, ordering: .acquiringAndReleasing).newValue == 2 else { return }
        close(client)
        close(upstream)
    }
}

/// Whether a relayed connection's last request named the watched path.
private final class AskedFlag: Sendable {
    let value = Atomic<Bool>(false)
}
