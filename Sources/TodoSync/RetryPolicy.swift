import CloudClient

/// What the sync engine does about a cloud error (docs/ARCHITECTURE.md, "The sync workflow").
public enum ErrorResponse: Sendable, Hashable {
    /// Wait this many seconds, then retry the same operation.
    case retry(after: Double)
    /// Keep working offline; probe reachability and resume when back.
    case goOffline
    /// Merge against the server copy and resend with its change tag.
    case mergeAndResend
    /// Drop the change token and fetch the zone from scratch.
    case refetchFromScratch
    /// Recreate zone and subscriptions, then re-upload the local data.
    case recreateZone
    /// The record is gone on the server: re-create it from the local copy.
    case reupload
    /// Stop syncing private and shared data; the user must sign in.
    case signedOut
    /// Tell the user, keep the local edit, do not retry in a loop.
    case fatal(String)
}

/// Jittered exponential backoff that honours `retryAfter`; a pure value, so tests need no clock.
public struct RetryPolicy: Sendable, Hashable {
    /// The first wait when the server gave no `retryAfter`.
    public var baseDelay: Double
    /// The longest wait.
    public var maximumDelay: Double
    /// How many retries of one operation before giving up.
    public var maximumAttempts: Int
    /// Spread of the random factor: a delay `d` becomes `d * (1 - jitter + 2 * jitter * random)`.
    public var jitter: Double

    /// A policy; defaults wait 0.5 s, 1 s, 2 s … up to 60 s, five retries, ±20 %.
    public init(baseDelay: Double = 0.5, maximumDelay: Double = 60, maximumAttempts: Int = 5, jitter: Double = 0.2) {
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
        self.jitter = jitter
    }

    /// How the engine answers an error on the `attempt`-th retry (0 first), with `random` in 0..<1 for the jitter.
    public func response(to error: CloudError, attempt: Int, random: Double) -> ErrorResponse {
        switch error.code {
        case .requestRateLimited, .zoneBusy, .serviceUnavailable, .internalError, .batchRequestFailed:
            guard attempt < maximumAttempts else {
                return .fatal("the cloud is busy; gave up after \(attempt + 1) tries (\(error.reason))")
            }
            return .retry(after: delay(attempt: attempt, retryAfter: error.retryAfter, random: random))
        case .networkUnavailable: return .goOffline
        case .serverRecordChanged: return .mergeAndResend
        case .changeTokenExpired: return .refetchFromScratch
        case .zoneNotFound, .userDeletedZone: return .recreateZone
        case .unknownItem: return .reupload
        case .notAuthenticated: return .signedOut
        case .permissionFailure: return .fatal("not allowed: \(error.reason)")
        case .quotaExceeded: return .fatal("your cloud storage is full: \(error.reason)")
        case .limitExceeded: return .fatal("too large for the cloud: \(error.reason)")
        case .badRequest, .invalidResponse, .referenceViolation, .partialFailure:
            return .fatal("the cloud refused the change: \(error.reason)")
        }
    }

    /// The longest wait the engine ever takes, whatever the cloud asks for: `retryAfter` is untrusted input (a huge,
    /// infinite or NaN value must neither trap the clock nor park the device for years).
    public var longestWait: Double { max(0, maximumDelay.isFinite ? maximumDelay * 10 : 600) }

    /// The wait before retry number `attempt`: the server's `retryAfter` when given, else jittered exponential backoff;
    /// always finite and within `0...longestWait`.
    public func delay(attempt: Int, retryAfter: Double?, random: Double) -> Double {
        if let retryAfter, retryAfter.isFinite || retryAfter == .infinity, retryAfter >= 0 {
            return Self.clamp(retryAfter, to: longestWait)
        }
        let base = baseDelay.isFinite ? max(0, baseDelay) : 0.5
        let exponential = min(maximumDelay, base * Double(1 << min(max(attempt, 0), 30)))
        let spread = random.isFinite ? min(max(random, 0), 1) : 0.5
        let factor = 1 - jitter + 2 * jitter * spread
        return Self.clamp(min(maximumDelay, exponential * factor), to: longestWait)
    }

    /// `seconds` within `0...limit`; NaN becomes 0.
    static func clamp(_ seconds: Double, to limit: Double) -> Double {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), limit)
    }
}
