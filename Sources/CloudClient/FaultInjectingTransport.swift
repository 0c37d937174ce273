import Foundation
import Synchronization

/// Wraps a real transport and lets tests cut the network: offline, failing chosen requests, or losing answers.
public final class FaultInjectingTransport: HTTPTransport {
    /// A failure planned for requests whose path contains `pathContains`.
    public struct PlannedFault: Sendable, Hashable {
        /// Where the fault strikes.
        public enum Kind: Sendable, Hashable {
            /// The request never reaches the server.
            case dropRequest
            /// The server performs the request, but its answer is lost.
            case loseResponse
        }

        public var pathContains: String
        /// Matching requests let through before the fault strikes.
        public var skip: Int
        /// Matching requests that fail once it strikes.
        public var count: Int
        public var kind: Kind

        /// A fault for `count` matching requests after `skip` have passed.
        public init(pathContains: String, skip: Int = 0, count: Int = 1, kind: Kind = .dropRequest) {
            self.pathContains = pathContains
            self.skip = skip
            self.count = count
            self.kind = kind
        }
    }

    private struct State {
        var offline = false
        var faults: [PlannedFault] = []
        var sent: [String] = []
    }

    private let base: any HTTPTransport
    private let state = LockedValue(State())

    /// Wraps `base`, passing every request through until told otherwise.
    public init(wrapping base: any HTTPTransport) { self.base = base }

    /// Whether every request fails as if the network were down.
    public var isOffline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    /// Plans a fault for upcoming matching requests.
    public func plan(_ fault: PlannedFault) { state.withLock { $0.faults.append(fault) } }

    /// Forgets the faults not yet struck.
    public func clearFaults() { state.withLock { $0.faults.removeAll() } }

    /// The paths of the requests that reached the server, in order.
    public var sentPaths: [String] { state.withLock { $0.sent } }

    /// Sends through the wrapped transport unless offline or a planned fault strikes.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        let decision: PlannedFault.Kind? = state.withLock { state in
            if state.offline { return .dropRequest }
            for index in state.faults.indices where path.contains(state.faults[index].pathContains) {
                if state.faults[index].skip > 0 {
                    state.faults[index].skip -= 1
                    continue
                }
                let kind = state.faults[index].kind
                state.faults[index].count -= 1
                if state.faults[index].count <= 0 { state.faults.remove(at: index) }
                return kind
            }
            return nil
        }
        if decision == .dropRequest { throw TransportError("network unavailable (injected) for \(path)") }
        state.withLock { $0.sent.append(path) }
        let response = try await base.send(request)
        if decision == .loseResponse { throw TransportError("connection lost (injected) after \(path)") }
        return response
    }
}

/// A value guarded by a `Mutex`, in a class: for the few mutable things shared across tasks that escaping closures
/// capture (a `Mutex` itself cannot be captured).
public final class LockedValue<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    /// Guards an initial value.
    public init(_ value: Value) { self.value = Mutex(value) }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T: Sendable>(_ body: (inout Value) throws -> T) rethrows -> T {
        try value.withLock { value in try body(&value) }
    }
}
