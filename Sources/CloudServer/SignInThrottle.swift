import CloudModel
import Foundation

/// How many sign-in failures and registrations the cloud takes before it answers `THROTTLED` (with `retryAfter`).
public struct SignInLimits: Sendable, Equatable {
    /// Failed sign-ins of one account name per window; past it even the right password waits for the window's end.
    public var failuresPerAccount: Int
    /// Failed sign-ins from one client address per window, whatever the account.
    public var failuresPerAddress: Int
    /// The window of both failure budgets, in seconds.
    public var failureWindow: TimeInterval
    /// Account registrations one client address may attempt per registration window.
    public var registrationsPerAddress: Int
    /// The registration window, in seconds.
    public var registrationWindow: TimeInterval
    /// Keys (account names, addresses) each budget remembers; past it the oldest windows are forgotten first.
    public var maxTrackedKeys: Int

    /// Limits; the defaults are the documented ones.
    public init(
        failuresPerAccount: Int = 10, failuresPerAddress: Int = 30, failureWindow: TimeInterval = 60,
        registrationsPerAddress: Int = 20, registrationWindow: TimeInterval = 3600, maxTrackedKeys: Int = 50_000
    ) {
        self.failuresPerAccount = failuresPerAccount
        self.failuresPerAddress = failuresPerAddress
        self.failureWindow = failureWindow
        self.registrationsPerAddress = registrationsPerAddress
        self.registrationWindow = registrationWindow
        self.maxTrackedKeys = maxTrackedKeys
    }
}

/// The sign-in and registration budgets of a cloud, in each instance's memory.
///
/// A sign-in is counted as a failure before its password is checked and handed back when it succeeds, so
/// concurrent guesses cannot slip past the limit while their hashes run. On a cloud of several instances each count
/// and hand-back is also sent to the other instances (`share`), which `apply` it: the budgets hold across instances,
/// short only of the attempts in flight on several instances in the same few milliseconds.
final class SignInThrottle: Sendable {
    let accounts: AttemptBudget
    let addresses: AttemptBudget
    let registrations: AttemptBudget
    private let sink = ThrottleEventSink()

    init(_ limits: SignInLimits) {
        accounts = AttemptBudget(limit: limits.failuresPerAccount, window: limits.failureWindow, capacity: limits.maxTrackedKeys)
        addresses = AttemptBudget(limit: limits.failuresPerAddress, window: limits.failureWindow, capacity: limits.maxTrackedKeys)
        registrations = AttemptBudget(
            limit: limits.registrationsPerAddress, window: limits.registrationWindow, capacity: limits.maxTrackedKeys)
    }

    /// Counts a sign-in attempt against both budgets, or throws `THROTTLED` (counting nothing) when either is spent.
    func beginSignIn(account: String, address: String, now: ContinuousClock.Instant = .now) throws {
        if let wait = accounts.wait(account, now: now) {
            throw Self.throttled("too many failed sign-ins for this account", wait)
        }
        if let wait = addresses.wait(address, now: now) {
            throw Self.throttled("too many failed sign-ins from your address", wait)
        }
        accounts.take(account, now: now)
        addresses.take(address, now: now)
        sink.send(.signInBegan(account: account, address: address))
    }

    /// Hands back the attempt `beginSignIn` counted: the password was right.
    func signInSucceeded(account: String, address: String) {
        accounts.giveBack(account)
        addresses.giveBack(address)
        sink.send(.signInSucceeded(account: account, address: address))
    }

    /// Counts a registration attempt from `address`, or throws `THROTTLED`.
    func beginRegistration(address: String, now: ContinuousClock.Instant = .now) throws {
        if let wait = registrations.wait(address, now: now) {
            throw Self.throttled("too many accounts registered from your address", wait)
        }
        registrations.take(address, now: now)
        sink.send(.registration(address: address))
    }

    /// From now on every count and hand-back of this throttle is also given to `share` (for the other instances).
    func share(with share: @escaping @Sendable (ThrottleEvent) -> Void) { sink.set(share) }

    /// Counts what another instance counted (never sent on again).
    func apply(_ event: ThrottleEvent, now: ContinuousClock.Instant = .now) {
        switch event {
        case .signInBegan(let account, let address):
            accounts.take(account, now: now)
            addresses.take(address, now: now)
        case .signInSucceeded(let account, let address):
            accounts.giveBack(account)
            addresses.giveBack(address)
        case .registration(let address):
            registrations.take(address, now: now)
        }
    }

    private static func throttled(_ what: String, _ wait: Double) -> ServerError {
        let seconds = (wait * 1000).rounded(.up) / 1000
        return ServerError(.throttled, "\(what); retry after \(Int(seconds.rounded(.up))) s", retryAfter: seconds)
    }
}

/// Where a throttle sends its events, once told.
private final class ThrottleEventSink: @unchecked Sendable {
    private let lock = NSLock()
    private var target: (@Sendable (ThrottleEvent) -> Void)?

    func set(_ target: @escaping @Sendable (ThrottleEvent) -> Void) { lock.withLock { self.target = target } }

    func send(_ event: ThrottleEvent) { lock.withLock { target }?(event) }
}

/// At most `limit` events per key in a fixed window that starts at the key's first event; bounded in keys.
final class AttemptBudget: @unchecked Sendable {
    private struct Window {
        var start: ContinuousClock.Instant
        var count: Int
    }

    private let limit: Int
    private let window: Duration
    private let capacity: Int
    private let lock = NSLock()
    private var windows: [String: Window] = [:]

    /// A budget of `limit` events per `window` seconds for each of at most `capacity` keys.
    init(limit: Int, window: TimeInterval, capacity: Int) {
        self.limit = max(1, limit)
        self.window = .milliseconds(Int64(max(0.001, window) * 1000))
        self.capacity = max(1, capacity)
    }

    /// Seconds until `key` may act again; nil when it may now.
    func wait(_ key: String, now: ContinuousClock.Instant = .now) -> Double? {
        lock.withLock {
            guard let current = windows[key], now - current.start < window, current.count >= limit else { return nil }
            let left = current.start + window - now
            return max(0.001, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }

    /// Counts one event of `key`.
    func take(_ key: String, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            if var current = windows[key], now - current.start < window {
                current.count += 1
                windows[key] = current
            } else {
                windows[key] = Window(start: now, count: 1)
                if windows.count > capacity { evict(now: now) }
            }
        }
    }

    /// Uncounts one event of `key` (an attempt that turned out fine).
    func giveBack(_ key: String) {
        lock.withLock {
            guard var current = windows[key] else { return }
            current.count -= 1
            windows[key] = current.count > 0 ? current : nil
        }
    }

    /// How many keys are remembered.
    var trackedKeys: Int { lock.withLock { windows.count } }

    /// Forgets ended windows, then (a flood of fresh keys) the oldest ones, down to three quarters of the capacity
    /// so the next evictions are far apart.
    private func evict(now: ContinuousClock.Instant) {
        windows = windows.filter { now - $0.value.start < window }
        let target = capacity * 3 / 4
        guard windows.count > target else { return }
        let oldest = windows.sorted { $0.value.start < $1.value.start }.prefix(windows.count - target)
        for (key, _) in oldest { windows.removeValue(forKey: key) }
    }
}
