import CloudModel
import Foundation
import TodoPlanning

/// The server's metadata of a record as last seen (the `encodeSystemFields` equivalent).
public struct SystemFields: Sendable, Hashable, Codable {
    /// The change tag of the server version this device last saw; nil when never uploaded.
    public var changeTag: ChangeTag?
    public var created: RecordStamp?
    public var modified: RecordStamp?

    /// System fields as the server last returned them.
    public init(changeTag: ChangeTag? = nil, created: RecordStamp? = nil, modified: RecordStamp? = nil) {
        self.changeTag = changeTag
        self.created = created
        self.modified = modified
    }

    /// Whether the server has ever confirmed this record.
    public var isUploaded: Bool { changeTag != nil }
}

/// What a participant may do in a shared zone.
public enum SharePermission: String, Sendable, Hashable, Codable {
    case readOnly = "READ_ONLY"
    case readWrite = "READ_WRITE"
}

/// A todo (or public board record) as the device caches it: its fields, kept unknown fields and system fields.
public struct TodoItem: Sendable, Hashable, Identifiable {
    /// Names of the fields this build understands.
    public enum Field {
        public static let title = "title"
        public static let notes = "notes"
        public static let isCompleted = "isCompleted"
        public static let dueDate = "dueDate"
        public static let priority = "priority"
        public static let isTrashed = "isTrashed"
        public static let list = "list"
        /// STRING_LIST, merged as a set.
        public static let tags = "tags"
        /// INT64: 1 when the due date is a whole day (absent: all day, as records from before due times are).
        public static let allDay = "allDay"
        /// STRING: the RRULE text of a repeating todo.
        public static let `repeat` = "repeat"
        /// STRING: `completion` when the next occurrence counts from completion (absent: from the due date).
        public static let repeatFrom = "repeatFrom"
        /// STRING: the record name of the series' first occurrence.
        public static let series = "series"
        /// INT64: this occurrence's number in its series (absent: 1).
        public static let occurrence = "occurrence"
        /// STRING_LIST of `Annotation.wire` texts, merged as a set.
        public static let annotations = "annotations"
        /// TIMESTAMP: hidden from the usual views until then (Taskwarrior's `wait`).
        public static let wait = "wait"
        /// TIMESTAMP: not to be started before then (Taskwarrior's `scheduled`).
        public static let scheduled = "scheduled"
        /// TIMESTAMP: goes to the trash by itself once past (Taskwarrior's `until`).
        public static let until = "until"
        /// TIMESTAMP: when work on it started (absent: not active).
        public static let start = "start"
        /// STRING_LIST of the record names of the todos it waits on, merged as a set.
        public static let depends = "depends"
        /// Every known field name.
        public static let all: Set<String> = [
            title, notes, isCompleted, dueDate, priority, isTrashed, list, tags, allDay, `repeat`, repeatFrom, series, occurrence, annotations,
            wait, scheduled, until, start, depends,
        ]
        /// Fields whose values are sets: a conflict keeps what each side added and drops what each side removed.
        public static let sets: Set<String> = [tags, annotations, depends]
    }

    public var key: RecordKey
    public var recordType: String
    public var title: String
    public var notes: String
    public var isCompleted: Bool
    public var dueDate: Date?
    /// 0 (none) to 3 (high).
    public var priority: Int
    public var isTrashed: Bool
    /// The `TodoList` this todo belongs to.
    public var list: Reference?
    /// Tags, without duplicates, in the order given.
    public var tags: [String]
    /// Whether `dueDate` is a whole day (00:00 UTC of a floating calendar date; see `DueDate`) rather than a moment.
    public var dueAllDay: Bool
    /// The RRULE text of a repeating todo (`FREQ=WEEKLY;BYDAY=MO`), nil when it does not repeat.
    public var repeatRule: String?
    /// Whether the next occurrence counts from completion rather than from the due date.
    public var repeatFromCompletion: Bool
    /// The record name of the series' first occurrence (nil: this record starts its own series, if it repeats).
    public var series: String?
    /// This occurrence's number in its series, from 1.
    public var occurrence: Int
    /// Timestamped notes, oldest first.
    public var annotations: [Annotation]
    /// Hidden from `list`, `next` and the app's views until this moment (nil: never hidden).
    public var wait: Date?
    /// When work on it may begin (nil: any time).
    public var scheduled: Date?
    /// Past this moment it goes to the trash by itself (nil: it never expires).
    public var until: Date?
    /// When it was started (nil: not active).
    public var start: Date?
    /// Record names of the todos (in the same zone) it waits on, without duplicates, in the order given.
    public var depends: [String]
    public var parent: ParentReference?
    /// Fields this build does not know, kept so they round-trip.
    public var extraFields: [String: FieldValue]
    public var system: SystemFields
    /// When this device last edited the record (ms since 1970), nil when it has no local edit.
    public var localEditedAt: Int64?
    /// The participant's permission, for records of the shared database.
    public var sharePermission: SharePermission?
    /// Whether an edit of this record waits in the outbox (filled in when read from the store).
    public var hasPendingChanges: Bool
    /// When each field was last edited: `FieldStamps` wire text, synced as the `editStamps` field (nil: unknown).
    public var editStamps: String?
    /// Values that lost conflicts: `LostEdit` wire text, synced as the `lostEdits` field (nil: none).
    public var lostEdits: String?

