import CloudModel
import TodoStore

/// The field-by-field merge of two versions of a record by when each field was edited; a pure function.
///
/// Each field takes the side that changed it; a field changed on both sides takes the later edit by its stamp (time
/// in the cloud's clock, counter, device ID), so every device decides alike whatever order they sync in, and the
/// losing value is kept in the record's `lostEdits`. Trash versus edit: the later action wins — a trash made after
/// the other side's latest edit stands, an edit made after a trash takes the record out of the trash — and the
/// action that lost is kept the same way. Set fields (tags, annotations) merge by element: what either side added is
/// kept, what either side removed goes, and nothing is lost.
public enum ConflictMerge {
    /// One side of a merge: its fields (with their `editStamps` and `lostEdits`) and the stamp of fields it has none for.
    public struct Side: Sendable, Hashable {
        public var fields: [String: FieldValue]
        public var stamps: FieldStamps
        /// The stamp of a field without one (a record from an older device: when it was saved).
        public var fallback: EditStamp

        /// A side whose stamps are read from its fields, no later than `bound` (the cloud's time of storing it).
        public init(fields: [String: FieldValue], fallback: EditStamp, bound: Int64? = nil) {
            self.fields = fields
            self.stamps = FieldStamps(wire: fields[FieldStamps.fieldName]?.stringValue).bounded(by: bound)
            self.fallback = bound.map { EditStamp(timestamp: min(fallback.timestamp, $0), counter: fallback.counter, deviceID: fallback.deviceID) } ?? fallback
        }

        func stamp(_ field: String) -> EditStamp { stamps[field] ?? fallback }
    }

    /// What a merge decided: the fields to keep (stamps and kept losses included) and the losses it found.
    public struct Outcome: Sendable, Hashable {
        public var fields: [String: FieldValue]
        public var lost: [LostEdit]
    }

    static let metaFields: Set<String> = [FieldStamps.fieldName, LostEdit.fieldName]

    /// Merges `local` and `server` against `base` (the version the local edit started from; nil for a record new to the
    /// server, when every difference is decided by the stamps).
    public static func merge(base: [String: FieldValue]?, local: Side, server: Side, recordName: String) -> Outcome {
        var merged: [String: FieldValue] = [:]
        var stamps = FieldStamps()
        var lost: [LostEdit] = []
        var names = Set(local.fields.keys).union(server.fields.keys)
        names.formUnion(local.stamps.byField.keys)
        names.formUnion(server.stamps.byField.keys)
        names.subtract(metaFields)
        names.remove(FieldStamps.everyField)
        let baseStamps = FieldStamps(wire: base?[FieldStamps.fieldName]?.stringValue)
        /// A side's stamp of a field; a value changed under the base's stamp was changed by a device that keeps
        /// stamps without writing them (an older version): its edit counts as made when its version was saved.
        func stamp(_ side: Side, _ name: String) -> EditStamp {
            let stamp = side.stamp(name)
            guard let base, side.fields[name] != base[name], let before = baseStamps[name], stamp == before else { return stamp }
            return max(stamp, side.fallback)
        }
        for name in names {
            let l = local.fields[name]
            let s = server.fields[name]
            let ls = stamp(local, name)
            let ss = stamp(server, name)
            if TodoItem.Field.sets.contains(name) {
                if let value = mergeSet(base: base.map { $0[name] }, local: l, server: s) { merged[name] = value }
                stamps.byField[name] = max(ls, ss)
                continue
            }
            let takeLocal: Bool
            if l == s {
                takeLocal = ss < ls
            } else {
                let b = base?[name]
                let localChanged = base == nil || l != b
                let serverChanged = base == nil || s != b
                switch (localChanged, serverChanged) {
                case (true, false): takeLocal = true
                case (false, true): takeLocal = false
                default:
                    takeLocal = ss < ls
                    let (loser, winner) = takeLocal ? (ss, ls) : (ls, ss)
                    lost.append(LostEdit(field: name, lost: takeLocal ? s : l, won: takeLocal ? l : s, loser: loser, winner: winner, recordName: recordName))
                }
            }
            if let value = takeLocal ? l : s { merged[name] = value }
            stamps.byField[name] = takeLocal ? ls : ss
        }
        if let base { decideTrash(base: base, local: local, server: server, recordName: recordName, &merged, &stamps, &lost) }
        merged[FieldStamps.fieldName] = stamps.wire.map(FieldValue.string)
        let kept = LostEdit.union(LostEdit.decode(local.fields[LostEdit.fieldName]?.stringValue), LostEdit.decode(server.fields[LostEdit.fieldName]?.stringValue))
        merged[LostEdit.fieldName] = LostEdit.encode(kept + lost).map(FieldValue.string)
        return Outcome(fields: merged, lost: lost)
    }

