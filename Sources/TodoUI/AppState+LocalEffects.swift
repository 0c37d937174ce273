import Foundation
import TodoPlanning

/// What the screen shows at once for an effect, before the sync engine reports back.
extension AppState {
    /// Applies an effect to the local rows at once (marked pending), so the screen reflects it
    /// before the sync engine reports back.
    mutating func applyLocally(_ effect: Effect, template: TodoRow? = nil) {
        switch effect {
        case .create(let id, let draft):
            let base = template ?? newRow(id: id, draft: draft)
            var row = base
            row.id = id
            row.title = draft.title
            row.notes = draft.notes
            row.due = draft.due
            row.priority = draft.priority
            row.tags = draft.tags
            row.repeatRule = draft.repeatRule
            row.repeatFromCompletion = draft.repeatFromCompletion
            row.scope = draft.scope
            row.kind = draft.kind
            row.listID = draft.listID
            row.isPending = true
            let empty = TabRows(order: sortOrder, ranking: sortRanking)
            tabs[Tab(draft.scope), default: empty].insert(row)
        case .update(let id, let draft):
            modifyRow(id) {
                $0.title = draft.title
                $0.notes = draft.notes
                $0.due = draft.due
                $0.priority = draft.priority
                $0.tags = draft.tags
                $0.repeatRule = draft.repeatRule
                $0.repeatFromCompletion = draft.repeatFromCompletion
                ($0.wait, $0.scheduled, $0.until, $0.depends) = (draft.wait, draft.scheduled, draft.until, draft.depends)
            }
        case .edit(let id, let changes):
            modifyRow(id) { changes.apply(to: &$0) }
        case .setCompleted(let id, let done):
            modifyRow(id) { $0.isCompleted = done }
        case .delete(let id), .setTrashed(let id, true):
            for tab in Tab.allCases { tabs[tab]?.remove(id: id) }
        case .setTrashed(_, false):
            if let template {
                var row = template
                row.isPending = true
                let empty = TabRows(order: sortOrder, ranking: sortRanking)
                tabs[Tab(row.scope), default: empty].insert(row)
            }
        case .move(let id, let listID):
            modifyRow(id) { $0.listID = listID }
        case .annotate(let id, let text):
            let now = now
            modifyRow(id) { $0.annotations = ($0.annotations + [Annotation(entry: now, text: text)]).sorted() }
        case .skip(let id), .unskip(let id):
            // The engine makes (or removes) the next occurrence; until it reports back the row shows as pending.
            modifyRow(id) { _ in }
        case .batch(let effects):
            for effect in effects { applyLocally(effect, template: template) }
        case .refresh, .signIn, .quit, .showingPublicBoard, .share, .removeParticipant, .stopSharing, .accept, .decline, .leave,
            .restoreLost, .saveFilter, .setSortOrder, .setContext, .editNotes:
            break
        }
        refreshNextMarks()
    }

    private mutating func modifyRow(_ id: String, _ change: (inout TodoRow) -> Void) {
        // Mutate the tab's arrays in place (through the dictionary's modify accessor): copying
        // them out would copy 100,000 rows.
        for tab in Tab.allCases {
            if let data = tabs[tab], let index = data.index(of: id), data.rows[index].isList {
                var rows = data.rows
                change(&rows[index])
                rows[index].isPending = true
                tabs[tab] = TabRows(rows, order: sortOrder, ranking: sortRanking)
                return
            }
            guard var row = tabs[tab]?.remove(id: id) else { continue }
            change(&row)
            row.isPending = true
            tabs[tab]?.insert(row)
            return
        }
    }

    func newRow(id: String, draft: TodoDraft) -> TodoRow {
        let isPublic = draft.scope == .public
        var row = TodoRow(
            id: id, title: draft.title, notes: draft.notes, due: draft.due, priority: draft.priority,
            scope: draft.scope, canUpdate: true, canDelete: !isPublic,
            trashBehaviour: isPublic ? .markTrashed : .delete, isPending: true, owner: status.account,
            kind: draft.kind, listID: draft.listID, tags: draft.tags, repeatRule: draft.repeatRule,
            repeatFromCompletion: draft.repeatFromCompletion, created: now
        )
        if draft.wait != nil || draft.scheduled != nil || draft.until != nil || !draft.depends.isEmpty {
            (row.wait, row.scheduled, row.until, row.depends) = (draft.wait, draft.scheduled, draft.until, draft.depends)
        }
        return row
    }

    /// Finds a row by id on any tab.
    func row(id: String) -> TodoRow? {
        for tab in Tab.allCases {
            if let data = tabs[tab], let index = data.index(of: id) { return data.rows[index] }
        }
        return nil
    }
}