    /// A new, not yet uploaded record.
    public init(
        key: RecordKey, recordType: String = TodoSchema.todoType, title: String, notes: String = "", isCompleted: Bool = false,
        dueDate: Date? = nil, priority: Int = 0, isTrashed: Bool = false, list: Reference? = nil
    ) {
        self.key = key
        self.recordType = recordType
        self.title = title
        self.notes = notes
        self.isCompleted = isCompleted
        self.dueDate = dueDate
        self.priority = priority
        self.isTrashed = isTrashed
        self.list = list
        self.tags = []
        self.dueAllDay = true
        self.repeatRule = nil
        self.repeatFromCompletion = false
        self.series = nil
        self.occurrence = 1
        self.annotations = []
        self.wait = nil
        self.scheduled = nil
        self.until = nil
        self.start = nil
        self.depends = []
        self.parent = nil
        self.extraFields = [:]
        self.system = SystemFields()
        self.localEditedAt = nil
        self.sharePermission = nil
        self.hasPendingChanges = false
        self.editStamps = nil
        self.lostEdits = nil
    }

    /// The item a server record stands for, in a scope.
    public init(record: Record, scope: DatabaseScope) {
        let zoneID = record.zoneID ?? (scope == .private ? ZoneID(zoneName: TodoSchema.zoneName) : .default)
        let key = RecordKey(
            scope: scope, zoneName: zoneID.zoneName, zoneOwner: zoneID.ownerRecordName ?? "", recordName: record.recordName)
        self.init(key: key, recordType: record.recordType ?? TodoSchema.todoType, title: "")
        apply(fields: record.fields ?? [:])
        parent = record.parent
        system = SystemFields(changeTag: record.recordChangeTag, created: Self.sane(record.created), modified: Self.sane(record.modified))
    }

    /// A cloud's stamp if its time is one a cloud can have written (1970 to 9999), else none: the device orders,
    /// purges and reads clocks by these times, and a cloud that is not ours may send any INT64.
    static func sane(_ stamp: RecordStamp?) -> RecordStamp? {
        guard let stamp, stampRange.contains(stamp.timestamp) else { return nil }
        return stamp
    }

    /// Identity for lists: the record key.
    public var id: RecordKey { key }

    /// Every field, known and kept, as the wire spells them.
    public var fields: [String: FieldValue] {
        var fields = extraFields
        fields.reserveCapacity(extraFields.count + 19)
        fields[Field.title] = .string(title)
        fields[Field.notes] = .string(notes)
        fields[Field.isCompleted] = .int64(isCompleted ? 1 : 0)
        fields[Field.priority] = .int64(Int64(priority))
        fields[Field.isTrashed] = .int64(isTrashed ? 1 : 0)
        if let dueDate {
            fields[Field.dueDate] = .timestamp(dueDate)
            fields[Field.allDay] = .int64(dueAllDay ? 1 : 0)
        } else {
            fields[Field.dueDate] = nil
            fields[Field.allDay] = nil
        }
        fields[Field.tags] = tags.isEmpty ? nil : .list(.string, tags.map(FieldValue.string))
        fields[Field.repeat] = repeatRule.map(FieldValue.string)
        fields[Field.repeatFrom] = repeatFromCompletion ? .string(Self.fromCompletion) : nil
        fields[Field.series] = series.map(FieldValue.string)
        fields[Field.occurrence] = occurrence == 1 ? nil : .int64(Int64(occurrence))
        fields[Field.annotations] = annotations.isEmpty ? nil : .list(.string, annotations.map { .string($0.wire) })
        if let list { fields[Field.list] = .reference(list) } else { fields[Field.list] = nil }
        fields[Field.wait] = wait.map(FieldValue.timestamp)
        fields[Field.scheduled] = scheduled.map(FieldValue.timestamp)
        fields[Field.until] = until.map(FieldValue.timestamp)
        fields[Field.start] = start.map(FieldValue.timestamp)
        fields[Field.depends] = depends.isEmpty ? nil : .list(.string, depends.map(FieldValue.string))
        if let editStamps { fields[FieldStamps.fieldName] = .string(editStamps) } else { fields[FieldStamps.fieldName] = nil }
        if let lostEdits { fields[LostEdit.fieldName] = .string(lostEdits) } else { fields[LostEdit.fieldName] = nil }
        return fields
    }

