import ArgumentParser
import CloudModel
import CommandLineSupport
import Foundation
import TodoPlanning
import TodoStore
import TodoSync

// `todo undo`: the changes made from this device's command line are remembered, newest last, each with what takes it
// back, in a file beside the device's cache; `todo undo` takes back the newest, as the app's u does for its own.

/// The fields an edit or a trash may change, as they were before: what puts them back.
struct KeptFields: Codable, Equatable {
    var title: String
    var notes: String
    var due: Double?
    var allDay: Bool
    var priority: Int
    var tags: [String]
    var repeatRule: String?
    var repeatFromCompletion: Bool
    // Optional: journals written before these fields read back without them (and leave them as they are).
    var wait: Double?
    var scheduled: Double?
    var until: Double?
    var start: Double?
    var depends: [String]?

    init(_ item: TodoItem) {
        wait = item.wait?.timeIntervalSince1970
        scheduled = item.scheduled?.timeIntervalSince1970
        until = item.until?.timeIntervalSince1970
        start = item.start?.timeIntervalSince1970
        depends = item.depends
        title = item.title
        notes = item.notes
        due = item.due?.date.timeIntervalSince1970
        allDay = item.due?.allDay ?? false
        priority = item.priority
        tags = item.tags
        repeatRule = item.repeatRule
        repeatFromCompletion = item.repeatFromCompletion
    }

    var dueDate: DueDate? { due.map { DueDate(Date(timeIntervalSince1970: $0), allDay: allDay) } }
    var repeating: RepeatSetting? { repeatRule.map { RepeatSetting(rrule: $0, fromCompletion: repeatFromCompletion) } }

    /// The edit that sets every kept field back.
    var edit: TodoEdit {
        func moment(_ seconds: Double?) -> Date? { seconds.map { Date(timeIntervalSince1970: $0) } }
        var edit = TodoEdit(title: title, notes: notes, due: .some(dueDate), priority: priority, tags: tags, repeatRule: .some(repeating))
        if depends != nil {
            (edit.wait, edit.scheduled, edit.until, edit.start) = (.some(moment(wait)), .some(moment(scheduled)), .some(moment(until)), .some(moment(start)))
        }
        edit.dependsList = depends
        return edit
    }
}

/// One step that takes a change back.
enum UndoStep: Codable, Equatable {
    /// Mark done (true) or not done again (a completion's next occurrence goes with it).
    case setCompleted(RecordKey, Bool)
    /// Put the fields back.
    case restore(RecordKey, KeptFields)
    /// Take it out of the trash (made again from its fields when it was never sent and so is gone).
    case untrash(RecordKey, KeptFields)
    /// Trash it (an add taken back).
    case trash(RecordKey)
    /// Take a skip back.
    case unskip(RecordKey)
    /// Move it back (nil: out of any list).
    case move(RecordKey, RecordKey?)
    /// Cannot be taken back (an annotation is only ever added); the words say why.
    case none(String)
}

/// A change made from the command line: what it did, in words, and the steps that take it back.
struct UndoEntry: Codable, Equatable {
    var label: String
    var steps: [UndoStep]
}

/// The remembered changes of one device (account and device), newest last, at most `limit`.
struct UndoJournal {
    /// How many changes are remembered.
    static let limit = 50
    let file: URL

    init(_ options: DeviceOptions) {
        file = URL(fileURLWithPath: options.cacheFile.path + ".undo.json")
    }

    /// The remembered changes; none when the file is missing or unreadable (it is ours, but a disk can lie).
    func entries() -> [UndoEntry] {
        guard let data = try? Data(contentsOf: file), data.count <= 4 * 1024 * 1024 else { return [] }
        return (try? JSONDecoder().decode([UndoEntry].self, from: data)) ?? []
    }

    /// Remembers a change (best effort: a journal that cannot be written only loses the undo).
    func record(_ entry: UndoEntry) {
        guard !entry.steps.isEmpty else { return }
        save((entries() + [entry]).suffix(Self.limit))
    }

    /// Forgets and returns the newest change.
    func pop() -> UndoEntry? {
        var all = entries()
        guard let last = all.popLast() else { return nil }
        save(all[...])
        return last
    }

    private func save(_ entries: ArraySlice<UndoEntry>) {
        guard let data = try? JSONEncoder().encode(Array(entries)) else { return }
        try? data.write(to: file, options: .atomic)
    }
}

extension UndoStep {
    /// Takes the step's change back through the engine.
    func apply(_ session: DeviceSession) async throws {
        let engine = session.engine
        switch self {
        case .setCompleted(let key, let done):
            _ = try await engine.setCompleted(key, done)
        case .restore(let key, let fields):
            _ = try await engine.edit(key, fields.edit)
        case .untrash(let key, let fields):
            if try await engine.todo(key) != nil {
                _ = try await engine.untrash(key)
            } else {
                // Never sent, so deleted outright: made again under its own name.
                _ = try await engine.add(
                    title: fields.title, notes: fields.notes, due: fields.dueDate, priority: fields.priority, tags: fields.tags,
                    repeat: fields.repeating, to: key.scope, recordName: key.recordName)
            }
        case .trash(let key):
            if case .refuse(let reason) = try await engine.trash(key) { throw DeviceCommandError("cannot take the add back: \(reason)") }
        case .unskip(let key):
            _ = try await engine.unskip(key)
        case .move(let key, let list):
            _ = try await engine.move(key, toList: list)
        case .none(let why):
            throw DeviceCommandError(why)
        }
    }
}

/// `todo undo`: takes back the newest change made from this device's command line.
struct Undo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo", abstract: "Take back the last change made from this device's command line (as u does in the app).")

    @OptionGroup var device: DeviceOptionGroup

    @OptionGroup var output: QuietOption

    func run() async throws {
        try await device.withSession { session in
            let journal = UndoJournal(session.options)
            guard let entry = journal.pop() else {
                throw DeviceCommandError("nothing to undo: no change made from this device's command line is remembered")
            }
            for step in entry.steps.reversed() { try await step.apply(session) }
            output.say("Undid: \(entry.label)")
            try await sendAndReport(session)
        }
    }
}

extension DeviceSession {
    /// Remembers a change this command made, for `todo undo`.
    func remember(_ label: String, _ steps: [UndoStep]) {
        UndoJournal(options).record(UndoEntry(label: label, steps: steps))
    }
}
