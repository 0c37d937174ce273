import CloudModel
import Foundation
import Synchronization

/// How many sign-in failures and registrations the cloud takes before it answers `THROTTLED` (with `retryAfter`).
public struct SignInLimits: Sendable, Equatable {
    /// Failed sign-ins of one account name per window from every address together; past it an address that has
    /// failed on that account in the window waits for the window's end, while one that has not (the owner, elsewhere)
    /// may still try.
    public var failuresPerAccount: Int
    /// Failed sign-ins from one client address per window, whatever the account.
    public var failuresPerAddress: Int
    /// Failed sign-ins of one account name from one client address per window; past it that address waits, even
    /// with the right password, while the account's owner signs in from any other.
    public var failuresPerAddressAndAccount: Int
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
        registrationsPerAddress: Int = 20, registrationWindow: TimeInterval = 3600, maxTrackedKeys: Int = 50_000,
        failuresPerAddressAndAccount: Int = 10
    ) {
        self.failuresPerAccount = failuresPerAccount
        self.failuresPerAddress = failuresPerAddress
        self.failuresPerAddressAndAccount = failuresPerAddressAndAccount
        self.failureWindow = failureWindow
        self.registrationsPerAddress = registrationsPerAddress
        self.registrationWindow = registrationWindow
        self.maxTrackedKeys = maxTrackedKeys
    }
}

/// The sign-in and registration budgets of a cloud, in each instance's memory.
///
/// A guesser is throttled by its address (all accounts together) and by its address and the account together; the
/// account's own budget only stops addresses that have already failed on it. So nobody can lock an owner out by
/// guessing from elsewhere: the right password from an address with no failures on that account is always checked.
///
/// A sign-in is counted as a failure before its password is checked and handed back when it succeeds, so
/// concurrent guesses cannot slip past the limit while their hashes run. On a cloud of several instances each count
/// and hand-back is also sent to the other instances (`share`), which `apply` it: the budgets hold across instances,
/// short only of the attempts in flight on several instances in the same few milliseconds.
final class SignInThrottle: Sendable {
    let accounts: AttemptBudget
    let addresses: AttemptBudget
    let pairs: AttemptBudget
    let registrations: AttemptBudget
    private let sink = ThrottleEventSink()

    init(_ limits: SignInLimits) {
        accounts = AttemptBudget(limit: limits.failuresPerAccount, window: limits.failureWindow, capacity: limits.maxTrackedKeys)
        addresses = AttemptBudget(limit: limits.failuresPerAddress, window: limits.failureWindow, capacity: limits.maxTrackedKeys)
        pairs = AttemptBudget(
            limit: limits.failuresPerAddressAndAccount, window: limits.failureWindow, capacity: limits.maxTrackedKeys)
        registrations = AttemptBudget(
            limit: limits.registrationsPerAddress, window: limits.registrationWindow, capacity: limits.maxTrackedKeys)
    }

    /// Counts a sign-in attempt against the budgets, or throws `THROTTLED` (counting nothing) when one is spent.
    func beginSignIn(account: String, address: String, now: ContinuousClock.Instant = .now) throws {
        let pair = Self.pairKey(account: account, address: address)
        if let wait = pairs.wait(pair, now: now) {
            throw Self.throttled("too many failed sign-ins for this account from your address", wait)
        }
        if let wait = addresses.wait(address, now: now) {
            throw Self.throttled("too many failed sign-ins from your address", wait)
        }
        if pairs.used(pair, now: now) > 0, let wait = accounts.wait(account, now: now) {
            throw Self.throttled("too many failed sign-ins for this account", wait)
        }
        take(account: account, address: address, now: now)
        sink.send(.signInBegan(account: account, address: address))
    }

    /// Hands back the attempt `beginSignIn` counted: the password was right.
    func signInSucceeded(account: String, address: String) {
        giveBack(account: account, address: address)
        sink.send(.signInSucceeded(account: account, address: address))
    }

    private func take(account: String, address: String, now: ContinuousClock.Instant) {
        accounts.take(account, now: now)
        addresses.take(address, now: now)
        pairs.take(Self.pairKey(account: account, address: address), now: now)
    }

    private func giveBack(account: String, address: String) {
        accounts.giveBack(account)
        addresses.giveBack(address)
        pairs.giveBack(Self.pairKey(account: account, address: address))
    }

    /// The key of an account and an address together (a NUL after the address, which never holds one).
    private static func pairKey(account: String, address: String) -> String { "\(address)\u{0}\(account)" }

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
            take(account: account, address: address, now: now)
        case .signInSucceeded(let account, let address):
            giveBack(account: account, address: address)
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
private final class ThrottleEventSink: Sendable {
    private let target = Mutex<(@Sendable (ThrottleEvent) -> Void)?>(nil)

    func set(_ target: @escaping @Sendable (ThrottleEvent) -> Void) { self.target.withLock { $0 = target } }

    func send(_ event: ThrottleEvent) { target.withLock { $0 }?(event) }
}

/// At most `limit` events per key in a fixed window that starts at the key's first event; bounded in keys.
final class AttemptBudget: Sendable {
    private struct Window {
        var start: ContinuousClock.Instant
        var count: Int
    }

    private let limit: Int
    private let window: Duration
    private let capacity: Int
    private let windows = Mutex<[String: Window]>([:])

    /// A budget of `limit` events per `window` seconds for each of at most `capacity` keys.
    init(limit: Int, window: TimeInterval, capacity: Int) {
        self.limit = max(1, limit)
        self.window = .milliseconds(Int64(max(0.001, window) * 1000))
        self.capacity = max(1, capacity)
    }

    /// Seconds until `key` may act again; nil when it may now.
    func wait(_ key: String, now: ContinuousClock.Instant = .now) -> Double? {
        windows.withLock { windows in
            guard let current = windows[key], now - current.start < window, current.count >= limit else { return nil }
            let left = current.start + window - now
            return max(0.001, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }

    /// Events of `key` counted in its current window.
    func used(_ key: String, now: ContinuousClock.Instant = .now) -> Int {
        windows.withLock { windows in
            guard let current = windows[key], now - current.start < window else { return 0 }
            return current.count
        }
    }

    /// Counts one event of `key`.
    func take(_ key: String, now: ContinuousClock.Instant = .now) {
        windows.withLock { windows in
            if var current = windows[key], now - current.start < window {
                current.count += 1
                windows[key] = current
            } else {
                windows[key] = Window(start: now, count: 1)
                if windows.count > capacity { evict(&windows, now: now) }
            }
        }
    }

    /// Uncounts one event of `key` (an attempt that turned out fine).
    func giveBack(_ key: String) {
        windows.withLock { windows in
            guard var current = windows[key] else { return }
            current.count -= 1
            windows[key] = current.count > 0 ? current : nil
        }
    }

    /// How many keys are remembered.
    var trackedKeys: Int { windows.withLock { $0.count } }

    /// Forgets ended windows, then (a flood of fresh keys) the oldest ones, down to three quarters of the capacity
    /// so the next evictions are far apart.
    private func evict(_ windows: inout [String: Window], now: ContinuousClock.Instant) {
        windows = windows.filter { now - $0.value.start < window }
        let target = capacity * 3 / 4
        guard windows.count > target else { return }
        let oldest = windows.sorted { $0.value.start < $1.value.start }.prefix(windows.count - target)
        for (key, _) in oldest { windows.removeValue(forKey: key) }
    }
}
