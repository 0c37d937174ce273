import Foundation
public import TodoPlanning

/// Where a record lives, which decides its tab and what "add" creates.
public enum Scope: String, Hashable, Sendable, CaseIterable {
    /// The user's own private `Todos` zone.
    case `private`
    /// A zone another user shares with this user.
    case shared
    /// The public board.
    case `public`
}

/// What "trash" does to a row, as decided by the sync layer's permission rules.
public enum TrashBehaviour: Hashable, Sendable {
    /// Delete the record (asks for confirmation first).
    case delete
    /// Set `isTrashed` (public records of the creator: deletes cannot propagate there).
    case markTrashed
    /// Refuse, showing the reason in the status line.
    case refuse(reason: String)
}

/// Whether a row is a todo or the heading of a list.
public enum RowKind: UInt8, Hashable, Sendable {
    /// A todo.
    case todo
    /// A `TodoList`: the heading of its todos.
    case list
}

/// What a participant may do in a shared list, as the UI shows it.
public enum ShareAccess: String, Hashable, Sendable {
    /// Read only.
    case readOnly = "read-only"
    /// Read and write.
    case readWrite = "read-write"

    /// The other access.
    public var toggled: ShareAccess { self == .readOnly ? .readWrite : .readOnly }
}

/// Someone a list is shared with.
public struct ShareParticipant: Hashable, Sendable {
    /// Their account name (untrusted text: sanitised when drawn).
    public var account: String
    /// What they may do.
    public var access: ShareAccess
    /// Whether they accepted the invitation yet.
    public var hasAccepted: Bool

    /// Creates a participant.
    public init(account: String, access: ShareAccess, hasAccepted: Bool) {
        self.account = account
        self.access = access
        self.hasAccepted = hasAccepted
    }
}

/// How a list is shared: by the user with others, or with the user by its owner. Kept by reference so
/// list rows stay small.
public final class ListSharing: Hashable, Sendable {
    /// The owner's account, for lists shared with the user (nil: the user owns it).
    public let owner: String?
    /// The user's access to a list shared with them.
    public let access: ShareAccess?
    /// The people the owner shares it with.
    public let participants: [ShareParticipant]

    /// Creates sharing information.
    public init(owner: String? = nil, access: ShareAccess? = nil, participants: [ShareParticipant] = []) {
        self.owner = owner
        self.access = access
        self.participants = participants
    }

    public static func == (lhs: ListSharing, rhs: ListSharing) -> Bool {
        lhs.owner == rhs.owner && lhs.access == rhs.access && lhs.participants == rhs.participants
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(owner)
        hasher.combine(access)
        hasher.combine(participants)
    }

    /// One line for the list heading: "shared with bob, carol (invited)" or "alice's · read-only".
    public var summary: String {
        if let owner {
            return "\(owner)'s · \(access?.rawValue ?? "access unknown")"
        }
        guard !participants.isEmpty else { return "" }
        let names = participants.map { $0.account + ($0.access == .readOnly ? " (ro)" : "") + ($0.hasAccepted ? "" : " (invited)") }
        return "shared with " + names.joined(separator: ", ")
    }
}

/// One todo as the UI sees it: values plus the permissions the sync layer computed.
public struct TodoRow: Hashable, Sendable, Identifiable {
    /// The record name (for shared and public rows, after its zone and a 0x1F byte).
    public var id: String {
        get {
            switch key {
            case .uuid(let packed): packed.text
            case .text(let text): text
            }
        }
        set { key = RowKey(newValue) }
    }
    /// Whether `lhs`'s id sorts before `rhs`'s, as the id strings do.
    static func idPrecedes(_ lhs: TodoRow, _ rhs: TodoRow) -> Bool {
        if case .uuid(let left) = lhs.key, case .uuid(let right) = rhs.key { return left < right }
        return lhs.id < rhs.id
    }
    /// Title, untrusted (sanitised when drawn).
    public var title: String
    /// Notes, untrusted.
    public var notes: String
    /// The id of the list row this todo belongs to (nil: in no list).
    public var listID: String?
    /// Tags, as the todo's record holds them (untrusted: sanitised when drawn).
    public var tags: [String]
    // 100,000 rows are kept sorted in memory: the booleans share one byte, and what few rows carry
    // (lock reasons, owners, refusals, sharing, repeats, annotations) lives in one shared box, so a row is
    // 104 bytes, not 250; an id in the canonical UUID form is 16 bytes of it, no string (`RowKey`). A due date is
    // its moment in seconds since 1970 (minus infinity for none: no optional's extra byte, and rows without one
    // still compare equal) plus a flag (timed or all day); the one-byte fields come last, after every 8-byte one.
    private var dueMoment: Double
    /// When the record was created, whole seconds since 1970 (`Int64.min`: unknown).
    private var createdSeconds: Int64
    private var extras: RowExtras?
    /// The id as rows are compared and looked up by it: a UUID in 16 bytes, no string (`RowKey`); placed before the
    /// one-byte fields, which fill the padding after its tag byte.
    private(set) var key: RowKey
    /// Where the record lives.
    public var scope: Scope
    private var level: UInt8
    private var flags: Flags

