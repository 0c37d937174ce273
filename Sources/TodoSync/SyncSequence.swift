import CloudModel

/// Why a sync runs.
public enum SyncReason: Sendable, Hashable {
    /// The device launched.
    case launch
    /// A push arrived (for a scope, when it said).
    case push(DatabaseScope?)
    /// The user asked.
    case manualRefresh
    /// The network came back.
    case networkBack
    /// A local edit waits to be sent.
    case localEdit
    /// The public-board poll timer fired.
    case publicPollTimer

    /// Whether this reason runs the whole launch sequence (account, zone, subscriptions, both databases' changes).
    ///
    /// A push does not: as in CloudKit's own flow it fetches the database it names only, without an account check.
    var runsFullSequence: Bool {
        switch self {
        case .launch, .manualRefresh, .networkBack: true
        case .push, .localEdit, .publicPollTimer: false
        }
    }

    /// The databases a push asks to fetch: the one it names, or both when it names none.
    var pushedScopes: [DatabaseScope] {
        guard case .push(let scope) = self else { return [] }
        return scope.map { [$0] } ?? [.private, .shared]
    }

    /// Whether this reason polls the public board even if the poll is not due.
    var pollsPublicBoard: Bool {
        switch self {
        case .launch, .manualRefresh, .networkBack, .publicPollTimer: true
        case .push, .localEdit: false
        }
    }
}

/// The cached flags the launch sequence consults.
public struct LaunchFlags: Sendable, Hashable {
    public var createdCustomZone: Bool
    public var subscribedToPrivateChanges: Bool
    public var subscribedToSharedChanges: Bool

    /// Flags as the cache remembers them.
    public init(createdCustomZone: Bool, subscribedToPrivateChanges: Bool, subscribedToSharedChanges: Bool) {
        self.createdCustomZone = createdCustomZone
        self.subscribedToPrivateChanges = subscribedToPrivateChanges
        self.subscribedToSharedChanges = subscribedToSharedChanges
    }
}

/// The launch sequence of docs/ARCHITECTURE.md, "The sync workflow" as a pure state machine: it says which step comes next; the engine performs it.
public struct SyncSequence: Sendable, Hashable {
    /// One step of a sync pass.
    public enum Step: Sendable, Hashable {
        /// Ask who the user is (`users/caller`); wipe the cache if the user changed.
        case checkAccount
        /// Create the `Todos` zone.
        case createZone
        /// Save the database subscriptions not yet saved.
        case saveSubscriptions(private: Bool, shared: Bool)
        /// `changes/database` for a scope, then `changes/zone` for the zones it named.
        case fetchChanges(DatabaseScope)
        /// Send the outbox.
        case sendOutbox
        /// Query the public board for records modified since the last poll.
        case pollPublicBoard
    }

    private var steps: [Step]
    private var flags: LaunchFlags

    /// The steps for the given reasons, skipping what the flags say is done; `accountCheckDue` adds the account check
    /// to any pass (after an authentication error).
    public init(reasons: Set<SyncReason>, flags: LaunchFlags, signedIn: Bool, publicPollDue: Bool, accountCheckDue: Bool = false) {
        self.flags = flags
        let full = reasons.contains { $0.runsFullSequence }
        let pushed = Set(reasons.flatMap(\.pushedScopes))
        let fetched: [DatabaseScope] = full ? [.private, .shared] : [.private, .shared].filter { pushed.contains($0) }
        var steps: [Step] = []
        if full || accountCheckDue { steps.append(.checkAccount) }
        if signedIn {
            // A pass that only sends skips the set-up, unless this device never made the zone: sending into a zone
            // that is not there fails a whole round, then every record is queued again and sent again (a fresh
            // account's first `todo import` sent each of its first 800 todos twice).
            if !fetched.isEmpty || !flags.createdCustomZone { steps += Self.setupSteps(flags) }
            steps += fetched.map { .fetchChanges($0) }
            steps.append(.sendOutbox)
        }
        if publicPollDue || reasons.contains(where: { $0.pollsPublicBoard }) { steps.append(.pollPublicBoard) }
        self.steps = steps
    }

    private static func setupSteps(_ flags: LaunchFlags) -> [Step] {
        var steps: [Step] = []
        if !flags.createdCustomZone { steps.append(.createZone) }
        if !flags.subscribedToPrivateChanges || !flags.subscribedToSharedChanges {
            steps.append(.saveSubscriptions(private: !flags.subscribedToPrivateChanges, shared: !flags.subscribedToSharedChanges))
        }
        return steps
    }

    /// The next step to perform, nil when the pass is over.
    public mutating func next() -> Step? {
        steps.isEmpty ? nil : steps.removeFirst()
    }

    /// The steps still to come.
    public var remaining: [Step] { steps }

    /// The account check found no signed-in user: private and shared steps are dropped, the public poll stays.
    public mutating func accountUnavailable() {
        steps.removeAll { step in
            switch step {
            case .pollPublicBoard: false
            default: true
            }
        }
    }

    /// A step finished and set a flag.
    public mutating func completed(_ step: Step) {
        switch step {
        case .createZone: flags.createdCustomZone = true
        case .saveSubscriptions(let p, let s):
            if p { flags.subscribedToPrivateChanges = true }
            if s { flags.subscribedToSharedChanges = true }
        default: break
        }
    }

    /// The zone is gone on the server: recreate it and the subscriptions next, then send again.
    public mutating func zoneMissing() {
        flags = LaunchFlags(createdCustomZone: false, subscribedToPrivateChanges: false, subscribedToSharedChanges: false)
        var redo = Self.setupSteps(flags)
        if !steps.contains(.sendOutbox) { redo.append(.sendOutbox) }
        steps.insert(contentsOf: redo, at: 0)
    }

    /// The network is gone: nothing more this pass.
    public mutating func abandon() { steps.removeAll() }
}
