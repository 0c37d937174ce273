import CloudModel
import Foundation
import SQLiteDB

/// One change of a record as this device applied it: which fields changed to what, when, from which device.
public struct HistoryEntry: Sendable, Hashable {
    /// When the change was made (the editing device's stamp when known, else when it was applied here), ms since 1970.
    public var at: Int64
    /// The device that made it (its ID as the cloud stamps it); nil when made on this device.
    public var device: String?
    /// Whether it came from the cloud (another device, or this one's earlier session) rather than a local edit.
    public var fromCloud: Bool
    /// The changed fields with their new values in words (`title: 'Milk'`), in field-name order.
    public var changes: [String]
}

/// The local history behind `todo info`: a bounded table written in the same transaction as the change it records.
///
/// Bounded twice: at most `perRecord` entries per record (the oldest go) and `total` in all (the oldest go), so a
/// busy shared list cannot grow the cache without end. A first fetch into a zone this device holds nothing of writes none: it is
/// the whole zone arriving into an empty cache, not a change, and 100,000 rows there would cost a read each.
extension TodoStore {
    /// The most entries kept per record.
    public static let historyPerRecord = 50
    /// The most entries kept in all.
    public static let historyTotal = 20_000

    /// Records the difference between `old` and `new` (nothing when no known field changed).
    static func recordHistory(old: TodoItem?, new: TodoItem, at: Int64, device: String?, fromCloud: Bool, db: SQLiteDatabase) throws {
        let changes = historyChanges(old: old?.fields, new: new.fields, isNew: old == nil)
        guard !changes.isEmpty else { return }
        try db.run(
            """
            INSERT INTO history (scope, zone_owner, zone_name, record_name, at, device, from_cloud, changes)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """, keyArguments(new.key) + [.int(at), device.map(SQLValue.text) ?? .null, .int(fromCloud ? 1 : 0), .text(changes.joined(separator: "\n"))])
        try db.run(
            """
            DELETE FROM history WHERE \(keyWhere) AND id NOT IN
                (SELECT id FROM history WHERE \(keyWhere) ORDER BY id DESC LIMIT \(historyPerRecord))
            """, keyArguments(new.key))
        try db.run("DELETE FROM history WHERE id <= (SELECT MAX(id) FROM history) - \(historyTotal)")
    }

    /// The changed known fields as `name: value` lines (`created` first for a record new to this device).
    static func historyChanges(old: [String: FieldValue]?, new: [String: FieldValue], isNew: Bool) -> [String] {
        let names = TodoItem.Field.all.filter { (old?[$0] ?? nil) != new[$0] }.sorted()
        var lines = isNew ? ["created"] : []
        for name in names where !(isNew && new[name] == nil) {
            lines.append("\(name): " + (new[name].map(historyWords) ?? "none"))
        }
        return lines
    }

    /// A value in a few words: strings quoted and cut at 60 characters, times in UTC, lists joined.
    static func historyWords(_ value: FieldValue) -> String {
        switch value {
        case .string(let text): return "'" + (text.count > 60 ? String(text.prefix(59)) + "…" : text) + "'"
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .timestamp:
            // Foundation's value-type ISO 8601 style: the `ISO8601DateFormatter` made here before built ICU date
            // symbols for each time of each record an initial download wrote history for (100,000 todos: 14 s).
            return value.dateValue.map { $0.formatted(.iso8601) } ?? "?"
        case .reference(let reference): return reference.recordName
        case .list(_, let items): return items.map { $0.stringValue ?? historyWords($0) }.joined(separator: ", ")
        case .bytes, .unknown: return "(data)"
        }
    }

    /// The history of one record, newest first.
    public func history(of key: RecordKey) throws -> [HistoryEntry] {
        try read { db in
            try db.query(
                "SELECT at, device, from_cloud, changes FROM history WHERE \(Self.keyWhere) ORDER BY id DESC", Self.keyArguments(key)
            ) { row in
                HistoryEntry(
                    at: row.int(0), device: row.optionalText(1), fromCloud: row.int(2) != 0,
                    changes: row.text(3).split(separator: "\n").map(String.init))
            }
        }
    }
}
