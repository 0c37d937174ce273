import Foundation

/// How much each thing about a todo adds to its urgency, Taskwarrior's coefficients by default (`urgency.*.coefficient`
/// of Taskwarrior 2.6), each overridable in config.toml's `[urgency]` table under the names of `keys`.
public struct UrgencyCoefficients: Sendable, Hashable {
    /// Due: times 0.2 (due in two weeks or more) rising to 1.0 (a week overdue).
    public var due = 12.0
    /// Priority 3 (high).
    public var priorityHigh = 6.0
    /// Priority 2 (medium).
    public var priorityMedium = 3.9
    /// Priority 1 (low).
    public var priorityLow = 1.8
    /// The `next` tag.
    public var nextTag = 15.0
    /// Active (started).
    public var active = 4.0
    /// Scheduled, once the scheduled day has come.
    public var scheduled = 5.0
    /// Age: times the age over `ageMaximumDays`, at most 1.
    public var age = 2.0
    /// The age at which the age term is whole, in days.
    public var ageMaximumDays = 365.0
    /// Annotations: times 0.8 for one, 0.9 for two, 1.0 for three or more.
    public var annotations = 1.0
    /// Tags: times 0.8 for one, 0.9 for two, 1.0 for three or more.
    public var tags = 1.0
    /// In a list (Taskwarrior's project).
    public var list = 1.0
    /// Blocking another open todo.
    public var blocking = 8.0
    /// Blocked by an open todo.
    public var blocked = -5.0
    /// Waiting (hidden until its wait date).
    public var waiting = -3.0

    /// Taskwarrior's coefficients.
    public init() {}

    /// The names config.toml's `[urgency]` takes, in the order the docs list them.
    public static let names = [
        "due", "priority-high", "priority-medium", "priority-low", "next-tag", "active", "scheduled", "age", "age-max-days", "annotations",
        "tags", "list", "blocking", "blocked", "waiting",
    ]

    /// The coefficient called `name` in config.toml (nil for an unknown name).
    public subscript(name name: String) -> Double? {
        get {
            switch name {
            case "due": due
            case "priority-high": priorityHigh
            case "priority-medium": priorityMedium
            case "priority-low": priorityLow
            case "next-tag": nextTag
            case "active": active
            case "scheduled": scheduled
            case "age": age
            case "age-max-days": ageMaximumDays
            case "annotations": annotations
            case "tags": tags
            case "list": list
            case "blocking": blocking
            case "blocked": blocked
            case "waiting": waiting
            default: nil
            }
        }
        set {
            guard let value = newValue else { return }
            switch name {
            case "due": due = value
            case "priority-high": priorityHigh = value
            case "priority-medium": priorityMedium = value
            case "priority-low": priorityLow = value
            case "next-tag": nextTag = value
            case "active": active = value
            case "scheduled": scheduled = value
            case "age": age = value
            case "age-max-days": ageMaximumDays = value
            case "annotations": annotations = value
            case "tags": tags = value
            case "list": list = value
            case "blocking": blocking = value
            case "blocked": blocked = value
            case "waiting": waiting = value
            default: break
            }
        }
    }

    /// Taskwarrior's coefficients with `overrides` (name → value) in place; an unknown name, or a value that is not a
    /// finite number within ±1000 (or an `age-max-days` not above 0), is refused with the reason.
    public init(overrides: [String: Double]) throws(UrgencyError) {
        self.init()
        for (name, value) in overrides {
            guard self[name: name] != nil else {
                throw UrgencyError(problem: "an unknown coefficient '\(name)' (known: \(Self.names.joined(separator: ", ")))")
            }
            guard value.isFinite, abs(value) <= 1000 else { throw UrgencyError(problem: "'\(name)' must be a number from -1000 to 1000") }
            guard name != "age-max-days" || value > 0 else { throw UrgencyError(problem: "'age-max-days' must be above 0") }
            self[name: name] = value
        }
    }
}

/// An `[urgency]` setting that cannot be used.
public struct UrgencyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in words.
    public var problem: String
    public var description: String { problem }
}

/// What urgency is computed from: the facts of one open todo at one moment.
public struct UrgencyFacts: Sendable, Hashable {
    /// The due date, if any.
    public var due: DueDate?
    /// 0 (none) to 3 (high).
    public var priority: Int
    /// The todo's tags.
    public var tags: [String]
    /// How many annotations it has.
    public var annotationCount: Int
    /// When it was made, if known.
    public var created: Date?
    /// Whether it is in a list.
    public var inList: Bool
    /// Whether it is started.
    public var isActive: Bool
    /// When it is scheduled, if it is.
    public var scheduled: Date?
    /// Whether an open todo waits on it.
    public var isBlocking: Bool
    /// Whether it waits on an open todo.
    public var isBlocked: Bool
    /// Whether it is hidden until a later wait date.
    public var isWaiting: Bool

