import CloudModel
import Foundation

/// When an edit was made and by which device: a hybrid logical clock reading in the cloud's time.
///
/// Ordered by time, then counter (edits within one millisecond, or after seeing a later one), then device ID, so every
/// device orders any two edits alike.
public struct EditStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970, in the cloud's time (the device's clock corrected by its measured offset).
    public var timestamp: Int64
    /// Breaks ties within one millisecond on one device.
    public var counter: Int64
    /// The cloud's ID of the device that made the edit.
    public var deviceID: String

    /// An edit at a time on a device.
    public init(timestamp: Int64, counter: Int64 = 0, deviceID: String) {
        self.timestamp = timestamp
        self.counter = counter
        self.deviceID = deviceID
    }

    public static func < (lhs: EditStamp, rhs: EditStamp) -> Bool {
        if lhs.timestamp != rhs.timestamp { return lhs.timestamp < rhs.timestamp }
        if lhs.counter != rhs.counter { return lhs.counter < rhs.counter }
        return lhs.deviceID < rhs.deviceID
    }

    public var description: String { "\(timestamp).\(counter)@\(deviceID)" }
}

/// The stamp of each field's last edit, as the record carries it in its `editStamps` STRING field.
///
/// Wire form: `field=timestamp,counter,deviceID` entries joined by `;`; the field `*` stands for every field not
/// named (a new record is one stamp). Unreadable entries are ignored: the record is someone else's text.
public struct FieldStamps: Sendable, Hashable {
    /// Stamps by field name (`*`: every other field).
    public var byField: [String: EditStamp]

    /// The record field that carries the stamps.
    public static let fieldName = "editStamps"
    /// The key standing for every field not named.
    public static let everyField = "*"
    /// Longest wire text read (a hostile record cannot make a device parse megabytes).
    static let maximumLength = 16_384

    /// Stamps by field.
    public init(_ byField: [String: EditStamp] = [:]) { self.byField = byField }

    /// Parses the wire text; nil or unreadable text gives no stamps.
    public init(wire: String?) {
        byField = [:]
        guard let wire, wire.utf8.count <= Self.maximumLength else { return }
        for entry in wire.split(separator: ";") {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            let name = String(entry[..<equals])
            let parts = entry[entry.index(after: equals)...].split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
            guard !name.isEmpty, parts.count == 3, let time = Int64(parts[0]), let counter = Int64(parts[1]), counter >= 0 else { continue }
            byField[name] = EditStamp(timestamp: time, counter: counter, deviceID: String(parts[2]))
        }
    }

    /// The wire text (entries sorted by field, so equal stamps give equal text); nil when empty.
    public var wire: String? {
        guard !byField.isEmpty else { return nil }
        // Written into one string: entries made one by one and joined cost 5,700 instructions a new todo of an import.
        var text = ""
        text.reserveCapacity(byField.count * 56)
        for (index, entry) in byField.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { text += ";" }
            text += entry.key
            text += "="
            text += String(entry.value.timestamp)
            text += ","
            text += String(entry.value.counter)
            text += ","
            // A device ID without ";" (every one this app makes) is written as it is, not walked character by character.
            let device = entry.value.deviceID
            text += device.utf8.contains(UInt8(ascii: ";")) ? device.filter { $0 != ";" } : device
        }
        return text
    }

    /// The stamp of one field's last edit (its own, else the record's `*`), nil when unknown.
    public subscript(field: String) -> EditStamp? { byField[field] ?? byField[Self.everyField] }

    /// The latest stamp of any field.
    public var latest: EditStamp? { byField.values.max() }

    /// Sets `stamp` on each of `fields`.
    public mutating func stamp<S: Sequence>(_ fields: S, with stamp: EditStamp) where S.Element == String {
        for field in fields { byField[field] = stamp }
    }

    /// The stamps no later than `limit` (the cloud's time when it stored them): a wrong clock cannot win forever.
    public func bounded(by limit: Int64?) -> FieldStamps {
        guard let limit else { return self }
        var copy = self
        for (name, stamp) in byField where stamp.timestamp > limit {
            copy.byField[name] = EditStamp(timestamp: limit, counter: stamp.counter, deviceID: stamp.deviceID)
        }
        return copy
    }
}

/// A value that lost a conflict, kept with the record (its `lostEdits` STRING field) so every device can show it and
/// the side that lost can restore it.
public struct LostEdit: Sendable, Hashable, Codable {
    /// Identifies this loss (the record, the field and the losing stamp).
    public var id: String
    /// The field; `isTrashed` when a trash lost to a later edit (value 1) or an edit lost to a later trash (value 0).
    public var field: String
    /// The value that lost (nil: the field had no value).
    public var lost: FieldValue?
    /// The value that won.
    public var won: FieldValue?
    /// When the losing edit was made, and on which device.
    public var lostAt: Int64
    public var lostBy: String
    /// When the winning edit was made, and on which device.
    public var wonAt: Int64
    public var wonBy: String
    /// Set once the value was restored or dismissed: listed no more, still kept so no merge brings it back.
    public var resolved: Bool?

    /// A lost value.
    public init(field: String, lost: FieldValue?, won: FieldValue?, loser: EditStamp, winner: EditStamp, recordName: String) {
        self.field = field
        self.lost = lost
        self.won = won
        lostAt = loser.timestamp
        lostBy = loser.deviceID
        wonAt = winner.timestamp
        wonBy = winner.deviceID
        // The last eight characters as written by every version (the id travels with the record; it must not change).
        id = "\(recordName.suffix(8))-\(field)-\(loser.timestamp)-\(loser.counter)-\(loser.deviceID)"
    }

    /// The record field that carries the losses.
    public static let fieldName = "lostEdits"
    /// How many losses a record keeps (the newest).
    public static let kept = 8

    /// Whether it still waits for the losing side (not restored or dismissed).
    public var isOpen: Bool { resolved != true }

    /// The losses of two versions, once each (resolved when either version resolved it).
    public static func union(_ first: [LostEdit], _ second: [LostEdit]) -> [LostEdit] {
        var result = first
        for edit in second {
            if let index = result.firstIndex(where: { $0.id == edit.id }) {
                if !edit.isOpen { result[index].resolved = true }
            } else {
                result.append(edit)
            }
        }
        return result
    }

    /// Parses the wire text; nil or unreadable text gives none.
    public static func decode(_ wire: String?) -> [LostEdit] {
        guard let wire, wire.utf8.count <= FieldStamps.maximumLength,
            let edits = try? JSONDecoder().decode([LostEdit].self, from: Data(wire.utf8))
        else { return [] }
        return edits
    }

    /// The wire text of `edits` (the newest `kept`, oldest first); nil when none.
    public static func encode(_ edits: [LostEdit]) -> String? {
        guard !edits.isEmpty else { return nil }
        var unique = union([], edits)
        unique.sort { ($0.wonAt, $0.id) < ($1.wonAt, $1.id) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Array(unique.suffix(kept))) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
