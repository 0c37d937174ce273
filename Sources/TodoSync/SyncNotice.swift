import Foundation
import TodoStore

/// Something the sync engine did to the user's data on its own, which the user must be told about (the app shows it
/// as a message, `todo sync` prints it, `todo status` lists the recent ones).
public struct SyncNotice: Sendable, Hashable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A local edit the cloud refused for good (access lowered or removed meanwhile) was undone here.
        case reverted
        /// The user deleted their data on another device; this device's copy went too.
        case dataDeleted
    }

    /// Increasing within one engine, so a reader shows each notice once.
    public var sequence: Int
    /// What happened.
    public var kind: Kind
    /// Words for the user, naming the record and the reason.
    public var text: String
    /// When it happened (ms since 1970).
    public var time: Int64

    /// A notice; the engine numbers and stamps it when it reports it.
    public init(_ kind: Kind, _ text: String, sequence: Int = 0, time: Int64 = 0) {
        self.kind = kind
        self.text = text
        self.sequence = sequence
        self.time = time
    }
}

/// The notices the engine reported: kept for readers (each shows a notice once), and written to the cache at the end of
/// each pass so `todo status` lists them later. Confined to the engine's actor.
final class NoticeLog {
    /// How many notices a snapshot carries (the newest).
    static let kept = 20

    /// The newest notices, oldest first.
    private(set) var notices: [SyncNotice] = []
    private var sequence = 0
    /// Notices not yet written to the cache.
    private var pendingLines: [String] = []
    /// Words for the user that outlive the pass that produced them: made the pass's last error at its end.
    private var words: String?

    /// Tells the user about `notice`, numbered and stamped at `time`.
    func report(_ notice: SyncNotice, at time: Int64) {
        var numbered = notice
        sequence += 1
        numbered.sequence = sequence
        numbered.time = time
        notices.append(numbered)
        if notices.count > Self.kept { notices.removeFirst(notices.count - Self.kept) }
        words = numbered.text
        if let data = try? JSONEncoder().encode(numbered), let line = String(data: data, encoding: .utf8) {
            pendingLines.append(line)
        }
    }

    /// The words of the last notice reported since the last call.
    func takeWords() -> String? {
        defer { words = nil }
        return words
    }

    /// Writes the notices reported since the last call to the cache (done at the end of each pass).
    nonisolated(nonsending) func persist(_ store: TodoStore) async {
        guard !pendingLines.isEmpty else { return }
        let lines = pendingLines
        pendingLines.removeAll()
        try? await store.appendNotices(lines, keeping: Self.kept)
    }

    /// The notices a cache kept, newest last (also from earlier runs and other processes).
    static func recent(in store: TodoStore) async -> [SyncNotice] {
        let lines = (try? await store.recentNotices()) ?? []
        return lines.compactMap { try? JSONDecoder().decode(SyncNotice.self, from: Data($0.utf8)) }
    }
}
