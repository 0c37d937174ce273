import CloudModel

/// Who edited a version and when, to order concurrent edits the same way on every device.
public struct EditStamp: Sendable, Hashable, Comparable {
    /// Milliseconds since 1970.
    public var timestamp: Int64
    public var deviceID: String

    /// An edit at a time on a device.
    public init(timestamp: Int64, deviceID: String) {
        self.timestamp = timestamp
        self.deviceID = deviceID
    }

    public static func < (lhs: EditStamp, rhs: EditStamp) -> Bool {
        (lhs.timestamp, lhs.deviceID) < (rhs.timestamp, rhs.deviceID)
    }
}

/// The field-by-field three-way merge of a conflicting save; a pure function.
public enum ConflictMerge {
    /// Merges `local` and `server` against `base` (the version the local edit started from; nil for a new record).
    ///
    /// A field changed on one side only takes that side; a field changed on both sides takes the later edit
    /// (by timestamp, ties broken by device ID), so every device decides alike. Missing means "no value".
    public static func merge(
        base: [String: FieldValue]?, local: [String: FieldValue], localEdit: EditStamp,
        server: [String: FieldValue], serverEdit: EditStamp
    ) -> [String: FieldValue] {
        let localWinsTies = serverEdit < localEdit
        var merged: [String: FieldValue] = [:]
        for name in Set(local.keys).union(server.keys) {
            let l = local[name]
            let s = server[name]
            let chosen: FieldValue?
            if l == s {
                chosen = l
            } else {
                let b = base?[name]
                let localChanged = base == nil || l != b
                let serverChanged = base == nil || s != b
                switch (localChanged, serverChanged) {
                case (true, false): chosen = l
                case (false, true): chosen = s
                default: chosen = localWinsTies ? l : s
                }
            }
            if let chosen { merged[name] = chosen }
        }
        return merged
    }
}
