import CloudModel
import Foundation

/// A compiled filter, as typed after the app's `/` or given to `todo list FILTER...`: every term must hold.
///
/// Dates (`today`, `eow`, `due:overdue`) are resolved when it is parsed: parse it again when the day changes.
public struct TodoFilter: Sendable, Equatable {
    /// The words and phrases the title, notes or an annotation must contain, in the order given.
    let needles: [Needle]
    /// The terms on other fields (tags, list, due date, priority, state), gathered for a fast check.
    let checks: FieldChecks
    /// Each term's canonical text, in the order given.
    let parts: [String]

    /// The text words as lowercased (NFC) UTF-8 needles, for the app's own text index.
    public let textNeedles: [[UInt8]]

    init(needles: [Needle], checks: FieldChecks, parts: [String]) {
        self.needles = needles
        self.checks = checks
        self.parts = parts
        self.textNeedles = needles.map(\.bytes)
    }

    /// The filter that keeps every todo.
    public static let all = TodoFilter(needles: [], checks: FieldChecks(), parts: [])

    /// Whether it has no terms (keeps every todo).
    public var isEmpty: Bool { parts.isEmpty }

    /// The filter as canonical text (`+garden due.before:eow pri:2+`), for saved filters and the status line.
    public var summary: String { parts.joinedText(" ") }

    /// Whether one of its terms is `term` as the summary writes it (`is:done`, `is:waiting`): a quoted text that
    /// holds those words is not that term.
    public func hasTerm(_ term: String) -> Bool { parts.contains(term) }

    /// Whether `item` passes every term.
    public func matches(_ item: some Filterable) -> Bool {
        guard checks.matches(item) else { return false }
        guard !needles.isEmpty else { return true }
        let title = item.title
        let notes = item.notes
        let annotations = item.annotationTexts
        for index in needles.indices where !needles[index].found(in: title) && !needles[index].found(in: notes) {
            // Taskwarrior's words search the annotations too.
            guard annotations.contains(where: { needles[index].found(in: $0) }) else { return false }
        }
        return true
    }

    /// Whether `item` passes every term that is not a text word (the app checks `textNeedles` with its own index).
    public func matchesFields(_ item: some Filterable) -> Bool {
        checks.matches(item)
    }
}

/// One term on a field other than the text, as parsed.
enum FieldTerm: Sendable, Equatable {
    /// Has (`true`) or lacks (`false`) the tag.
    case tag(FoldedName, Bool)
    /// In the list with that name; nil: in no list.
    case list(FoldedName?)
    /// The due date passes the test.
    case due(DueTest)
    /// The priority passes the test.
    case priority(PriorityTest)
    /// Done (`true`) or open (`false`).
    case completed(Bool)
    /// Repeats.
    case repeating
    /// Open and past its deadline (the test).
    case overdueOpen(DueTest)
    /// Has at least one tag.
    case tagged
    /// The wait, scheduled or until moment passes the test.
    case moment(MomentTest)
    /// Hidden until a wait date after this moment (seconds since the reference date).
    case waiting(Double)
    /// Has a scheduled date.
    case scheduled
    /// Started (`start` set).
    case active
    /// Waits on an open todo (`true`), or an open todo waits on it (`false`).
    case blocked(Bool)
    /// In the project (list path) or one below it; nil: in no list.
    case project(FoldedName?)
}

/// A test of one of the other dates, each held as a moment (compared as a timed due date would be).
struct MomentTest: Sendable, Equatable {
    /// Which date.
    enum Field: String, Sendable { case wait, scheduled, until }
    var field: Field
    var test: DueTest

    /// Whether `item`'s date passes.
    func matches(_ item: some Filterable) -> Bool {
        let moment: Date? =
            switch field {
            case .wait: item.wait
            case .scheduled: item.scheduled
            case .until: item.until
            }
        return test.matches(moment.map { DueDate($0, allDay: false) })
    }
}

