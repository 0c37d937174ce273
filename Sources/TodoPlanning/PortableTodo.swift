import Foundation

/// A todo as the interchange formats (iCalendar VTODO, Taskwarrior JSON) carry it, independent of our records.
public struct PortableTodo: Sendable, Hashable {
    /// Our record name; the iCalendar UID, or the Taskwarrior uuid (or `cloudtodo_uid`).
    public var uid: String
    /// The one-line title (SUMMARY, description).
    public var title: String
    /// Free text, possibly several lines (DESCRIPTION).
    public var notes: String
    /// Tags in the order given (CATEGORIES, tags).
    public var tags: [String]
    /// When it is due, if ever.
    public var due: DueDate?
    /// The repeat rule as RRULE text (`FREQ=WEEKLY;INTERVAL=2;BYDAY=MO`), passed through unparsed.
    public var repeatRule: String?
    /// Whether the next occurrence counts from the completion rather than from the due date.
    public var repeatFromCompletion: Bool
    /// 0 none, 1 low, 2 medium, 3 high.
    public var priority: Int
    /// Whether it is done.
    public var isCompleted: Bool
    /// When it was done.
    public var completedAt: Date?
    /// When it was made.
    public var created: Date?
    /// When it was last changed.
    public var modified: Date?
    /// The list it belongs to (a vdir collection, a Taskwarrior project).
    public var listName: String?
    /// Timestamped notes added over time.
    public var annotations: [Annotation]
    /// The record name of the repeating series' first occurrence (nil: this todo starts its own, if it repeats).
    public var series: String?
    /// This occurrence's number in its series, from 1.
    public var occurrence: Int
    /// Hidden until then (Taskwarrior's `wait`).
    public var wait: Date?
    /// Not to be started before then (`scheduled`).
    public var scheduled: Date?
    /// Trashed by itself once past (`until`).
    public var until: Date?
    /// When work on it started (`start`), nil when not active.
    public var start: Date?
    /// The uids of the todos it waits on (`depends`).
    public var depends: [String] = []

    /// A todo with the given fields; everything but `uid` and `title` may be left out.
    public init(
        uid: String, title: String, notes: String = "", tags: [String] = [], due: DueDate? = nil, repeatRule: String? = nil,
        repeatFromCompletion: Bool = false, priority: Int = 0, isCompleted: Bool = false, completedAt: Date? = nil,
        created: Date? = nil, modified: Date? = nil, listName: String? = nil, annotations: [Annotation] = []
    ) {
        self.uid = uid
        self.title = title
        self.notes = notes
        self.tags = tags
        self.due = due
        self.repeatRule = repeatRule
        self.repeatFromCompletion = repeatFromCompletion
        self.priority = priority
        self.isCompleted = isCompleted
        self.completedAt = completedAt
        self.created = created
        self.modified = modified
        self.listName = listName
        self.annotations = annotations
        self.series = nil
        self.occurrence = 1
    }
}

/// What reading a file gave: the todos it could read, and one sentence per thing skipped or changed.
public struct PortableImport: Sendable, Hashable {
    /// The todos read, in file order.
    public var todos: [PortableTodo]
    /// Plain sentences about what was skipped, changed or guessed (at most a few hundred, then a count).
    public var warnings: [String]

    /// A result of `todos` and `warnings`.
    public init(todos: [PortableTodo], warnings: [String]) {
        self.todos = todos
        self.warnings = warnings
    }
}

/// What writing a file gave: its text, and one sentence per thing the format could not carry.
public struct PortableExport: Sendable, Hashable {
    /// The file's text.
    public var text: String
    /// Plain sentences about what was left out or changed.
    public var warnings: [String]

    /// A result of `text` and `warnings`.
    public init(text: String, warnings: [String]) {
        self.text = text
        self.warnings = warnings
    }
}

/// The bounds every reader keeps to, so hostile files cost bounded time and memory.
enum PortableLimits {
    /// Characters kept of one text field (title, notes, a tag, an annotation).
    static let fieldCharacters = 10_000
    /// The largest file read, in bytes.
    static let inputBytes = 512 * 1024 * 1024
    /// The most todos read from one file.
    static let todos = 1_000_000
    /// The most tags or annotations kept on one todo.
    static let itemsPerTodo = 1_000
    /// The most warnings listed one by one.
    static let warnings = 200

    /// `text` cut to `fieldCharacters` characters; `cut` tells whether anything was dropped.
    static func field(_ text: String) -> (text: String, cut: Bool) {
        guard text.utf8.count > fieldCharacters else { return (text, false) }
        guard text.count > fieldCharacters else { return (text, false) }
        return (String(text.prefix(fieldCharacters)), true)
    }

    /// `text` shown in a warning: at most 40 characters, control characters as `?`, in single quotes.
    static func quoted(_ text: some StringProtocol) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(40) {
            shown.unicodeScalars.append(scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) ? "?" : scalar)
        }
        return "'" + shown + (text.unicodeScalars.count > 40 ? "…'" : "'")
    }
}

/// Warnings collected while reading or writing: the first `PortableLimits.warnings` as given, then only counted.
struct WarningLog {
    private(set) var lines: [String] = []
    private var dropped = 0

    /// Adds one sentence.
    mutating func add(_ line: String) {
        if lines.count < PortableLimits.warnings { lines.append(line) } else { dropped += 1 }
    }

    /// The sentences, ending with how many more were left out.
    var all: [String] { dropped == 0 ? lines : lines + ["\(dropped) more warnings were left out."] }
}

/// Name-based (version 5, SHA-1) UUIDs: the same name always gives the same identifier.
enum StableID {
    /// CloudTodo's namespace for derived identifiers.
    static let namespace: [UInt8] = [
        0xB4, 0xEA, 0x83, 0x62, 0x2B, 0x60, 0x4F, 0x39, 0xA2, 0x47, 0x57, 0x64, 0xFD, 0x1D, 0x5B, 0x5B,
    ]

    /// The lowercase version 5 UUID of `name` in `namespace`.
    static func uuid(_ name: String, namespace: [UInt8] = StableID.namespace) -> String {
        var digest = sha1(namespace + Array(name.utf8))
        digest[6] = (digest[6] & 0x0F) | 0x50
        digest[8] = (digest[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for index in 0..<16 {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(0x2D) }
            text.append(hex[Int(digest[index] >> 4)])
            text.append(hex[Int(digest[index] & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The SHA-1 digest (FIPS 180-4) of `message`.
    static func sha1(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var bytes = message
        let bits = UInt64(message.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        var words = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: bytes.count, by: 64) {
            for index in 0..<16 {
                let at = block + index * 4
                words[index] = UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
            }
            for index in 16..<80 {
                let mixed = words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16]
                words[index] = mixed << 1 | mixed >> 31
            }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for index in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch index {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let next = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[index]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, next)
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
        return state.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }
}