    /// A set field merged by element against its base value (`.some(nil)`: the base had none; nil: no base, when
    /// both sides' elements are kept). Elements keep the server's order, then the local additions in theirs.
    public static func mergeSet(base: FieldValue??, local: FieldValue?, server: FieldValue?) -> FieldValue? {
        func elements(_ value: FieldValue?) -> [String] {
            guard case .list(_, let items) = value else { return value?.stringValue.map { [$0] } ?? [] }
            return items.compactMap(\.stringValue)
        }
        let localElements = elements(local)
        let serverElements = elements(server)
        let localSet = Set(localElements)
        let serverSet = Set(serverElements)
        var result: [String]
        if let base {
            let baseSet = Set(elements(base))
            // Kept: on both sides, or added (not in the base) on one; an element of the base one side removed goes.
            result = serverElements.filter { localSet.contains($0) || !baseSet.contains($0) }
            result += localElements.filter { !serverSet.contains($0) && !baseSet.contains($0) }
        } else {
            result = serverElements + localElements.filter { !serverSet.contains($0) }
        }
        result = TodoItem.distinct(result)
        return result.isEmpty ? nil : .list(.string, result.map(FieldValue.string))
    }

    /// Trash on one side, edits on the other: the later action wins.
    private static func decideTrash(
        base: [String: FieldValue], local: Side, server: Side, recordName: String, _ merged: inout [String: FieldValue],
        _ stamps: inout FieldStamps, _ lost: inout [LostEdit]
    ) {
        let trash = TodoItem.Field.isTrashed
        func trashed(_ fields: [String: FieldValue]) -> Bool { fields[trash]?.intValue == 1 }
        let localTrashes = trashed(local.fields) && !trashed(base)
        let serverTrashes = trashed(server.fields) && !trashed(base)
        guard localTrashes != serverTrashes else { return }
        let (trasher, editor) = localTrashes ? (local, server) : (server, local)
        // The editor's latest edit of any other field it changed.
        let edited = editor.fields.keys.filter { !metaFields.contains($0) && $0 != trash && editor.fields[$0] != base[$0] }
            + base.keys.filter { !metaFields.contains($0) && $0 != trash && editor.fields[$0] == nil }
        guard let lastEdit = edited.map(editor.stamp).max() else { return }
        let trashedAt = trasher.stamp(trash)
        if trashedAt < lastEdit {
            merged[trash] = .int64(0)
            stamps.byField[trash] = lastEdit
            lost.append(LostEdit(field: trash, lost: .int64(1), won: .int64(0), loser: trashedAt, winner: lastEdit, recordName: recordName))
        } else {
            merged[trash] = .int64(1)
            stamps.byField[trash] = trashedAt
            lost.append(LostEdit(field: trash, lost: .int64(0), won: .int64(1), loser: lastEdit, winner: trashedAt, recordName: recordName))
        }
    }
}

extension FieldValue {
    /// The integer of an INT64 value.
    var intValue: Int64? { if case .int64(let value) = self { value } else { nil } }
}

extension ConflictMerge {
    /// The merge the store runs on a conflicting save: `merge` by the fields' edit stamps, the server's no later than
    /// the cloud stored them (fields without a stamp count as edited when their version was saved).
    static func fieldMerge(deviceID: String) -> FieldMerge {
        return { base, local, server in
            let stored = server.modified?.timestamp
            return merge(
                base: base,
                local: Side(fields: local.fields, fallback: EditStamp(timestamp: local.localEditedAt ?? 0, deviceID: deviceID)),
                server: Side(
                    fields: server.fields ?? [:], fallback: EditStamp(timestamp: stored ?? 0, deviceID: server.modified?.deviceID ?? ""),
                    bound: stored),
                recordName: local.key.recordName
            ).fields
        }
    }
}
