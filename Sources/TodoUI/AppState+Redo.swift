// `U` redoes what `u` undid. An undo's effects are turned around against the rows as they were before it, so a redo
// is again an undo step's worth of effects; and the redo, turned around the same way, is what `u` undoes next.
extension AppState {
    /// Undoes the newest undo step and keeps its reverse for `U`.
    mutating func undoKeepingRedo() -> [Effect] {
        turnAround(from: \.undoStack, onto: \.redoStack, nothing: "Nothing to undo.", done: "Undid")
    }

    /// Redoes what the newest undo took back; `u` undoes it again.
    mutating func redo() -> [Effect] {
        turnAround(from: \.redoStack, onto: \.undoStack, nothing: "Nothing to redo.", done: "Redid")
    }

    /// Takes the newest step off `source`, performs it, and keeps its reverse on `target`.
    private mutating func turnAround(
        from source: WritableKeyPath<AppState, [UndoEntry]>, onto target: WritableKeyPath<AppState, [UndoEntry]>, nothing: String,
        done: String
    ) -> [Effect] {
        guard let entry = self[keyPath: source].popLast() else {
            message = StatusMessage(nothing)
            return []
        }
        let (effects, back) = reversing(entry)
        if let back { self[keyPath: target].append(back) }
        message = StatusMessage("\(done): \(entry.label)", kind: .success)
        return effects
    }

    /// Performs `entry`'s action; returns its effects and the step that turns it around again.
    private mutating func reversing(_ entry: UndoEntry) -> (effects: [Effect], back: UndoEntry?) {
        let before = Dictionary(Self.ids(of: entry.action).compactMap { id in row(id: id).map { (id, $0) } }, uniquingKeysWith: { first, _ in first })
        let effects = undoEffects(entry.action)
        recomputeVisible()
        let turned = turnedAround(effects, before: before)
        let back = turned.isEmpty ? nil : UndoEntry(label: entry.label, action: .several(turned), batched: entry.batched)
        return (entry.batched ? [.batch(effects)] : effects, back)
    }

    /// The actions that take `effects` back, newest first, from the rows as they were before them (`before`).
    private func turnedAround(_ effects: [Effect], before: [String: TodoRow]) -> [UndoEntry.Action] {
        var actions: [UndoEntry.Action] = []
        for effect in effects {
            switch effect {
            case .create(let id, _):
                if before[id] == nil { actions.append(.perform([.delete(id: id)])) }
            case .update(let id, _):
                if let row = before[id] { actions.append(.perform([.update(id: id, row.draft)])) }
            case .edit(let id, _):
                if let old = before[id], let now = row(id: id) {
                    let back = TodoChanges(from: now.draft, to: old.draft)
                    if !back.isEmpty { actions.append(.perform([.edit(id: id, back)])) }
                }
            case .setCompleted(let id, _):
                if let row = before[id] { actions.append(.perform([.setCompleted(id: id, row.isCompleted)])) }
            case .setTrashed(let id, let trashed):
                if trashed, let row = before[id] { actions.append(.untrash(row)) } else { actions.append(.perform([.setTrashed(id: id, !trashed)])) }
            case .delete(let id):
                if let row = before[id] { actions.append(.recreate([row])) }
            case .move(let id, _):
                if let row = before[id] { actions.append(.perform([.move(id: id, toList: row.listID)])) }
            case .batch(let inner):
                actions.append(contentsOf: turnedAround(inner, before: before).reversed())
            default:
                break  // sharing, invitations, notes: not redone
            }
        }
        return actions.reversed()
    }

    /// Every row id an undo action touches.
    static func ids(of action: UndoEntry.Action) -> [String] {
        switch action {
        case .perform(let effects): effects.flatMap(ids(of:))
        case .recreate(let rows): rows.map(\.id)
        case .untrash(let row): [row.id]
        case .several(let actions): actions.flatMap(ids(of:))
        }
    }

    /// The row id an effect names, if it names one.
    static func ids(of effect: Effect) -> [String] {
        switch effect {
        case .create(let id, _), .update(let id, _), .edit(let id, _), .setCompleted(let id, _), .delete(let id), .setTrashed(let id, _),
            .move(let id, _):
            [id]
        case .batch(let inner): inner.flatMap(ids(of:))
        default: []
        }
    }
}
