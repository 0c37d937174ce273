import Foundation
import Logging
import NIOCore
import Synchronization

/// Every connection the cloud holds, so it never runs out of descriptors. Connections are counted the moment they
/// are accepted (`AcceptGate`), before anything is built for them, and a descriptor is counted until its close has
/// happened, not merely been asked for: the count never runs ahead of the descriptors, so `accept` never meets
/// `EMFILE` (after which NIO stops accepting for a whole second, and every new client, `/health` too, waits for
/// its SYN to be sent again). Near `capacity` the longest-idle connections (no request in progress) are closed in a
/// batch ahead of need; a new connection is refused only when every held connection is busy. A flood of silent
/// connections thus costs the flood, not `/health`, the log or the store, which keep the descriptors
/// `DescriptorLimit` reserves.
final class ConnectionRegistry: Sendable {
    /// One held connection; its handlers say when it is busy.
    final class Entry: Sendable {
        fileprivate let key: ObjectIdentifier
        fileprivate weak let registry: ConnectionRegistry?

        fileprivate init(key: ObjectIdentifier, registry: ConnectionRegistry) {
            self.key = key
            self.registry = registry
        }

        /// Notes activity: `busy` while a request is being read or answered.
        func note(busy: Bool) {
            registry?.note(self, busy: busy)
        }
    }

    /// What becomes of a newly accepted connection.
    enum Admission {
        /// Held: served as usual.
        case held(Entry)
        /// Not held: told so (a plain-HTTP `503`) and closed.
        case refused
        /// Closed at once: too many refusals are already being told.
        case dropped
    }

    /// A held connection as the registry keeps it.
    private struct Held {
        let entry: Entry
        let channel: any Channel
        var busy = false
        var lastActive = NIODeadline.now()
        /// Whether its own event loop has set it up (`claim`): only then can its first bytes have been read, so until
        /// then it is shed only when no set-up connection is idle.
        var claimed = false
    }

    /// Everything the registry knows, under its one lock.
    private struct State {
        var limit: Int
        var entries: [ObjectIdentifier: Held] = [:]
        /// Connections no longer held whose descriptors are still open: shed ones whose close has not yet happened on
        /// their event loop, and refused ones being told so.
        var leaving: Set<ObjectIdentifier> = []
        /// The most connections held since memory was last handed back.
        var peak = 0
        /// Whether a crowd is leaving: memory is handed back at each quarter, down to the last few connections.
        var crowdLeaving = false
        /// When shedding was last logged (one line per second at most).
        var lastShedLog: NIODeadline = .distantPast
        /// Connections shed or refused since the last log line.
        var unloggedShed = 0
        var unloggedRefused = 0

        /// Connections shed at a time: closed ahead of need, so closing is not paid one connection at a time.
        var batch: Int { max(1, limit / 32) }

        /// Takes up to `goal` of the longest-idle entries out of `entries` into `leaving`: set-up ones first, since a
        /// connection whose event loop has not yet reached it may have a request waiting unread.
        mutating func shed(_ goal: Int) -> [any Channel] {
            guard goal > 0 else { return [] }
            var idle = entries.filter { !$0.value.busy }.map { ($0.key, $0.value) }
            guard !idle.isEmpty else { return [] }
            if idle.count > goal {
                idle.sort { ($0.1.claimed ? 0 : 1, $0.1.lastActive) < ($1.1.claimed ? 0 : 1, $1.1.lastActive) }
                idle.removeLast(idle.count - goal)
            }
            for (key, _) in idle {
                entries[key] = nil
                leaving.insert(key)
            }
            unloggedShed += idle.count
            return idle.map { $0.1.channel }
        }
    }

    /// Connections held at most (descriptors of connections open at most, held or closing).
    var capacity: Int { state.withLock { $0.limit } }
    private let state: Mutex<State>
    private let logger: Logger

    /// A registry of at most `capacity` connections.
    init(capacity: Int, logger: Logger) {
        state = Mutex(State(limit: max(2, capacity)))
        self.logger = logger
    }

    /// How many connections are held.
    var count: Int { state.withLock { $0.entries.count } }

    /// Sets the capacity once what else the process keeps open is known (the store, the event loops).
    func resize(to capacity: Int) {
        state.withLock { $0.limit = max(2, capacity) }
    }

    /// Counts `channel` as it is accepted, shedding the longest-idle connections ahead of need when the cloud nears
    /// its capacity. Runs on the listening socket's event loop, before the connection's pipeline is built (`claimed`
    /// when its own loop admits it as it sets it up, see `claim`).
    func admit(_ channel: any Channel, claimed: Bool = false) -> Admission {
        let key = ObjectIdentifier(channel)
        let (admission, shed): (Admission, [any Channel]) = state.withLock { state in
            if let known = state.entries[key] { return (.held(known.entry), []) }
            // Within a batch of the capacity, a batch is shed: two batches below it are held then, so the next batch
            // of connections is taken while the shed ones' closes happen.
            let batch = state.batch
            let shed = state.entries.count + batch >= state.limit ? state.shed(state.entries.count - max(0, state.limit - 2 * batch)) : []
            guard state.entries.count < state.limit else {
                // Every held connection is busy.
                state.unloggedRefused += 1
                // A few refusals at a time are told why; past that, closing at once costs nothing more.
                guard state.leaving.count < batch * 2 else { return (.dropped, shed) }
                state.leaving.insert(key)
                return (.refused, shed)
            }
            let entry = Entry(key: key, registry: self)
            state.entries[key] = Held(entry: entry, channel: channel, claimed: claimed)
            state.peak = max(state.peak, state.entries.count)
            return (.held(entry), shed)
        }
        if case .dropped = admission {} else { channel.closeFuture.whenComplete { _ in self.forget(key) } }
        close(shed)
        return admission
    }

