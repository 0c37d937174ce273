import Foundation

/// What a filter says about the stored columns of the todos it keeps: necessary conditions only, so a store that
/// reads just the rows passing them reads every todo the filter keeps (and some it does not: the filter itself still
/// decides each row). Text words, `-tag`, lists, projects and dependencies say nothing here.
public struct FilterHints: Sendable, Equatable {
    /// Tags a kept todo has (folded, as `foldedText` gives them).
    public var tags: [String] = []
    /// Done (`true`) or open (`false`); nil when either.
    public var completed: Bool?
    /// Ranges the stored due date (seconds since 1970) lies in, one per due term, each widened by two days for an
    /// all-day date (stored at a day's start in UTC, read in any zone); `.some(nil)`: must have none.
    public var dueRanges: [DueRange] = []
    /// The lowest and highest priority kept (0 … 3).
    public var priorities: ClosedRange<Int> = 0...3

    /// No conditions: every todo passes.
    public init() {}

    /// Whether a todo's stored due date must be absent, present, or lie between two moments (inclusive).
    public enum DueRange: Sendable, Equatable {
        /// No due date.
        case none
        /// A due date, anywhere.
        case any
        /// A due date from `low` to `high` (seconds since 1970, inclusive; infinities for no end).
        case between(low: Double, high: Double)
    }

    /// What a todo kept by both filters must satisfy: the conditions of each.
    public func merged(with other: FilterHints) -> FilterHints {
        var both = self
        both.tags += other.tags
        both.dueRanges += other.dueRanges
        // Contradicting each other, they keep nothing: either side's condition is still a necessary one.
        if both.completed == nil { both.completed = other.completed }
        if priorities.overlaps(other.priorities) {
            both.priorities = max(priorities.lowerBound, other.priorities.lowerBound)...min(priorities.upperBound, other.priorities.upperBound)
        }
        return both
    }
}

extension TodoFilter {
    /// What the stored columns of every todo this filter keeps must satisfy (see `FilterHints`).
    public var hints: FilterHints {
        var hints = FilterHints()
        hints.tags = checks.withTags.map(\.folded)
        if checks.mustBeDone != checks.mustBeOpen { hints.completed = checks.mustBeDone }
        // Both asked: nothing passes; left to the filter, which keeps nothing.
        for test in checks.dues {
            switch test {
            case .none: hints.dueRanges.append(.none)
            case .any: hints.dueRanges.append(.any)
            case .within(let timed, let allDay):
                // An all-day date is stored within a day of the moment compared; two days either side is safe.
                let slack = 2 * 86_400.0
                let reference = Date.timeIntervalBetween1970AndReferenceDate
                let low = min(timed.low, allDay.low - slack) + reference
                let high = max(timed.high, allDay.high + slack) + reference
                hints.dueRanges.append(.between(low: low, high: high))
            }
        }
        for test in checks.priorities {
            let kept: ClosedRange<Int>? =
                switch test {
                case .exactly(let wanted): (0...3).contains(wanted) ? wanted...wanted : nil
                case .atLeast(let wanted): wanted <= 3 ? max(0, wanted)...3 : nil
                case .atMost(let wanted): wanted >= 0 ? 0...min(3, wanted) : nil
                }
            guard let kept, kept.overlaps(hints.priorities) else {
                hints.priorities = 0...3  // nothing passes: left to the filter
                continue
            }
            hints.priorities = max(kept.lowerBound, hints.priorities.lowerBound)...min(kept.upperBound, hints.priorities.upperBound)
        }
        return hints
    }
}
