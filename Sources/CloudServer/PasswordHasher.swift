import Foundation

/// Runs yescrypt off Swift's cooperative pool, on serial lanes shared by every cloud in the process: one per core but
/// one (at least one), so a burst of sign-ins leaves a core to every other request and the memory hashes take stays
/// bounded. Each job is resumed through a continuation. Unknown accounts are verified against a dummy hash of the
/// same cost, so they answer as slowly as wrong passwords.
final class PasswordHasher: Sendable {
    private let cost: UInt
    /// A hash nobody knows the password of, made on a lane at the cost new accounts get.
    private let dummyHash: DummyHash

    /// Hashes new passwords at `cost`.
    init(cost: UInt) {
        self.cost = cost
        dummyHash = DummyHash(cost: cost)
        // Made ahead, on a lane: the first unknown account should not take twice as long as a wrong password.
        let dummy = dummyHash
        Lanes.shared.submit { _ = dummy.value }
    }

    /// A new hash of `password` (see `Secrets.hashPassword`).
    func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await Lanes.shared.run { try Secrets.hashPassword(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; with no hash (unknown account) it spends the same time and answers false.
    func verify(_ password: String, against hash: String?) async -> Bool {
        let dummy = dummyHash
        let matches = try? await Lanes.shared.run { Secrets.verifyPassword(password, hash: hash ?? dummy.value) }
        return hash != nil && matches == true
    }

    /// The dummy hash, made once on first use.
    private final class DummyHash: @unchecked Sendable {
        private let lock = NSLock()
        private let cost: UInt
        private var made: String?

        init(cost: UInt) { self.cost = cost }

        var value: String {
            lock.withLock {
                if let made { return made }
                let hash = (try? Secrets.hashPassword(Secrets.randomToken(), cost: cost)) ?? ""
                made = hash
                return hash
            }
        }
    }

    /// The process's hashing threads: serial queues, each job to the least loaded.
    private final class Lanes: @unchecked Sendable {
        static let shared = Lanes(count: ProcessInfo.processInfo.activeProcessorCount - 1)

        private let queues: [DispatchQueue]
        private let lock = NSLock()
        /// Jobs queued or running per lane.
        private var load: [Int]

        init(count: Int) {
            let count = max(1, count)
            queues = (0..<count).map { DispatchQueue(label: "cloudtodo.password-hasher.\($0)", qos: .userInitiated) }
            load = Array(repeating: 0, count: count)
        }

        func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                submit { continuation.resume(with: Result { try work() }) }
            }
        }

        func submit(_ job: @escaping @Sendable () -> Void) {
            let lane = lock.withLock {
                let index = load.indices.min { load[$0] < load[$1] } ?? 0
                load[index] += 1
                return index
            }
            queues[lane].async {
                job()
                self.lock.withLock { self.load[lane] -= 1 }
            }
        }
    }
}
