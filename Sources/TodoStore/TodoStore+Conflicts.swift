import CloudModel
import Foundation
import SQLiteDB

/// Values that lost conflicts, as the records keep them, and which of them this device already announced.
extension TodoStore {
    /// The records that keep values which lost a conflict (trashed ones included).
    public func recordsWithLostEdits() throws -> [TodoItem] {
        try read { db in
            try db.query("SELECT \(Self.recordColumns) FROM records INDEXED BY records_lost WHERE lost_edits IS NOT NULL") {
                try Self.item(from: $0)
            }
        }
    }

    /// Which of `ids` this device announced already.
    public func announcedLosses(among ids: [String]) throws -> Set<String> {
        try read { db in
            var announced: Set<String> = []
            for id in ids where try db.first("SELECT 1 FROM announced_losses WHERE id = ?1", [.text(id)], { $0.int(0) }) != nil {
                announced.insert(id)
            }
            return announced
        }
    }

    /// Notes that these losses were shown to the user.
    public func markLossesAnnounced(_ ids: [String], at now: Int64) throws {
        guard !ids.isEmpty else { return }
        try write { db in
            for id in ids {
                try db.run("INSERT INTO announced_losses (id, announced_at) VALUES (?1, ?2) ON CONFLICT (id) DO NOTHING", [.text(id), .int(now)])
            }
        }
    }

    /// A value the sync engine keeps between runs under `key` (the edit clock, the cloud clock's offset).
    public func keptValue(_ key: String) throws -> String? {
        try read { db in try db.first("SELECT value FROM sync_state WHERE key = ?1", [.text("kept." + key)]) { $0.text(0) } }
    }

    /// Keeps (or, nil, forgets) values by key, in one transaction that does not wait for the disk: a power cut can
    /// only make the next run start from older values (see `writeRepeatable`).
    public func keep(_ values: [String: String?]) throws {
        try writeRepeatable { db in
            for (key, value) in values { try Self.setState("kept." + key, value, db: db) }
        }
    }
}
