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

extension SyncEngine {
    /// How many notices a snapshot carries (the newest).
    static let keptNotices = 20

    /// Tells the user about `notice`: kept for readers (each shows it once), made the pass's last error, and written to
    /// the cache so `todo status` lists it later.
    func report(_ notice: SyncNotice) {
        var numbered = notice
        noticeSequence += 1
        numbered.sequence = noticeSequence
        numbered.time = clock.nowMilliseconds()
        notices.append(numbered)
        if notices.count > Self.keptNotices { notices.removeFirst(notices.count - Self.keptNotices) }
        self.notice = numbered.text
        if let data = try? JSONEncoder().encode(numbered), let line = String(data: data, encoding: .utf8) {
            pendingNoticeLines.append(line)
        }
    }

    /// Writes the notices reported since the last call to the cache (done at the end of each pass).
    func persistNotices() async {
        guard !pendingNoticeLines.isEmpty else { return }
        let lines = pendingNoticeLines
        pendingNoticeLines.removeAll()
        try? await store.appendNotices(lines, keeping: Self.keptNotices)
    }

    /// The notices this cache kept, newest last (also from earlier runs and other processes).
    public func recentNotices() async -> [SyncNotice] {
        let lines = (try? await store.recentNotices()) ?? []
        return lines.compactMap { try? JSONDecoder().decode(SyncNotice.self, from: Data($0.utf8)) }
    }
}