    /// Whether so many closes are still to happen that accepting should wait for them: the descriptors of closing
    /// connections come out of the reserve.
    var closesBehind: Bool { state.withLock { $0.leaving.count >= Self.closingAllowance } }

    /// Connections closing (shed or refused) at most while new ones are accepted.
    static let closingAllowance = 16

    /// The entry `admit` made for `channel` when it was accepted, nil when it was refused; admits it now when it
    /// was accepted before the listener was guarded. Runs on the connection's own event loop, as it is set up: from
    /// here its first bytes can be read. Its idle time still counts from its accept, so connections go in the order
    /// they came, whichever loop set them up first.
    func claim(_ channel: any Channel) -> Entry? {
        let key = ObjectIdentifier(channel)
        let (known, refused) = state.withLock { state -> (Entry?, Bool) in
            guard state.entries[key] != nil else { return (nil, state.leaving.contains(key)) }
            state.entries[key]?.claimed = true
            return (state.entries[key]?.entry, false)
        }
        if let known { return known }
        guard !refused, case .held(let entry) = admit(channel, claimed: true) else { return nil }
        return entry
    }

    /// Closes a batch of the longest-idle connections now (the process ran out of descriptors all the same); how
    /// many were closed.
    @discardableResult
    func shedBatch() -> Int {
        let shed = state.withLock { $0.shed($0.batch) }
        close(shed)
        return shed.count
    }

    /// Records `entry`'s activity, unless its connection is no longer held.
    fileprivate func note(_ entry: Entry, busy: Bool) {
        state.withLock { state in
            // The same key may name a newer connection once this one is gone.
            guard state.entries[entry.key]?.entry === entry else { return }
            state.entries[entry.key]?.busy = busy
            state.entries[entry.key]?.lastActive = .now()
        }
    }

    private func close(_ shed: [any Channel]) {
        for victim in shed { victim.close(promise: nil) }
        logShedding()
    }

    /// Forgets a closed connection; as a crowd of them goes (from 256 or more, at each quarter left, down to the last
    /// few), hands the memory their buffers held back to the system, so floods of connections do not ratchet the
    /// cloud's size up.
    private func forget(_ key: ObjectIdentifier) {
        let crowdGone = state.withLock { state in
            if state.leaving.remove(key) == nil { state.entries.removeValue(forKey: key) }
            guard state.peak >= 256 || (state.crowdLeaving && state.peak >= 16), state.entries.count <= state.peak / 4 else { return false }
            state.crowdLeaving = state.entries.count >= 16
            state.peak = state.entries.count
            return true
        }
        if crowdGone { FreeMemory.handBack() }
    }

    private func logShedding() {
        let now = NIODeadline.now()
        let counts: (shed: Int, refused: Int, limit: Int)? = state.withLock { state in
            guard state.unloggedShed + state.unloggedRefused > 0, now - state.lastShedLog >= .seconds(1) else { return nil }
            state.lastShedLog = now
            defer { (state.unloggedShed, state.unloggedRefused) = (0, 0) }
            return (state.unloggedShed, state.unloggedRefused, state.limit)
        }
        guard let counts else { return }
        logger.warning(
            "at the connection limit: closing the longest-idle connections",
            metadata: ["closed": "\(counts.shed)", "refusedNew": "\(counts.refused)", "limit": "\(counts.limit)"])
    }
}

/// glibc's `malloc_trim`: free pages of every arena back to the system (the cloud's allocator tuning keeps up to
/// 64 MB at the top of each heap, and a flood's buffers lie scattered through them).
enum FreeMemory {
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = dlsym(nil, "malloc_trim").map { unsafeBitCast($0, to: Trim.self) }
    /// 0: no trim pending; 1: one pending; 2: one pending and asked for again since it was.
    private static let state = Atomic<Int>(0)

    /// Trims on a background thread a second from now; calls meanwhile are folded into one more trim after it.
    static func handBack() {
        guard trim != nil else { return }
        let (scheduled, was) = state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        if scheduled {
            schedule()
        } else if was == 1 {
            _ = state.compareExchange(expected: 1, desired: 2, ordering: .acquiringAndReleasing)
        }
    }

    private static func schedule() {
        // Not at once: the connections' tasks end on other threads after their closes, and free what they held
        // then (measured: a trim at the closes left 60 MB of 10,000 connections' memory in the allocator).
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + 1) {
            _ = trim?(0)
            guard !state.compareExchange(expected: 1, desired: 0, ordering: .acquiringAndReleasing).exchanged else { return }
            // Asked for again meanwhile.
            state.store(1, ordering: .releasing)
            schedule()
        }
    }
}

/// The process's open-file limit: raised to what the system allows, and split between connections and a reserve.
enum DescriptorLimit {
    /// Descriptors kept free of connections for the store, the log, the listening socket and `/health`.
    static func reserve(limit: Int) -> Int { max(64, limit / 16) }

    /// Raises the soft open-file limit to the hard one; returns the soft limit now in force.
    @discardableResult
    static func raise() -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        return Int(clamping: min(limits.rlim_cur, rlim_t(Int32.max)))
    }

    /// Descriptors this process has open now (0 when `/proc` cannot tell).
    static func openCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Connections a cloud may hold: the limit, less what is open already and the reserve.
    static func connectionCapacity() -> Int {
        let limit = raise()
        return max(16, limit - openCount() - reserve(limit: limit))
    }
}
