import Foundation
public import Terminal

/// Rows and status from the sync engine, the terminal's size, messages.
extension AppState {
    // MARK: input from the sync engine and the terminal

    /// Replaces every tab's rows (partitioned by scope) and the status, keeping the selection on
    /// the same record, the filter and the scroll offset.
    public mutating func update(rows: consuming [TodoRow], status: SyncStatus) {
        var partitions = Self.partition(consume rows)
        let anchor = selection - scroll
        tabs.removeAll()  // the old rows go before the new ones are sorted
        visible.removeAll()
        let ranking = sortRanking(over: { Array(partitions.values) })
        for tab in Tab.allCases { tabs[tab] = TabRows(partitions.removeValue(forKey: tab) ?? [], order: sortOrder, ranking: ranking) }
        finishUpdate(status: status, anchor: anchor, reloading: true)
    }

    /// Applies what changed since the last update (tabs of reloaded scopes are replaced, other rows are
    /// replaced or removed one by one) and the status, keeping the selection, the filter and the scroll offset.
    public mutating func apply(_ update: consuming RowChanges, status: SyncStatus) {
        let anchor = selection - scroll
        var changes = consume update
        let rows = changes.rows
        changes.rows = []
        var incoming = Self.partition(consume rows)
        let removed = Set(changes.removed)
        for tab in Tab.allCases {
            let starts = changes.reloaded.contains(tab.scope)
            let finishes = changes.reloadFinished.contains(tab.scope)
            if starts && finishes {
                // Read again in one update: these rows are all.
                tabs[tab] = nil  // the old rows go before the new ones are sorted
                tabs[tab] = TabRows(incoming.removeValue(forKey: tab) ?? [], order: sortOrder, ranking: sortRanking)
                continue
            }
            let changed = incoming.removeValue(forKey: tab) ?? []
            guard var data = tabs.removeValue(forKey: tab) else {
                if !changed.isEmpty { tabs[tab] = TabRows(changed, order: sortOrder, ranking: sortRanking) }
                continue
            }
            // Read again in chunks: the rows stay until replaced, and the unconfirmed ones go at the end.
            if starts { data.markAllStale() }
            var dropped = removed
            for row in changed { dropped.insert(row.id) }
            if changed.count >= data.rows.count || changed.contains(where: \.isList)
                || dropped.contains(where: { data.listGroups[$0] != nil })
            {
                // More rows arrive than are held (the cache read in chunks), or lists regroup their todos (lists
                // change rarely): sorting everything again costs less than merging.
                var rows = data.rows
                data = TabRows()
                let droppedKeys = Set(dropped.map(RowKey.init))
                rows.removeAll { droppedKeys.contains($0.key) }
                rows.append(contentsOf: changed)
                data = TabRows(rows, order: sortOrder, ranking: sortRanking)
            } else if dropped.count + changed.count > 16 {
                data.merge(dropping: dropped, adding: changed)
            } else {
                for id in dropped { data.remove(id: id) }
                for row in changed { data.insert(row) }
            }
            if finishes { data.removeStale() }
            tabs[tab] = data
        }
        finishUpdate(status: status, anchor: anchor, reloading: !changes.reloaded.isEmpty)
    }

    /// Puts every row read from the cache so far in place of the rows of every tab (sorted already where they were
    /// read, again here only if the sort order changed since), keeping the filter, and the selection as chunks of
    /// rows do while the cache is read: the key loop spends no time sorting.
    public mutating func replaceRows(with loaded: consuming LoadedRows, status: SyncStatus) {
        let anchor = selection - scroll
        var incoming = loaded.tabs
        tabs.removeAll()
        let ranking = sortRanking(over: { incoming.values.map(\.rows) })
        for tab in Tab.allCases {
            guard let data = incoming.removeValue(forKey: tab) else { continue }
            tabs[tab] = data.order == sortOrder && sortOrder != .next ? data : TabRows(data.rows, order: sortOrder, ranking: ranking)
        }
        finishUpdate(status: status, anchor: anchor, reloading: true)
    }

    /// Rows by tab. Exact capacities, and no copy at all when every row belongs to one tab: 100,000 rows appended
    /// one by one would double their arrays' storage on the way.
    static func partition(_ rows: consuming [TodoRow]) -> [Tab: [TodoRow]] {
        var all = rows
        var counts: [Tab: Int] = [:]
        for row in all { counts[Tab(row.scope), default: 0] += 1 }
        var partitions: [Tab: [TodoRow]] = [:]
        if counts.count == 1, let only = counts.keys.first {
            partitions[only] = consume all
            return partitions
        }
        for (tab, count) in counts {
            var part: [TodoRow] = []
            part.reserveCapacity(LoadedRows.capacity(for: count))
            partitions[tab] = part
        }
        for row in all { partitions[Tab(row.scope)]?.append(row) }
        all = []
        return partitions
    }

    /// The end of every data update: the status, the share dialog's people, the visible rows.
    ///
    /// Changes from elsewhere never move the view: the scroll position stays and the selection stays on its record,
    /// even when a remote edit moved that record out of sight (the position in the status line says where; the next
    /// key brings it back). Only a scope read again in chunks, and the cache read for the first frames, keep the
    /// selected record on its screen line instead, since then every row may be new.
    private mutating func finishUpdate(status: SyncStatus, anchor: Int, reloading: Bool = false) {
        self.status = status
        refreshNextMarks()
        if case .edit(var form) = mode, let id = form.targetID {
            if let current = row(id: id) {
                form.noteUnderneath(current.draft, calendar: calendar)
            } else {
                form.underneath = "trashed on another device; saving brings it back"
            }
            mode = .edit(form)
        }
        if case .share(var dialog) = mode, let list = row(id: dialog.listID) {
            dialog.participants = list.sharing?.participants ?? []
            dialog.selection = min(dialog.selection, max(0, dialog.participants.count - 1))
            if dialog.participants.isEmpty { dialog.focus = .invite }
            mode = .share(dialog)
        }
        if reloading || loading != nil { recomputeVisible(anchor: anchor) } else { recomputeVisible(holdingScroll: true) }
        if loading != nil, followsEndWhileLoading {
            // `G` while rows arrive: the end of the list, wherever the rows that arrive put it.
            select(visible.count - 1)
        } else if loading != nil, !keyPressedWhileLoading {
            // Nobody chose a row yet (or `g` chose the top): the list shows its top while the rest of it arrives.
            scroll = 0
            select(0)
        }
    }

    /// Replaces the rows of one tab, keeping selection, filter and scroll.
    public mutating func update(rows: [TodoRow], in tab: Tab) {
        let anchor = selection - scroll
        tabs[tab] = TabRows(rows, order: sortOrder, ranking: sortRanking)
        refreshNextMarks()
        if tab == self.tab || showsToday { recomputeVisible(anchor: anchor) }
    }

    /// Says how far reading the cache got (nil: done), for the header and the empty list.
    public mutating func showLoading(_ progress: FetchProgress?) {
        loading = progress
        if progress == nil {
            keyPressedWhileLoading = false
            followsEndWhileLoading = false
        }
    }

    /// Replaces the sync status only.
    public mutating func update(status: SyncStatus) {
        self.status = status
    }

    /// Lays the state out for a new terminal size, keeping the selection visible.
    public mutating func resize(to size: TerminalSize) {
        self.size = size
        clampScroll()
    }

    /// Shows a message in the status line (e.g. an effect failed).
    public mutating func post(_ message: StatusMessage) {
        self.message = message
    }
}
