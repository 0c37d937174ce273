import Foundation

/// Runs yescrypt off Swift's cooperative pool: a few serial lanes (one per core but one, so a burst of sign-ins leaves
/// a core to every other request; this also bounds the memory hashes take), each job resumed through a continuation.
/// Unknown accounts are verified against a dummy hash of the same cost, so they answer as slowly as wrong passwords.
final class PasswordHasher: @unchecked Sendable {
    private let lanes: [DispatchQueue]
    private let lock = NSLock()
    /// Jobs queued or running per lane; new jobs go to the least loaded.
    private var load: [Int]
    private let cost: UInt
    private let dummyHash: String

    /// Hashes at `cost` on `concurrency` lanes (default: one fewer than the cores, at least one).
    init(cost: UInt, concurrency: Int = ProcessInfo.processInfo.activeProcessorCount - 1) {
        let count = max(1, concurrency)
        lanes = (0..<count).map { DispatchQueue(label: "cloudtodo.password-hasher.\($0)", qos: .userInitiated) }
        load = Array(repeating: 0, count: count)
        self.cost = cost
        // A hash nobody knows the password of; made once, at the cost new accounts get.
        dummyHash = (try? Secrets.hashPassword(Secrets.randomToken(), cost: cost)) ?? ""
    }

    /// A new hash of `password` (see `Secrets.hashPassword`).
    func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await run { try Secrets.hashPassword(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; with no hash (unknown account) it spends the same time and answers false.
    func verify(_ password: String, against hash: String?) async -> Bool {
        let dummy = dummyHash
        let matches = try? await run { Secrets.verifyPassword(password, hash: hash ?? dummy) }
        return hash != nil && matches == true
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let lane = lock.withLock {
            let index = load.indices.min { load[$0] < load[$1] } ?? 0
            load[index] += 1
            return index
        }
        return try await withCheckedThrowingContinuation { continuation in
            lanes[lane].async {
                let result = Result { try work() }
                self.lock.withLock { self.load[lane] -= 1 }
                continuation.resume(with: result)
            }
        }
    }
}