/// Every field term of a filter, grouped so that a todo is checked cheapest first and without copying terms.
struct FieldChecks: Sendable, Equatable {
    /// `is:done`.
    var mustBeDone = false
    /// `is:open` (or `is:overdue`).
    var mustBeOpen = false
    /// `is:repeating`.
    var mustRepeat = false
    /// `is:tagged`.
    var mustBeTagged = false
    /// `pri:` tests.
    var priorities: [PriorityTest] = []
    /// `due...:` tests (and `is:overdue`'s).
    var dues: [DueTest] = []
    /// `list:` names; nil for `list:none`.
    var lists: [FoldedName?] = []
    /// `wait…:`, `scheduled…:` and `until…:` tests.
    var moments: [MomentTest] = []
    /// `is:waiting`: a wait date after this moment.
    var waitingAfter: Double?
    /// `is:scheduled`.
    var mustBeScheduled = false
    /// `is:active`.
    var mustBeActive = false
    /// `is:blocked`.
    var mustBeBlocked = false
    /// `is:blocking`.
    var mustBeBlocking = false
    /// `project:` paths; nil for `project:none`.
    var projects: [FoldedName?] = []
    /// `+tag` names.
    var withTags: [FoldedName] = []
    /// `-tag` names.
    var withoutTags: [FoldedName] = []

    /// Adds one term.
    mutating func add(_ term: FieldTerm) {
        switch term {
        case .tag(let name, true): withTags.append(name)
        case .tag(let name, false): withoutTags.append(name)
        case .list(let name): lists.append(name)
        case .due(let test): dues.append(test)
        case .priority(let test): priorities.append(test)
        case .completed(true): mustBeDone = true
        case .completed(false): mustBeOpen = true
        case .repeating: mustRepeat = true
        case .overdueOpen(let test):
            mustBeOpen = true
            dues.append(test)
        case .tagged: mustBeTagged = true
        case .moment(let test): moments.append(test)
        case .waiting(let moment): waitingAfter = moment
        case .scheduled: mustBeScheduled = true
        case .active: mustBeActive = true
        case .blocked(true): mustBeBlocked = true
        case .blocked(false): mustBeBlocking = true
        case .project(let path): projects.append(path)
        }
    }

    /// Whether `item` passes every check.
    func matches(_ item: some Filterable) -> Bool {
        if mustBeDone || mustBeOpen {
            let done = item.isCompleted
            if (mustBeDone && !done) || (mustBeOpen && done) { return false }
        }
        if mustRepeat && !item.isRepeating { return false }
        if let waitingAfter, !(item.wait.map { $0.timeIntervalSinceReferenceDate > waitingAfter } ?? false) { return false }
        if mustBeScheduled && item.scheduled == nil { return false }
        if mustBeActive && item.start == nil { return false }
        if mustBeBlocked && !item.isBlocked { return false }
        if mustBeBlocking && !item.isBlocking { return false }
        for index in moments.indices where !moments[index].matches(item) { return false }
        if !priorities.isEmpty {
            let priority = item.priority
            for index in priorities.indices where !priorities[index].matches(priority) { return false }
        }
        if !dues.isEmpty {
            let due = item.due
            for index in dues.indices where !dues[index].matches(due) { return false }
        }
        if !lists.isEmpty {
            let listName = item.listName
            for index in lists.indices {
                switch (lists[index], listName) {
                case (nil, nil): continue
                case (let wanted?, let name?) where wanted.equals(name): continue
                default: return false
                }
            }
        }
        for index in projects.indices {
            switch (projects[index], item.listName) {
            case (nil, nil): continue
            case (let wanted?, let name?) where wanted.containsPath(name): continue
            default: return false
            }
        }
        if mustBeTagged || !withTags.isEmpty || !withoutTags.isEmpty {
            let tags = item.tags
            if mustBeTagged && !tags.contains(where: { !$0.isEmpty }) { return false }
            for index in withTags.indices where !tags.contains(where: { withTags[index].equals($0) }) { return false }
            for index in withoutTags.indices where tags.contains(where: { withoutTags[index].equals($0) }) { return false }
        }
        return true
    }
}

/// A test of a due date, with every boundary resolved to seconds since the reference date.
enum DueTest: Sendable, Equatable {
    /// Has no due date.
    case none
    /// Has a due date.
    case any
    /// A timed due date must lie in `timed`; an all-day one's start of day in `allDay`.
    case within(timed: Bounds, allDay: Bounds)

