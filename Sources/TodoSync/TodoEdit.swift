import Foundation
import TodoPlanning
import TodoStore

/// Changes to a todo, field by field; nil leaves a field as it is.
public struct TodoEdit: Sendable, Hashable {
    public var title: String?
    public var notes: String?
    /// `.some(nil)` clears the due date.
    public var due: DueDate??
    public var priority: Int?
    public var isCompleted: Bool?
    /// The whole new tag list (an edit form's), nil to leave the tags; `addTags` and `removeTags` apply after it.
    public var tags: [String]?
    /// Tags to add (kept once each, in the order given).
    public var addTags: [String]
    /// Tags to remove.
    public var removeTags: [String]
    /// `.some(nil)` stops the repeat; a rule's RRULE text and whether it counts from completion otherwise.
    public var repeatRule: RepeatSetting??
    /// Annotations to add.
    public var annotate: [Annotation]
    /// `.some(nil)` clears the wait date.
    public var wait: Date??
    /// `.some(nil)` clears the scheduled date.
    public var scheduled: Date??
    /// `.some(nil)` clears the expiry.
    public var until: Date??
    /// `.some(nil)` stops it (no longer active); a moment starts it.
    public var start: Date??
    /// The whole new list of record names it waits on (an undo's), nil to leave it; `addDepends` and `removeDepends`
    /// apply after it.
    public var dependsList: [String]?
    /// Record names of todos it now waits on (kept once each).
    public var addDepends: [String] = []
    /// Record names of todos it no longer waits on.
    public var removeDepends: [String] = []

    /// An edit of the given fields.
    public init(
        title: String? = nil, notes: String? = nil, due: DueDate?? = nil, priority: Int? = nil, isCompleted: Bool? = nil,
        tags: [String]? = nil, addTags: [String] = [], removeTags: [String] = [], repeatRule: RepeatSetting?? = nil,
        annotate: [Annotation] = [], wait: Date?? = nil, scheduled: Date?? = nil, until: Date?? = nil, start: Date?? = nil
    ) {
        self.wait = wait
        self.scheduled = scheduled
        self.until = until
        self.start = start
        self.tags = tags
        self.title = title
        self.notes = notes
        self.due = due
        self.priority = priority
        self.isCompleted = isCompleted
        self.addTags = addTags
        self.removeTags = removeTags
        self.repeatRule = repeatRule
        self.annotate = annotate
    }

    /// Applies the edit to an item.
    public func apply(to item: inout TodoItem) {
        if let title { item.title = title }
        if let notes { item.notes = notes }
        if let due { item.due = due }
        if let priority { item.priority = min(max(priority, 0), 3) }
        if let isCompleted { item.isCompleted = isCompleted }
        if let tags { item.tags = TagName.valid(tags) }
        if !addTags.isEmpty || !removeTags.isEmpty {
            let removed = Set(removeTags.map { $0.lowercased() })
            item.tags = TodoItem.distinct(item.tags.filter { !removed.contains($0.lowercased()) } + addTags)
        }
        if let repeatRule {
            item.repeatRule = repeatRule?.rrule
            item.repeatFromCompletion = repeatRule?.fromCompletion ?? false
        }
        if !annotate.isEmpty { item.annotations = (item.annotations + annotate).sorted() }
        if let wait { item.wait = wait }
        if let scheduled { item.scheduled = scheduled }
        if let until { item.until = until }
        if let start { item.start = start }
        if let dependsList { item.depends = TodoItem.distinct(dependsList.filter { $0 != item.key.recordName }) }
        if !addDepends.isEmpty || !removeDepends.isEmpty {
            let removed = Set(removeDepends)
            item.depends = TodoItem.distinct(item.depends.filter { !removed.contains($0) } + addDepends.filter { $0 != item.key.recordName })
        }
    }
}

/// How a todo repeats: its RRULE text and whether the next occurrence counts from completion.
public struct RepeatSetting: Sendable, Hashable {
    /// The RRULE text (`FREQ=WEEKLY;BYDAY=MO`).
    public var rrule: String
    /// Whether the next occurrence counts from when this one was completed.
    public var fromCompletion: Bool

    /// A repeat.
    public init(rrule: String, fromCompletion: Bool = false) {
        self.rrule = rrule
        self.fromCompletion = fromCompletion
    }
}
