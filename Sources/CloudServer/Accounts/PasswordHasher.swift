import Foundation
import Synchronization

/// Runs yescrypt off Swift's cooperative pool, on serial lanes shared by every cloud in the process: one per core but
/// one (at least one), so a burst of sign-ins leaves a core to every other request and the memory hashes take stays
/// bounded. Each job is resumed through a continuation.
///
/// A failed sign-in takes as long whatever the account: unknown accounts are verified against a dummy hash, and every
/// failure is held until the typical time of the slowest cost in use (accounts made under another `--password-cost`
/// keep theirs), so neither a wrong password's speed nor an unknown name's tells which accounts exist. The costs in
/// use are learnt at start (`learnCosts`), before the first failure is answered: a cost nobody has tried since start
/// must not answer at another speed than later.
final class PasswordHasher: Sendable {
    private let cost: UInt
    /// A hash nobody knows the password of, made on a lane at the cost new accounts get.
    private let dummyHash: DummyHash
    /// How long a verification takes at each cost seen.
    private let times = VerifyTimes()
    /// The timing of the costs in use at start; failures wait for it.
    private let learning = Mutex<Task<Void, Never>?>(nil)

    /// Verifications timed per cost at start: the middle one is the first typical time.
    private static let learningRounds = 3

    /// Hashes new passwords at `cost`.
    init(cost: UInt) {
        self.cost = cost
        dummyHash = DummyHash(cost: cost)
        // Made ahead, on a lane: the first unknown account should not take twice as long as a wrong password.
        let dummy = dummyHash
        Lanes.shared.submit { _ = dummy.value }
    }

    /// Times verifications at the cost new accounts get and at each cost `storedSamples` reads (one stored hash per
    /// cost, `StoreTransaction.passwordHashSamples`), on a lane, so the first failed sign-in is already held as long
    /// as later ones. Failures answered meanwhile wait for it.
    func learnCosts(storedSamples: @escaping @Sendable () async throws -> [String]) {
        let dummy = dummyHash
        let times = times
        let task = Task {
            // Unreadable samples leave the stored costs to be learnt as they are tried, as before.
            let stored = (try? await storedSamples()) ?? []
            let timed = try? await Lanes.shared.run { () -> [(key: String, seconds: Double)] in
                var seen: Set<String> = []
                return ([dummy.value] + stored).compactMap { hash in
                    let key = Self.costKey(hash)
                    guard !key.isEmpty, seen.insert(key).inserted else { return nil }
                    let rounds = (0..<Self.learningRounds).map { _ in
                        let started = ContinuousClock.now
                        _ = Secrets.verifyPassword(Secrets.randomToken(), hash: hash)
                        return (ContinuousClock.now - started).seconds
                    }
                    return (key, rounds.sorted()[rounds.count / 2])
                }
            }
            for (key, seconds) in timed ?? [] { times.record(key, seconds: seconds) }
        }
        learning.withLock { $0 = task }
    }

    /// Waits until the costs in use at start are timed (at once when they are, or when nothing asked for them).
    func costsLearnt() async {
        await learning.withLock { $0 }?.value
    }

    /// A new hash of `password` (see `Secrets.hashPassword`).
    func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await Lanes.shared.run { try Secrets.hashPassword(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; with no hash (unknown account) it spends the same time and answers false.
    /// A false answer comes no sooner than the slowest cost's typical verification.
    func verify(_ password: String, against hash: String?) async -> Bool {
        let dummy = dummyHash
        let checked = try? await Lanes.shared.run { () -> (matches: Bool, key: String, seconds: Double) in
            let target = hash ?? dummy.value
            let started = ContinuousClock.now
            let matches = Secrets.verifyPassword(password, hash: target)
            return (matches, Self.costKey(target), (ContinuousClock.now - started).seconds)
        }
        guard let checked else { return false }
        times.record(checked.key, seconds: checked.seconds)
        if hash != nil, checked.matches { return true }
        await costsLearnt()
        let pad = times.slowest - checked.seconds
        if pad > 0.000_5 { try? await Task.sleep(for: .seconds(pad)) }
        return false
    }

    /// The slowest cost's typical verification, in seconds (tests).
    var failureFloor: Double { times.slowest }

    /// The cost part of a stored hash (`$y$PARAMS$salt$hash`, maybe behind the long-password marker): what
    /// `StoreTransaction.passwordHashSamples` groups by.
    static func costKey(_ hash: String) -> String {
        let fields = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard let y = fields.firstIndex(of: "y"), y + 1 < fields.count else { return "" }
        return String(fields[y + 1].prefix(32))
    }

    /// Typical verification times per cost: a moving average, so a moment of load moves them only a little.
    private final class VerifyTimes: Sendable {
        private let typical = Mutex<[String: Double]>([:])

        func record(_ key: String, seconds: Double) {
            typical.withLock { typical in
                if let old = typical[key] {
                    typical[key] = old * 0.8 + seconds * 0.2
                } else if typical.count < 32 {
                    typical[key] = seconds
                }
            }
        }

        var slowest: Double { typical.withLock { $0.values.max() ?? 0 } }
    }

    /// The dummy hash, made once on first use.
    private final class DummyHash: Sendable {
        private let cost: UInt
        private let made = Mutex<String?>(nil)

        init(cost: UInt) { self.cost = cost }

        var value: String {
            // Held while hashing: the callers meanwhile wait for the one hash.
            made.withLock { made in
                if let made { return made }
                let hash = (try? Secrets.hashPassword(Secrets.randomToken(), cost: cost)) ?? ""
                made = hash
                return hash
            }
        }
    }

    /// The process's hashing threads: serial queues, each job to the least loaded.
    private final class Lanes: Sendable {
        static let shared = Lanes(count: ProcessInfo.processInfo.activeProcessorCount - 1)

        private let queues: [DispatchQueue]
        /// Jobs queued or running per lane.
        private let load: Mutex<[Int]>

        init(count: Int) {
            let count = max(1, count)
            queues = (0..<count).map { DispatchQueue(label: "cloudtodo.password-hasher.\($0)", qos: .userInitiated) }
            load = Mutex(Array(repeating: 0, count: count))
        }

        func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                submit { continuation.resume(with: Result { try work() }) }
            }
        }

        func submit(_ job: @escaping @Sendable () -> Void) {
            let lane = load.withLock { load in
                let index = load.indices.min { load[$0] < load[$1] } ?? 0
                load[index] += 1
                return index
            }
            queues[lane].async {
                job()
                self.load.withLock { $0[lane] -= 1 }
            }
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
