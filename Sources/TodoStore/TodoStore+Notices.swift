import Foundation
import SQLiteDB

extension TodoStore {
    /// The `sync_state` key of the recent notices (one JSON document per line, newest last).
    static let recentNoticesKey = "recentNotices"

    /// Appends notices (opaque lines, one each) to the kept ones, keeping the newest `keeping`.
    public func appendNotices(_ lines: [String], keeping limit: Int) throws {
        try write { db in
            let kept = try db.first("SELECT value FROM sync_state WHERE key = ?1", [.text(Self.recentNoticesKey)]) { $0.text(0) }
            var all = (kept ?? "").split(separator: "\n").map(String.init)
            all += lines.map { $0.replacingOccurrences(of: "\n", with: " ") }
            if all.count > limit { all.removeFirst(all.count - limit) }
            try Self.setState(Self.recentNoticesKey, all.joined(separator: "\n"), db: db)
        }
    }

    /// The kept notices, oldest first.
    public func recentNotices() throws -> [String] {
        try read { db in
            let kept = try db.first("SELECT value FROM sync_state WHERE key = ?1", [.text(Self.recentNoticesKey)]) { $0.text(0) }
            return (kept ?? "").split(separator: "\n").map(String.init)
        }
    }
}
