import CloudModel
import Foundation
import TodoPlanning
import TodoStore

/// The fields of a todo to add in bulk (an import); the engine names it.
public struct NewTodo: Sendable, Hashable {
    public var title: String
    public var notes: String
    public var due: DueDate?
    /// 0 (none) to 3 (high); clamped.
    public var priority: Int
    public var isCompleted: Bool
    /// Tags (names that break the tag rule are dropped).
    public var tags: [String]
    /// How it repeats, nil when it does not.
    public var repeating: RepeatSetting?
    /// Timestamped notes.
    public var annotations: [Annotation]
    /// The record name to use (an interchange file's UID), nil for a fresh one; a name the cloud could not take
    /// (empty, over 200 bytes, control characters) is replaced by a fresh one.
    public var recordName: String?
    /// The title of the private list it goes into (made when no list has that title), nil for none.
    public var listName: String?
    /// The repeating series it is an occurrence of (nil: its own).
    public var series: String?
    /// Its number in that series, from 1.
    public var occurrence = 1
    /// Hidden until then.
    public var wait: Date?
    /// Not to be started before then.
    public var scheduled: Date?
    /// Trashed by itself once past.
    public var until: Date?
    /// Started then (active).
    public var start: Date?
    /// Record names of the todos it waits on.
    public var depends: [String] = []

    /// A todo to add.
    public init(
        title: String, notes: String = "", due: DueDate? = nil, priority: Int = 0, isCompleted: Bool = false, tags: [String] = [],
        repeating: RepeatSetting? = nil, annotations: [Annotation] = []
    ) {
        self.title = title
        self.notes = notes
        self.due = due
        self.priority = priority
        self.isCompleted = isCompleted
        self.tags = tags
        self.repeating = repeating
        self.annotations = annotations
        self.recordName = nil
        self.listName = nil
    }

    /// Whether `name` can name a record: 1 to 200 bytes (room for an occurrence suffix), no control characters.
    static func isUsableName(_ name: String) -> Bool {
        (1...200).contains(name.utf8.count) && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Bytes of the fields this todo is sent with, as the cloud measures a record against its 1 MB limit (before the
    /// edit stamps, a few hundred bytes, are added).
    public var recordBytes: Int {
        var writer = JSONWriter(reserving: title.utf8.count + notes.utf8.count + 256)
        writer.fields(item(.privateTodo("size")).fields)
        return writer.bytes.count
    }

    /// Whether the cloud can take this todo: its fields within the record limit, with room for the edit stamps.
    ///
    /// Nearly every todo is far below the limit: a bound on its written size (each byte of text escaped to six, the
    /// other fields a few hundred bytes) answers without writing it out, which took 8 % of importing 10,000.
    public var fitsCloudRecord: Bool {
        let limit = CloudLimits.maxRecordBytes - 4096
        if repeating == nil {
            var text = title.utf8.count + notes.utf8.count + (series?.utf8.count ?? 0)
            for tag in tags { text += tag.utf8.count + 32 }
            for annotation in annotations { text += annotation.text.utf8.count + 64 }
            for name in depends { text += name.utf8.count + 32 }
            if 6 * text + 4096 <= limit { return true }
        }
        return recordBytes <= limit
    }

    /// The record this todo becomes under a name, before it is stamped (every way of adding todos makes them here).
    func item(_ key: RecordKey) -> TodoItem {
        var item = TodoItem(key: key, title: title, notes: notes, isCompleted: isCompleted, priority: min(max(priority, 0), 3))
        var edit = TodoEdit(
            due: .some(due), addTags: TagName.valid(tags), repeatRule: repeating.map { .some($0) }, annotate: annotations, wait: .some(wait),
            scheduled: .some(scheduled), until: .some(until), start: .some(start))
        edit.addDepends = depends
        edit.apply(to: &item)
        item.series = series.flatMap { NewTodo.isUsableName($0) ? $0 : nil }
        item.occurrence = max(1, occurrence)
        return item
    }
}

/// What an import did: how many todos it added, updated, and found as they were.
public struct ImportCounts: Sendable, Hashable {
    /// Todos this device did not hold.
    public var added = 0
    /// Todos it held, changed by the file.
    public var updated = 0
    /// Todos it held with every value the file gives (nothing stored, nothing sent).
    public var unchanged = 0

    /// Nothing counted yet.
    public init() {}

    /// `added N, updated M, unchanged K`.
    public var summary: String { "added \(added), updated \(updated), unchanged \(unchanged)" }
}