    private struct Flags: OptionSet, Hashable, Sendable {
        let rawValue: UInt8
        static let completed = Flags(rawValue: 1 << 0)
        static let readOnly = Flags(rawValue: 1 << 1)
        static let undeletable = Flags(rawValue: 1 << 2)
        static let pending = Flags(rawValue: 1 << 3)
        static let list = Flags(rawValue: 1 << 4)
        static let noAdding = Flags(rawValue: 1 << 5)
        static let stale = Flags(rawValue: 1 << 6)
        static let timedDue = Flags(rawValue: 1 << 7)
    }

    /// When it is due, if ever: a day, or a moment on a day.
    public var due: DueDate? {
        get { dueDate.map { DueDate($0, allDay: !flags.contains(.timedDue)) } }
        set {
            dueMoment = newValue?.date.timeIntervalSince1970 ?? -.infinity
            set(.timedDue, newValue.map { !$0.allDay } ?? false)
        }
    }
    /// The moment of the due date (the start of its day when all day), for sorting without building a `DueDate`.
    var dueDate: Date? { dueMoment == -.infinity ? nil : Date(timeIntervalSince1970: dueMoment) }
    /// When the record was created, if known, to the second (the "created" sort order).
    public var created: Date? {
        get { createdSeconds == .min ? nil : Date(timeIntervalSince1970: Double(createdSeconds)) }
        set { createdSeconds = Self.seconds(newValue) }
    }
    /// Seconds since 1970 of the creation time, `Int64.min` when unknown (sorting reads it directly).
    var createdKey: Int64 { createdSeconds }

    private static func seconds(_ date: Date?) -> Int64 {
        guard let value = date?.timeIntervalSince1970, value.isFinite, abs(value) < 9e15 else { return .min }
        return Int64(value.rounded(.down))
    }
    /// How it repeats: RRULE text (`FREQ=WEEKLY;BYDAY=MO`), nil when it does not.
    public var repeatRule: String? {
        get { extras?.values.repeatRule }
        set { updateExtras { $0.repeatRule = newValue } }
    }
    /// Whether the next occurrence counts from completion rather than from the due date.
    public var repeatFromCompletion: Bool {
        get { extras?.values.repeatFromCompletion ?? false }
        set { updateExtras { $0.repeatFromCompletion = newValue } }
    }
    /// Whether it repeats.
    public var isRepeating: Bool { extras?.values.repeatRule != nil }
    /// How it repeats in plain English ("every 2 weeks on Mon, Wed from completion"); the RRULE text itself when
    /// it does not read; nil when it does not repeat.
    public var repeatSummary: String? {
        guard let rule = repeatRule else { return nil }
        let origin: RepeatRule.Origin = repeatFromCompletion ? .completion : .due
        return (try? RepeatRule(rrule: rule, from: origin))?.summary ?? rule
    }
    /// Hidden from the views until then (nil: never hidden).
    public var wait: Date? {
        get { extras?.values.moments.wait }
        set { updateExtras { $0.moments.wait = newValue } }
    }
    /// Not to be started before then.
    public var scheduled: Date? {
        get { extras?.values.moments.scheduled }
        set { updateExtras { $0.moments.scheduled = newValue } }
    }
    /// Goes to the trash by itself once past.
    public var until: Date? {
        get { extras?.values.moments.until }
        set { updateExtras { $0.moments.until = newValue } }
    }
    /// When work on it started (nil: not active).
    public var start: Date? {
        get { extras?.values.moments.start }
        set { updateExtras { $0.moments.start = newValue } }
    }
    /// Whether the views leave it out at `now`: waiting, or past its `until` (trashed at the next sync).
    public func isHidden(at now: Date) -> Bool {
        guard let moments = extras?.values.moments else { return false }
        return (moments.wait.map { $0 > now } ?? false) || (moments.until.map { $0 <= now } ?? false)
    }
    /// The row ids of the todos it waits on (Taskwarrior's `depends`), whether or not they are open or loaded: it is
    /// blocked while one of them is an open todo the app holds.
    public var depends: [String] {
        get { extras?.values.depends ?? [] }
        set { updateExtras { $0.depends = newValue } }
    }
    /// Fields the record carried in a form this device cannot read (of the wrong type, or out of range), by name:
    /// taken as absent and kept as they came, and told in the details.
    public var unreadableFields: [String] {
        get { extras?.values.unreadableFields ?? [] }
        set { updateExtras { $0.unreadableFields = newValue } }
    }
    /// Timestamped notes added to it, oldest first (texts untrusted).
    public var annotations: [Annotation] {
        get { extras?.values.annotations ?? [] }
        set { updateExtras { $0.annotations = newValue } }
    }