    /// Sets the known fields from wire values and keeps the rest (and ill-typed known ones) as extra fields.
    public mutating func apply(fields: [String: FieldValue]) {
        var extra: [String: FieldValue] = [:]
        title = ""
        notes = ""
        isCompleted = false
        dueDate = nil
        priority = 0
        isTrashed = false
        list = nil
        tags = []
        dueAllDay = true
        repeatRule = nil
        repeatFromCompletion = false
        series = nil
        occurrence = 1
        annotations = []
        wait = nil
        scheduled = nil
        until = nil
        start = nil
        depends = []
        editStamps = nil
        lostEdits = nil
        for (name, value) in fields {
            switch (name, value) {
            case (Field.title, .string(let s)): title = s
            case (Field.notes, .string(let s)): notes = s
            case (Field.isCompleted, .int64(let i)): isCompleted = i != 0
            case (Field.dueDate, .timestamp(let ms)) where Self.dueRange.contains(ms): dueDate = value.dateValue
            case (Field.priority, .int64(let i)): priority = Self.priorityRange.clamp(i)
            case (Field.isTrashed, .int64(let i)): isTrashed = i != 0
            case (Field.list, .reference(let r)): list = r
            case (Field.tags, .list(.string, let values)): tags = Self.distinct(values.compactMap(\.stringValue))
            case (Field.allDay, .int64(let i)): dueAllDay = i != 0
            case (Field.repeat, .string(let s)): repeatRule = s
            case (Field.repeatFrom, .string(let s)): repeatFromCompletion = s == Self.fromCompletion
            case (Field.series, .string(let s)): series = s
            case (Field.occurrence, .int64(let i)): occurrence = Self.occurrenceRange.clamp(i)
            case (Field.annotations, .list(.string, let values)):
                annotations = values.compactMap { $0.stringValue.flatMap(Annotation.init(wire:)) }.sorted()
            case (Field.wait, .timestamp(let ms)) where Self.dueRange.contains(ms): wait = value.dateValue
            case (Field.scheduled, .timestamp(let ms)) where Self.dueRange.contains(ms): scheduled = value.dateValue
            case (Field.until, .timestamp(let ms)) where Self.dueRange.contains(ms): until = value.dateValue
            case (Field.start, .timestamp(let ms)) where Self.dueRange.contains(ms): start = value.dateValue
            case (Field.depends, .list(.string, let values)):
                depends = Self.distinct(values.compactMap(\.stringValue).filter { !$0.isEmpty && $0.utf8.count <= 255 })
            case (FieldStamps.fieldName, .string(let s)): editStamps = s
            case (LostEdit.fieldName, .string(let s)): lostEdits = s
            default: extra[name] = value
            }
        }
        extraFields = extra
        readAllDayDue()
    }

    /// Reads an all-day `dueDate` as its floating day: a record of an earlier version holds the writer's local
    /// midnight, which `DueDate.floatingDay(ofStored:)` turns into 00:00 UTC of the intended day (unchanged when it
    /// already is one).
    public mutating func readAllDayDue() {
        dueDate = Self.readDue(dueDate, allDay: dueAllDay)
    }

