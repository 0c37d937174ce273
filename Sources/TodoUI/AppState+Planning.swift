import Foundation
import Terminal
import TodoPlanning

/// Sort orders, saved filters, repeating todos and the detail view.
extension AppState {
    // MARK: sort

    /// Switches every tab to the next sort order, keeping the selected todo, and asks for it to be remembered.
    mutating func cycleSortOrder() -> [Effect] {
        setSortOrder(sortOrder.next)
        message = StatusMessage("Sorted \(sortOrder.label)")
        return [.setSortOrder(sortOrder)]
    }

    /// Sorts every tab in `order`.
    mutating func setSortOrder(_ order: SortOrder) {
        sortOrder = order
        let ranking = sortRanking  // over every tab's rows, before any is taken out to be sorted
        for tab in Tab.allCases {
            // The old rows go before the new ones are sorted: one copy of 100,000 rows, not two.
            guard var data = tabs.removeValue(forKey: tab) else { continue }
            let rows = data.rows
            data = TabRows()
            tabs[tab] = TabRows(rows, order: order, ranking: ranking)
        }
        recomputeVisible()
        clampScroll()
    }

    /// What the `next` sort ranks with: the Next view's coefficients at the state's "now" and the dependencies of the
    /// rows held then (taken when a tab is sorted); nil for the other orders, which need neither.
    var sortRanking: NextSort? { sortRanking(over: { Tab.allCases.compactMap { self.tabs[$0]?.rows } }) }

    /// `sortRanking` with the dependency marks of `rows` (rows about to be held, when the tabs are being replaced).
    func sortRanking(over rows: () -> [[TodoRow]]) -> NextSort? {
        guard sortOrder == .next else { return nil }
        return NextSort(urgency: Urgency(coefficients: urgencyCoefficients, now: now, calendar: calendar), marks: DependencyMarks(rows()))
    }

    // MARK: saved filters

    /// Puts the saved filter after the one in effect in effect; after the last, no filter.
    mutating func cycleSavedFilter() {
        guard !savedFilters.isEmpty else {
            message = StatusMessage("No saved filters: / types one, F saves it.")
            return
        }
        let current = savedFilters.firstIndex { $0.text == appliedFilterText && !appliedFilterText.isEmpty }
        let next = current.map { $0 + 1 } ?? 0
        guard next < savedFilters.count else {
            filter = LineEditor()
            applyFilterText("")
            recomputeVisible()
            message = StatusMessage("No filter (f: \(savedFilters[0].name))")
            return
        }
        let saved = savedFilters[next]
        filter = LineEditor(saved.text)
        guard applyFilterText(saved.text) || appliedFilterText == saved.text else {
            message = StatusMessage("Saved filter '\(saved.name)': \(filterError ?? "does not read")", kind: .error)
            filterError = nil
            return
        }
        recomputeVisible()
        message = StatusMessage("Filter '\(saved.name)': \(saved.text) · \(Formatting.grouped(shownCount)) shown")
    }

    mutating func startSavingFilter() {
        guard !appliedFilterText.isEmpty else {
            message = StatusMessage("No filter to save: / types one first.", kind: .warning)
            return
        }
        mode = .prompt(Prompt(.saveFilter))
    }

    /// Keeps the filter in effect under `name` (replacing a filter of that name).
    mutating func saveFilter(named name: String) -> [Effect] {
        let saved = SavedFilter(name: name, text: appliedFilterText)
        if let index = savedFilters.firstIndex(where: { $0.name == name }) {
            savedFilters[index] = saved
        } else {
            savedFilters.append(saved)
        }
        message = StatusMessage("Saved filter '\(name)': \(saved.text)" + keyed(.nextSavedFilter) { " (\($0) cycles saved filters)" }, kind: .success)
        return [.saveFilter(name: name, text: saved.text)]
    }

    // MARK: repeating todos

    /// Skips this occurrence of the selected repeating todo (u brings it back).
    mutating func skipOccurrence() -> [Effect] {
        guard let row = selectedRow else { return [] }
        guard row.isRepeating else {
            message = StatusMessage("'\(row.title)' does not repeat: > skips an occurrence of a repeating todo.", kind: .warning)
            return []
        }
        guard row.canUpdate else {
            refuseLocked(row)
            return []
        }
        let effect = Effect.skip(id: row.id)
        apply(effect)
        pushUndo(UndoEntry(label: "skip of '\(row.title)'", action: .perform([.unskip(id: row.id)])))
        message = StatusMessage("Skipped this occurrence of '\(row.title)'\(undoNote)", kind: .success)
        return [effect]
    }

    // MARK: details

    mutating func openDetails() {
        guard let row = selectedRow else { return }
        guard !row.isList else {
            message = StatusMessage("o shows a todo's details; '\(row.title)' is a list.")
            return
        }
        mode = .detail(DetailView(id: row.id))
    }

    mutating func reduceDetail(_ view: DetailView, _ key: Key) -> [Effect] {
        guard let row = row(id: view.id) else {
            mode = .list
            message = StatusMessage("That todo is gone (deleted on another device).", kind: .warning)
            return []
        }
        message = nil
        var view = view
        switch key {
        case .escape, .char("q"), .char("o"):
            mode = .list
            return []
        case .char("j"), .down: view.scroll += 1
        case .char("k"), .up: view.scroll = max(0, view.scroll - 1)
        case .pageDown, .ctrl("d"), .char(" "): view.scroll += listHeight
        case .pageUp, .ctrl("u"): view.scroll = max(0, view.scroll - listHeight)
        case .char("a"):
            guard row.canUpdate else {
                refuseLocked(row)
                break
            }
            mode = .prompt(Prompt(.annotate(id: row.id)))
            return []
        case .char("e"), .enter:
            guard row.canUpdate else {
                refuseLocked(row)
                break
            }
            mode = .edit(editForm(for: row))
            return []
        case .char("n"):
            guard row.canUpdate else {
                refuseLocked(row)
                break
            }
            mode = .detail(view)
            return [.editNotes(id: row.id, notes: row.notes)]
        case _ where keymap.command(for: key) == .details:
            mode = .list
            return []
        default:
            message = StatusMessage("a annotate · e edit · n notes in $EDITOR · j/k scroll · Esc close")
        }
        view.scroll = min(view.scroll, max(0, detailLines(of: row, width: size.width).count - (listHeight - 1)))
        mode = .detail(view)
        return []
    }

    /// Adds an annotation to `id` here and asks for it to be stored; back to its details.
    mutating func annotate(_ id: String, _ text: String) -> [Effect] {
        mode = .detail(DetailView(id: id))
        guard row(id: id) != nil else { return [] }
        let effect = Effect.annotate(id: id, text: text)
        apply(effect)
        message = StatusMessage("Annotated", kind: .success)
        return [effect]
    }
}