    /// Done or not.
    public var isCompleted: Bool {
        get { flags.contains(.completed) }
        set { set(.completed, newValue) }
    }
    /// Priority 0 (none) to 3 (high).
    public var priority: Int {
        get { Int(level) }
        set { level = UInt8(min(3, max(0, newValue))) }
    }
    /// Whether the user may edit it or toggle it.
    public var canUpdate: Bool {
        get { !flags.contains(.readOnly) }
        set { set(.readOnly, !newValue) }
    }
    /// Whether the user may delete it.
    public var canDelete: Bool {
        get { !flags.contains(.undeletable) }
        set { set(.undeletable, !newValue) }
    }
    /// True while the change sits in the outbox, not yet confirmed by the server.
    public var isPending: Bool {
        get { flags.contains(.pending) }
        set { set(.pending, newValue) }
    }
    /// A todo, or a list heading.
    public var kind: RowKind {
        get { flags.contains(.list) ? .list : .todo }
        set { set(.list, newValue == .list) }
    }
    /// For list rows: whether todos may be added to the list (false for lists shared read-only).
    public var canAddItems: Bool {
        get { !flags.contains(.noAdding) }
        set { set(.noAdding, !newValue) }
    }
    /// While its scope is read again: not confirmed yet (dropped if the read ends without it).
    var isStale: Bool {
        get { flags.contains(.stale) }
        set { set(.stale, newValue) }
    }
    /// What trash does.
    public var trashBehaviour: TrashBehaviour {
        get { extras?.trashBehaviour ?? .delete }
        set { updateExtras { $0.trashBehaviour = newValue } }
    }
    /// Why it is not editable (shown when an edit key is refused).
    public var lockReason: String? {
        get { extras?.lockReason }
        set { updateExtras { $0.lockReason = newValue } }
    }
    /// Display name of the owner or creator, for shared and public records.
    public var owner: String? {
        get { extras?.owner }
        set { updateExtras { $0.owner = newValue } }
    }
    /// For list rows: how the list is shared, nil when it is not.
    public var sharing: ListSharing? {
        get { extras?.sharing }
        set { updateExtras { $0.sharing = newValue } }
    }

    /// Creates a row; the defaults describe an own, confirmed, private todo.
    public init(
        id: String, title: String, notes: String = "", isCompleted: Bool = false, due: DueDate? = nil,
        priority: Int = 0, scope: Scope = .private, canUpdate: Bool = true, canDelete: Bool = true,
        trashBehaviour: TrashBehaviour = .delete, lockReason: String? = nil, isPending: Bool = false,
        owner: String? = nil, kind: RowKind = .todo, listID: String? = nil, canAddItems: Bool = true, sharing: ListSharing? = nil,
        tags: [String] = [], repeatRule: String? = nil, repeatFromCompletion: Bool = false, annotations: [Annotation] = [],
        created: Date? = nil
    ) {
        key = RowKey(id)
        self.title = title
        self.notes = notes
        self.listID = listID
        self.tags = tags
        self.scope = scope
        dueMoment = due?.date.timeIntervalSince1970 ?? -.infinity
        createdSeconds = Self.seconds(created)
        level = UInt8(min(3, max(0, priority)))
        flags = due.map { $0.allDay ? [] : [.timedDue] } ?? []
        extras = nil
        self.isCompleted = isCompleted
        self.canUpdate = canUpdate
        self.canDelete = canDelete
        self.isPending = isPending
        self.kind = kind
        self.canAddItems = canAddItems
        let boxed = RowExtras.Values(
            trashBehaviour: trashBehaviour, lockReason: lockReason, owner: owner, sharing: sharing, repeatRule: repeatRule,
            repeatFromCompletion: repeatFromCompletion, annotations: annotations)
        if boxed != RowExtras.Values() { extras = RowExtras(boxed) }
    }

