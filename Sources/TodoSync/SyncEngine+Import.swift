import CloudModel
import Foundation
import TodoStore

/// The fields of a todo to add in bulk (an import); the engine names it.
public struct NewTodo: Sendable, Hashable {
    public var title: String
    public var notes: String
    public var dueDate: Date?
    /// 0 (none) to 3 (high); clamped.
    public var priority: Int
    public var isCompleted: Bool

    /// A todo to add.
    public init(title: String, notes: String = "", dueDate: Date? = nil, priority: Int = 0, isCompleted: Bool = false) {
        self.title = title
        self.notes = notes
        self.dueDate = dueDate
        self.priority = priority
        self.isCompleted = isCompleted
    }
}

extension SyncEngine {
    /// Adds many todos to the private `Todos` zone: stored and queued in ONE transaction (all or none), then shown;
    /// sent in the background when the engine sends automatically, else by the next `sync`. Answers the keys, in
    /// the order given. `progress` hears how many are stored so far.
    @discardableResult
    public func addTodos(_ todos: [NewTodo], progress: (@Sendable (Int) -> Void)? = nil) async throws -> [RecordKey] {
        guard permissionContext.isSignedIn else { throw SyncEngineError.refused("signed out: sign in to add todos") }
        guard !todos.isEmpty else { return [] }
        var items: [TodoItem] = []
        items.reserveCapacity(todos.count)
        for (todo, name) in zip(todos, RecordNames.ascending(todos.count)) {
            // Stamped like a todo added by hand, so an edit made elsewhere later is ordered after the import's values.
            items.append(
                stamped(
                    TodoItem(
                        key: .privateTodo(name), title: todo.title, notes: todo.notes, isCompleted: todo.isCompleted,
                        dueDate: todo.dueDate, priority: min(max(todo.priority, 0), 3)),
                    from: nil))
        }
        let keys = items.map(\.key)
        try await store.addLocalRecords(consume items, at: clock.nowMilliseconds(), progress: progress)
        // Many records at once: readers and the snapshot read everything again rather than key by key.
        invalidateAll()
        try? await reloadCounts()
        publish()
        if configuration.sendsAutomatically && connection == .online { requestSync(.localEdit) }
        return keys
    }
}

/// Fresh record names for many records at once.
enum RecordNames {
    /// `count` random (version 4) UUIDs, lowercased, in ascending order.
    ///
    /// Random, so each is as unique and its first characters (the command line's short IDs) as distinct as any
    /// other todo's; ascending, so the records given them in order go into the cache's B-trees in key order. The
    /// store then fills page after page instead of touching every page of the table again and again, which made a
    /// large import spill its page cache to disk over and over. It also keeps the outbox (and the upload) in the
    /// order given.
    static func ascending(_ count: Int) -> [String] {
        // The system's random bytes for all of them in one read (the standard generator makes a system call per
        // word); the standard generator if the device cannot be read.
        var random = [UInt64](repeating: 0, count: 2 * count)
        let bytes = FileHandle(forReadingAtPath: "/dev/urandom").flatMap { try? $0.read(upToCount: 16 * count) } ?? Data()
        if bytes.count == 16 * count {
            random.withUnsafeMutableBytes { _ = bytes.copyBytes(to: $0) }
        } else {
            var generator = SystemRandomNumberGenerator()
            for index in random.indices { random[index] = generator.next() }
        }
        var values: [(UInt64, UInt64)] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            // Version 4 (random) in bits 48-51, the RFC 4122 variant in the top bits of the second half.
            let high = (random[2 * index] & ~0xF000) | 0x4000
            let low = (random[2 * index + 1] & ~(0xC << 60)) | (0x8 << 60)
            values.append((high, low))
        }
        values.sort { $0 < $1 }
        return values.map(format)
    }

    /// `8-4-4-4-12` lowercase hexadecimal.
    static func format(_ value: (UInt64, UInt64)) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            func put(_ word: UInt64, nibbles: ClosedRange<Int>) {
                for nibble in nibbles.reversed() {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = digits[Int((word >> UInt64(nibble * 4)) & 0xF)]
                    index += 1
                }
            }
            put(value.0, nibbles: 0...15)
            put(value.1, nibbles: 0...15)
            return 36
        }
    }
}