    /// The facts of a todo; what is not given is absent.
    public init(
        due: DueDate? = nil, priority: Int = 0, tags: [String] = [], annotationCount: Int = 0, created: Date? = nil, inList: Bool = false,
        isActive: Bool = false, scheduled: Date? = nil, isBlocking: Bool = false, isBlocked: Bool = false, isWaiting: Bool = false
    ) {
        self.due = due
        self.priority = priority
        self.tags = tags
        self.annotationCount = annotationCount
        self.created = created
        self.inList = inList
        self.isActive = isActive
        self.scheduled = scheduled
        self.isBlocking = isBlocking
        self.isBlocked = isBlocked
        self.isWaiting = isWaiting
    }
}

/// Taskwarrior's urgency: a sum of terms, each a coefficient times a factor from 0 to 1.
public struct Urgency: Sendable {
    /// The coefficients used.
    public var coefficients: UrgencyCoefficients
    /// The moment urgency is computed at.
    public var now: Date
    /// The calendar (zone) an all-day due date begins in.
    public var calendar: Calendar

    /// Urgency with `coefficients` at `now`, reading all-day dates in `calendar`'s zone.
    public init(coefficients: UrgencyCoefficients = UrgencyCoefficients(), now: Date, calendar: Calendar) {
        self.coefficients = coefficients
        self.now = now
        self.calendar = calendar
    }

    /// The urgency of a todo with these facts.
    public func score(_ facts: UrgencyFacts) -> Double {
        let c = coefficients
        var sum = 0.0
        if let due = facts.due { sum += c.due * Self.dueFactor(daysOverdue: (now.timeIntervalSince1970 - dayStart(due)) / 86_400) }
        switch facts.priority {
        case 3...: sum += c.priorityHigh
        case 2: sum += c.priorityMedium
        case 1: sum += c.priorityLow
        default: break
        }
        if facts.tags.contains("next") { sum += c.nextTag }
        sum += c.tags * Self.countFactor(facts.tags.count)
        sum += c.annotations * Self.countFactor(facts.annotationCount)
        if let created = facts.created {
            sum += c.age * min(1, max(0, now.timeIntervalSince(created) / 86_400 / c.ageMaximumDays))
        }
        if facts.inList { sum += c.list }
        if facts.isActive { sum += c.active }
        if let scheduled = facts.scheduled, scheduled <= now { sum += c.scheduled }
        if facts.isBlocking { sum += c.blocking }
        if facts.isBlocked { sum += c.blocked }
        if facts.isWaiting { sum += c.waiting }
        return sum
    }

    /// When `due` begins in the calendar's zone, in seconds since 1970: an all-day date is stored as 00:00 UTC of its
    /// day, so its start here is that less the zone's offset (one offset look-up, where `DueDate.start(in:)` takes
    /// three calendar computations: over 100,000 todos the difference between 0.4 s and a few milliseconds).
    func dayStart(_ due: DueDate) -> Double {
        let seconds = due.date.timeIntervalSince1970
        guard due.allDay, seconds.isFinite else { return seconds }
        return seconds - Double(calendar.timeZone.secondsFromGMT(for: due.date))
    }

    /// Taskwarrior's due factor: 1.0 from a week overdue, 0.2 from two weeks ahead, a straight line between.
    static func dueFactor(daysOverdue: Double) -> Double {
        if daysOverdue >= 7 { return 1 }
        if daysOverdue >= -14 { return (daysOverdue + 14) * 0.8 / 21 + 0.2 }
        return 0.2
    }

    /// Taskwarrior's factor for tags and annotations: none 0, one 0.8, two 0.9, more 1.
    static func countFactor(_ count: Int) -> Double {
        switch count {
        case 0: 0
        case 1: 0.8
        case 2: 0.9
        default: 1
        }
    }

    /// `value` as `todo next` shows it: two decimals ("12.34").
    public static func text(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let whole = abs(hundredths) / 100
        let rest = abs(hundredths) % 100
        return "\(sign)\(whole).\(rest < 10 ? "0" : "")\(rest)"
    }
}