    /// Whether this row is a list heading.
    public var isList: Bool { kind == .list }

    /// The editable fields of this row.
    public var draft: TodoDraft {
        TodoDraft(
            title: title, notes: notes, due: due, priority: priority, scope: scope, kind: kind, listID: listID, tags: tags,
            repeatRule: repeatRule, repeatFromCompletion: repeatFromCompletion, wait: wait, scheduled: scheduled, until: until,
            depends: depends)
    }

    private mutating func set(_ flag: Flags, _ on: Bool) {
        if on { flags.insert(flag) } else { flags.remove(flag) }
    }

    private mutating func updateExtras(_ change: (inout RowExtras.Values) -> Void) {
        var values = extras?.values ?? RowExtras.Values()
        change(&values)
        extras = values == RowExtras.Values() ? nil : RowExtras(values)
    }
}

/// The rarely set fields of a row, boxed (immutable, compared by value) so common rows stay small.
final class RowExtras: Hashable, Sendable {
    struct Values: Hashable, Sendable {
        var trashBehaviour: TrashBehaviour = .delete
        var lockReason: String?
        var owner: String?
        var sharing: ListSharing?
        var repeatRule: String?
        var repeatFromCompletion = false
        var annotations: [Annotation] = []
        var moments = Moments()
        var unreadableFields: [String] = []
        var depends: [String] = []
    }

    /// Issue 27's dates, which few rows have.
    struct Moments: Hashable, Sendable {
        var wait: Date?
        var scheduled: Date?
        var until: Date?
        var start: Date?
    }

    let values: Values

    init(_ values: Values) { self.values = values }

    var trashBehaviour: TrashBehaviour { values.trashBehaviour }
    var lockReason: String? { values.lockReason }
    var owner: String? { values.owner }
    var sharing: ListSharing? { values.sharing }

    static func == (lhs: RowExtras, rhs: RowExtras) -> Bool { lhs === rhs || lhs.values == rhs.values }

    func hash(into hasher: inout Hasher) { hasher.combine(values) }
}

/// Rows that changed since the last update, as the sync layer reports them.
public struct RowChanges: Sendable {
    /// Scopes read again from this update on: their rows stay until replaced by rows of the same id, and those
    /// not replaced by the update whose `reloadFinished` names the scope go.
    public var reloaded: Set<Scope>
    /// Scopes whose reading again ends with this update (often the one that starts it: then `rows` hold all).
    public var reloadFinished: Set<Scope>
    /// New and changed rows, and the rows of scopes read again.
    public var rows: [TodoRow]
    /// Ids of rows that went away.
    public var removed: [String]

    /// Changes: scopes read again (in one update unless `reloadFinished` says otherwise), rows new or changed,
    /// rows removed.
    public init(reloaded: Set<Scope> = [], reloadFinished: Set<Scope>? = nil, rows: [TodoRow] = [], removed: [String] = []) {
        self.reloaded = reloaded
        self.reloadFinished = reloadFinished ?? reloaded
        self.rows = rows
        self.removed = removed
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { reloaded.isEmpty && reloadFinished.isEmpty && rows.isEmpty && removed.isEmpty }
}

/// The tabs of the UI; each shows the rows of one scope.
public enum Tab: Int, Hashable, Sendable, CaseIterable {
    /// The private `Todos` zone.
    case todos
    /// Shared with me.
    case shared
    /// The public board.
    case `public`

    /// The tab's title.
    public var title: String {
        switch self {
        case .todos: "Todos"
        case .shared: "Shared"
        case .public: "Public"
        }
    }

    /// The scope whose rows this tab shows.
    public var scope: Scope {
        switch self {
        case .todos: .private
        case .shared: .shared
        case .public: .public
        }
    }

    /// The tab that shows rows of `scope`.
    public init(_ scope: Scope) {
        switch scope {
        case .private: self = .todos
        case .shared: self = .shared
        case .public: self = .public
        }
    }
}