    /// Whether `due` passes.
    func matches(_ due: DueDate?) -> Bool {
        switch self {
        case .none: return due == nil
        case .any: return due != nil
        case .within(let timed, let allDay):
            guard let due else { return false }
            let moment = due.date.timeIntervalSinceReferenceDate
            return due.allDay ? allDay.contains(moment) : timed.contains(moment)
        }
    }
}

/// An interval of seconds since the reference date; open or closed at each end, unbounded with infinities.
struct Bounds: Sendable, Equatable {
    /// The lower end.
    var low = -Double.infinity
    /// Whether `low` itself is inside.
    var lowInclusive = false
    /// The upper end.
    var high = Double.infinity
    /// Whether `high` itself is inside.
    var highInclusive = false

    /// Whether `value` is inside.
    func contains(_ value: Double) -> Bool {
        (lowInclusive ? value >= low : value > low) && (highInclusive ? value <= high : value < high)
    }

    /// Strictly before `high`.
    static func before(_ high: Double) -> Bounds { Bounds(high: high) }
    /// At `high` or before.
    static func upTo(_ high: Double) -> Bounds { Bounds(high: high, highInclusive: true) }
    /// Strictly after `low`.
    static func after(_ low: Double) -> Bounds { Bounds(low: low) }
    /// At `low` or after.
    static func from(_ low: Double) -> Bounds { Bounds(low: low, lowInclusive: true) }
    /// From `low` (inside) to `high` (outside).
    static func span(_ low: Double, _ high: Double) -> Bounds { Bounds(low: low, lowInclusive: true, high: high) }
}

/// A test of a priority (0 none … 3 high).
enum PriorityTest: Sendable, Equatable {
    /// Exactly this priority.
    case exactly(Int)
    /// This priority or higher.
    case atLeast(Int)
    /// This priority or lower.
    case atMost(Int)

    /// Whether `priority` passes.
    func matches(_ priority: Int) -> Bool {
        switch self {
        case .exactly(let wanted): return priority == wanted
        case .atLeast(let wanted): return priority >= wanted
        case .atMost(let wanted): return priority <= wanted
        }
    }
}

/// Lowercases `text` and composes it (NFC): the form text terms, tags and list names are compared in.
public func foldedText(_ text: String) -> String {
    let lowered = text.lowercased()
    // ASCII is its own composition: Foundation's composing bridged each term through NSString and back (0.8 M of the
    // 21 M instructions of `todo list +home` over 1,000 todos).
    if lowered.utf8.allSatisfy({ $0 < 0x80 }) { return lowered }
    return lowered.precomposedStringWithCanonicalMapping
}

/// How `foldUTF8` ended.
enum FoldEnd {
    /// Every byte was folded and given.
    case finished
    /// The receiver asked to stop (and what follows cannot change what it was given).
    case stopped
    /// A scalar the fast fold does not know: fold the whole text with `foldedText` instead.
    case unsupported
}

/// Gives the folded UTF-8 of `text` byte by byte to `take` (false: stop), folding ASCII and the scalars of
/// `table` (`twoByteFolds`) on their own, exactly as `foldedText` would.
@inline(__always)
func foldUTF8(
    _ text: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<UInt32>, _ take: (UInt8) -> Bool
) -> FoldEnd {
    /// Whether the scalar starting at `index` cannot join what came before it (composition).
    func startsFresh(_ index: Int) -> Bool {
        guard index < text.count, text[index] >= 0x80 else { return true }
        guard text[index] & 0xE0 == 0xC0, index + 1 < text.count else { return false }
        let value = Int(text[index] & 0x1F) << 6 | Int(text[index + 1] & 0x3F)
        return value >= 0x80 && table[value - 0x80] != 0
    }
    var index = 0
    let count = text.count
    while index < count {
        let lead = text[index]
        if lead < 0x80 {
            index += 1
            if !take(asciiLower(lead)) { return startsFresh(index) ? .stopped : .unsupported }
            continue
        }
        guard lead & 0xE0 == 0xC0, index + 1 < count else { return .unsupported }
        let value = Int(lead & 0x1F) << 6 | Int(text[index + 1] & 0x3F)
        guard value >= 0x80 else { return .unsupported }
        var packed = table[value - 0x80]
        guard packed != 0 else { return .unsupported }
        index += 2
        var remaining = packed >> 24
        while remaining > 0 {
            if !take(UInt8(truncatingIfNeeded: packed)) { return startsFresh(index) ? .stopped : .unsupported }
            packed >>= 8
            remaining -= 1
        }
    }
    return .finished
}

