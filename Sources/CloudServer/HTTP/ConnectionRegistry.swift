import Foundation
import Logging
import NIOCore
import Synchronization

/// Every connection the cloud holds, so it never runs out of descriptors: past `capacity` a new connection makes
/// room by closing the connections that have been idle (no request in progress) longest, and is itself refused only
/// when every other connection is busy. A flood of silent connections thus costs the flood, not `/health`, the log or
/// the store, which keep the descriptors `DescriptorLimit` reserves.
final class ConnectionRegistry: @unchecked Sendable {
    /// One held connection; its handlers say when it is busy.
    final class Entry: @unchecked Sendable {
        fileprivate let channel: any Channel
        fileprivate var busy = false
        fileprivate var lastActive: NIODeadline
        fileprivate weak var registry: ConnectionRegistry?

        fileprivate init(channel: any Channel, registry: ConnectionRegistry) {
            self.channel = channel
            self.registry = registry
            lastActive = .now()
        }

        /// Notes activity: `busy` while a request is being read or answered.
        func note(busy: Bool) {
            registry?.lock.withLock {
                self.busy = busy
                lastActive = .now()
            }
        }
    }

    /// Connections held at most.
    let capacity: Int
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// The most connections held since memory was last handed back.
    private var peak = 0
    /// Whether a crowd is leaving: memory is handed back at each quarter, down to the last few connections.
    private var crowdLeaving = false
    private let logger: Logger
    /// When shedding was last logged (one line per second at most).
    private var lastShedLog: NIODeadline = .distantPast

    /// A registry of at most `capacity` connections.
    init(capacity: Int, logger: Logger) {
        self.capacity = max(2, capacity)
        self.logger = logger
    }

    /// How many connections are held.
    var count: Int { lock.withLock { entries.count } }

    /// Holds `channel`, first closing the longest-idle connections when the cloud is at capacity; nil when every
    /// held connection is busy (the caller refuses this one).
    func admit(_ channel: any Channel) -> Entry? {
        let entry = Entry(channel: channel, registry: self)
        let key = ObjectIdentifier(channel)
        let (admitted, shed): (Bool, [any Channel]) = lock.withLock {
            var shed: [any Channel] = []
            if entries.count >= capacity {
                // Room for this one and a few more, so the next connections do not each pay for a scan.
                let goal = entries.count - capacity + 1 + capacity / 32
                let idle = entries.filter { !$0.value.busy }.sorted { $0.value.lastActive < $1.value.lastActive }.prefix(goal)
                for (id, victim) in idle {
                    entries[id] = nil
                    shed.append(victim.channel)
                }
                guard entries.count < capacity else { return (false, shed) }
            }
            entries[key] = entry
            peak = max(peak, entries.count)
            return (true, shed)
        }
        for victim in shed { victim.close(promise: nil) }
        if !shed.isEmpty || !admitted { logShedding(shed.count, refused: !admitted) }
        guard admitted else { return nil }
        channel.closeFuture.whenComplete { _ in self.forget(key) }
        return entry
    }

    /// Forgets a closed connection; as a crowd of them goes (from 256 or more, at each quarter left, down to the last
    /// few), hands the memory their buffers held back to the system, so floods of connections do not ratchet the
    /// cloud's size up.
    private func forget(_ key: ObjectIdentifier) {
        let crowdGone = lock.withLock {
            entries.removeValue(forKey: key)
            guard peak >= 256 || (crowdLeaving && peak >= 16), entries.count <= peak / 4 else { return false }
            crowdLeaving = entries.count >= 16
            peak = entries.count
            return true
        }
        if crowdGone { FreeMemory.handBack() }
    }

    private func logShedding(_ count: Int, refused: Bool) {
        let now = NIODeadline.now()
        let due = lock.withLock {
            guard now - lastShedLog >= .seconds(1) else { return false }
            lastShedLog = now
            return true
        }
        guard due else { return }
        logger.warning(
            "at the connection limit: closing the longest-idle connections",
            metadata: ["closed": "\(count)", "limit": "\(capacity)", "refusedNew": "\(refused)"])
    }
}

/// glibc's `malloc_trim`: free pages of every arena back to the system (the cloud's allocator tuning keeps up to
/// 64 MB at the top of each heap, and a flood's buffers lie scattered through them).
enum FreeMemory {
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = dlsym(nil, "malloc_trim").map { unsafeBitCast($0, to: Trim.self) }
    private static let running = Atomic<Bool>(false)

    /// Trims on a background thread; a call while one runs is dropped.
    static func handBack() {
        guard let trim, running.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        DispatchQueue.global(qos: .utility).async {
            _ = trim(0)
            running.store(false, ordering: .releasing)
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
