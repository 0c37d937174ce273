import CloudModel
import Foundation
import Synchronization

/// A per-user token bucket: a steady rate with bursts of twice that.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let rate: Double
    private let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A limiter of `rate` requests per second per key.
    init(rate: Double) {
        self.rate = rate
        self.burst = max(1, rate * 2)
    }

    /// Takes one token for `key`; returns the seconds to wait when the bucket is empty.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Double? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.updated = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                buckets[key] = bucket
                return nil
            }
            buckets[key] = bucket
            return max(0.001, (1 - bucket.tokens) / rate)
        }
    }
}

/// Test faults: the next N calls of an endpoint fail with a chosen error.
final class FaultInjector: Sendable {
    private let faults = Mutex<[String: FaultRequest]>([:])

    /// Arms a fault (replacing one armed for the same endpoint).
    func arm(_ fault: FaultRequest) {
        faults.withLock { $0[fault.endpoint] = fault.count > 0 ? fault : nil }
    }

    /// The error the call of `endpoint` must fail with, consuming one of its count.
    func consume(endpoint: String) -> ServerError? {
        faults.withLock { faults in
            for key in [endpoint, "*"] {
                guard var fault = faults[key] else { continue }
                fault.count -= 1
                faults[key] = fault.count > 0 ? fault : nil
                return ServerError(fault.serverErrorCode, "injected fault on \(endpoint)", retryAfter: fault.retryAfter)
            }
            return nil
        }
    }
}

/// How many requests of a kind are being answered right now.
final class InFlightCounter: Sendable {
    private let count = Mutex(0)

    /// Counts one more in; answers how many were in before it.
    func enter() -> Int {
        count.withLock { count in
            count += 1
            return count - 1
        }
    }

    /// Counts one out.
    func leave() { count.withLock { $0 -= 1 } }
}