/// A tag or list name, compared case-insensitively with a fast path for ASCII and two-byte scalars.
struct FoldedName: Sendable, Equatable {
    /// The folded name.
    let folded: String
    /// Its UTF-8 bytes.
    let bytes: [UInt8]

    /// The name as typed.
    init(_ name: String) {
        folded = foldedText(name)
        bytes = Array(folded.utf8)
    }

    /// Whether the list path `other` is this path or below it (`Home` contains `Home` and `Home.Garden`, not `Homework`).
    func containsPath(_ other: String) -> Bool {
        if equals(other) { return true }
        let path = foldedText(other)
        return path.hasPrefix(folded + ".")
    }

    /// Whether `other` names the same (case and composition ignored).
    func equals(_ other: String) -> Bool {
        var other = other
        let fast: Bool? = other.withUTF8 { text in
            twoByteFolds.withUnsafeBufferPointer { table in
                bytes.withUnsafeBufferPointer { wanted in
                    var position = 0
                    let end = foldUTF8(text, table: table) { byte in
                        guard position < wanted.count, wanted[position] == byte else { return false }
                        position += 1
                        return true
                    }
                    switch end {
                    case .finished: return position == wanted.count
                    case .stopped: return false
                    case .unsupported: return nil
                    }
                }
            }
        }
        if let fast { return fast }
        return foldedText(other) == folded
    }
}

/// `byte` with A-Z turned to a-z.
@inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
}

/// A text word, searched as a folded substring in linear time (Knuth-Morris-Pratt).
struct Needle: Sendable, Equatable {
    /// The folded word as UTF-8.
    let bytes: [UInt8]
    /// For each prefix length `i + 1`: the length of its longest proper prefix that is also its suffix.
    let fallback: [Int]

    /// The word as typed.
    init(_ word: String) {
        let bytes = Array(foldedText(word).utf8)
        var fallback = [Int](repeating: 0, count: bytes.count)
        var length = 0
        var index = 1
        while index < bytes.count {
            if bytes[index] == bytes[length] {
                length += 1
                fallback[index] = length
                index += 1
            } else if length > 0 {
                length = fallback[length - 1]
            } else {
                index += 1
            }
        }
        self.bytes = bytes
        self.fallback = fallback
    }

    /// Whether folded `text` contains the word: folded on the fly when it can be, else folded whole first.
    func found(in text: String) -> Bool {
        guard !bytes.isEmpty else { return true }
        var text = text
        let fast: Bool? = text.withUTF8 { haystack in
            twoByteFolds.withUnsafeBufferPointer { table in
                bytes.withUnsafeBufferPointer { needle in
                    fallback.withUnsafeBufferPointer { fallback in
                        var matched = 0
                        let end = foldUTF8(haystack, table: table) { byte in
                            while matched > 0 && byte != needle[matched] { matched = fallback[matched - 1] }
                            if byte == needle[matched] {
                                matched += 1
                                if matched == needle.count { return false }
                            }
                            return true
                        }
                        switch end {
                        case .finished: return false
                        case .stopped: return true
                        case .unsupported: return nil
                        }
                    }
                }
            }
        }
        if let fast { return fast }
        var folded = foldedText(text)
        return folded.withUTF8 { search($0) }
    }

    /// Whether already folded `haystack` contains the word.
    private func search(_ haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        var matched = 0
        for byte in haystack {
            while matched > 0 && byte != bytes[matched] { matched = fallback[matched - 1] }
            if byte == bytes[matched] {
                matched += 1
                if matched == bytes.count { return true }
            }
        }
        return false
    }
}