    /// Makes this todo what the cache gives back once it is stored: its moments kept to the millisecond (the
    /// precision of their columns), the due date read as `readAllDayDue` reads it. An import hands its records to
    /// the next pass in this form, as a read of the outbox would find them.
    public mutating func keepStoredPrecision() {
        func stored(_ moment: Date?) -> Date? { moment.map { Date(timeIntervalSince1970: Double(FieldValue.milliseconds($0)) / 1000) } }
        dueDate = Self.readDue(stored(dueDate), allDay: dueAllDay)
        (wait, scheduled, until, start) = (stored(wait), stored(scheduled), stored(until), stored(start))
    }

    /// A stored due date as `readAllDayDue` reads it: an all-day one as its floating day, any other as stored.
    static func readDue(_ stored: Date?, allDay: Bool) -> Date? {
        allDay ? stored.map(DueDate.floatingDay(ofStored:)) : stored
    }

    /// The `repeatFrom` value of a series counted from completion.
    public static let fromCompletion = "completion"

    // Numbers from the network and files are kept within these where they enter (`apply(fields:)`, a cache row), so
    // arithmetic on them cannot trap: another account can write any INT64 or TIMESTAMP into a shared record.

    /// Priorities a todo can have: 0 (none) to 3 (high); a value outside is taken as the nearest.
    public static let priorityRange: ClosedRange<Int64> = 0...3
    /// Occurrence numbers a series can reach; completing the last one ends the series (no next occurrence).
    public static let occurrenceRange: ClosedRange<Int64> = 1...1_000_000_000
    /// Due dates (ms since 1970) a todo can have: 0001-01-01 to 9999-12-31 UTC; one outside is kept as an unknown field.
    public static let dueRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Times (ms since 1970) a record's created and modified stamps can have: 1970-01-01 to 9999-12-31 UTC.
    public static let stampRange: ClosedRange<Int64> = 0...253_402_300_799_999

    /// The due date with whether it is a whole day; setting nil clears it.
    public var due: DueDate? {
        get { dueDate.map { DueDate($0, allDay: dueAllDay) } }
        set {
            dueDate = newValue?.date
            dueAllDay = newValue?.allDay ?? true
        }
    }

    /// Whether it is hidden until a wait date still ahead of `now`.
    public func isWaiting(at now: Date) -> Bool { wait.map { $0 > now } ?? false }

    /// Whether its `until` has passed at `now` (it belongs in the trash).
    public func isExpired(at now: Date) -> Bool { until.map { $0 <= now } ?? false }

    /// Whether it is started (Taskwarrior's active).
    public var isActive: Bool { start != nil }
    /// Known fields that came unreadable (of the wrong type, or a due date outside `dueRange`), in name order: read as
    /// absent and kept as they came, so whoever acts on the todo can be told.
    public var unreadableFields: [String] { extraFields.keys.filter { Field.all.contains($0) }.sorted() }

    /// Whether completing this todo makes its next occurrence.
    public var isRepeating: Bool { repeatRule != nil }

    /// The name of the series this record belongs to: its `series`, else its own name.
    public var seriesName: String { series ?? key.recordName }

    /// `values` without repeats, first occurrence kept.
    public static func distinct(_ values: [String]) -> [String] {
        FirstOccurrences.of(values, same: ==, key: { $0 })
    }

    /// The record to send: fields plus the last known change tag.
    public var record: Record {
        let record = Record(
            recordName: key.recordName, recordType: recordType, recordChangeTag: system.changeTag, fields: fields,
            zoneID: key.zoneID, parent: parent)
        return record
    }

    /// The list this record belongs to: its `parent` (CloudKit's sharing hierarchy), else its `list` field.
    public var listName: String? { parent?.recordName ?? list?.recordName }

    /// Puts the record in a list (nil: in none), setting both the `list` field (merged field by field on a
    /// conflict) and the `parent` reference (what the cloud shares), so the two never disagree.
    public mutating func setList(_ listName: String?) {
        list = listName.map { Reference(recordName: $0, action: ReferenceAction.none) }
        parent = listName.map(ParentReference.init(recordName:))
    }

    /// Whether this is a `TodoList` record.
    public var isList: Bool { recordType == TodoSchema.listType }

    /// The last characters of the record name, as the command line shows them (see `RecordNames.shortID`).
    public var shortID: String { RecordNames.shortID(key.recordName) }
}

extension ClosedRange where Bound == Int64 {
    /// `value` moved into the range, as an `Int`.
    func clamp(_ value: Int64) -> Int { Int(Swift.min(Swift.max(value, lowerBound), upperBound)) }
}
