import Foundation
import TodoPlanning

/// A row as `TodoFilter` reads it, in place: its fields, and its list's title looked up only when a term asks.
///
/// It points into the tab's rows (valid only inside `TabRows.withFilterCandidates`): copying 100,000 rows to check
/// them would retain and release each of their strings.
struct FilterCandidate: Filterable {
    let row: UnsafePointer<TodoRow>
    let listTitles: UnsafePointer<[String: String]>
    /// Whether the row's tags cannot change the answer (the masks showed it has none of the `-tag`s, and no other
    /// tag term is asked): it then shows none, and its tag array is not read.
    var tagsDecided = false

    var title: String { row.pointee.title }
    var notes: String { row.pointee.notes }
    var tags: [String] { tagsDecided ? [] : row.pointee.tags }
    var listName: String? { row.pointee.listID.flatMap { listTitles.pointee[$0] } }
    var due: DueDate? { row.pointee.due }
    var priority: Int { row.pointee.priority }
    var isCompleted: Bool { row.pointee.isCompleted }
    var isRepeating: Bool { row.pointee.isRepeating }
    var wait: Date? { row.pointee.wait }
    var scheduled: Date? { row.pointee.scheduled }
    var until: Date? { row.pointee.until }
    var start: Date? { row.pointee.start }
}

extension TabRows {
    /// Calls `body` with a function making the filter's view of row `index`.
    func withFilterCandidates<R>(_ body: ((Int) -> FilterCandidate) throws -> R) rethrows -> R {
        try withUnsafePointer(to: listTitles) { titles in
            try rows.withUnsafeBufferPointer { buffer in
                try body { index in FilterCandidate(row: buffer.baseAddress! + index, listTitles: titles) }
            }
        }
    }
}

/// The filter pass: which rows of the tab are listed, in display order.
///
/// The words of a filter are found in each tab's search text (one `memchr` scan per word, the later words only
/// checked in the rows the first found); the other terms (+tag, due:, pri:, is:…) are asked of those rows only.
extension AppState {
    /// Whether the filter in effect asks for waiting todos (`is:waiting`), which the views otherwise leave out.
    var showsWaiting: Bool { activeFilter?.hasTerm("is:waiting") ?? false }

    /// Reads `text` as a filter: nil for none (empty text), else the filter or why it does not parse.
    func parseFilter(_ text: String) -> Result<TodoFilter?, FilterTextError> {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return .success(nil) }
        let grammar = DueDateGrammar(now: now, calendar: calendar)
        do {
            return .success(try TodoFilter.parse(text, now: now, calendar: calendar) { try grammar.parse($0) })
        } catch {
            return .failure(FilterTextError(description: String(describing: error)))
        }
    }

    /// Puts `text` in effect as the filter when it parses (and says why in `filterError` when it does not, keeping
    /// the filter in effect); true when the filter in effect changed.
    @discardableResult
    mutating func applyFilterText(_ text: String) -> Bool {
        switch parseFilter(text) {
        case .success(let parsed):
            filterError = nil
            let changed = text != appliedFilterText
            activeFilter = parsed
            appliedFilterText = parsed == nil ? "" : text
            tagPrefilter = TagIndex.prefilter(appliedFilterText)
            return changed
        case .failure(let error):
            filterError = error.description
            return false
        }
    }

    /// Whether the rows matching `text` are among those matching `before`: both plain words (no +tag, -tag,
    /// key:value or quotes), and `text` is `before` with more typed at its end.
    static func narrows(_ text: String, from before: String) -> Bool {
        guard !before.isEmpty, text.hasPrefix(before) else { return false }
        func plain(_ text: String) -> Bool {
            text.split(separator: " ").allSatisfy { word in
                !word.hasPrefix("+") && !word.hasPrefix("-") && !word.contains(":") && !word.contains("\"")
            }
        }
        return plain(text) && plain(before)
    }

    /// The rows of `data` the filter in effect matches (all rows without one), ascending.
    func matchingRows(in data: TabRows) -> [Int] {
        var rows = filterMatchingRows(in: data)
        if contextFilter != nil { rows.removeAll { !contextMatches($0, in: data) } }
        return rows
    }

    /// The rows of `data` the filter in effect matches (all rows without one), ascending, before the context.
    private func filterMatchingRows(in data: TabRows) -> [Int] {
        guard let filter = activeFilter else { return Array(data.rows.indices) }
        let needles = filter.textNeedles.filter { !$0.isEmpty }
        var rows: [Int]
        if let first = needles.first {
            rows = data.search.rows(containing: first)
            for needle in needles.dropFirst() { rows.removeAll { !data.search.row($0, contains: needle) } }
        } else {
            rows = Array(data.rows.indices)
        }
        let prefilter = tagPrefilter
        data.tagMasks.withUnsafeBufferPointer { masks in
            data.withFilterCandidates { candidate in
                rows.removeAll { index in
                    var row = candidate(index)
                    if let prefilter {
                        let mask = masks[index]
                        if mask & prefilter.required != prefilter.required { return true }
                        row.tagsDecided = prefilter.onlyExclusions && mask & prefilter.excluded == 0
                    }
                    return !filter.matchesFields(row)
                }
            }
        }
        return rows
    }

    /// Whether the filter in effect matches row `index` of `data`.
    func filterMatches(_ index: Int, in data: TabRows) -> Bool {
        // Waiting todos are out of every view unless the filter asks for them (is:waiting).
        if !showsWaiting, data.rows[index].isHidden(at: now) { return false }
        guard contextMatches(index, in: data) else { return false }
        guard let filter = activeFilter else { return true }
        if let prefilter = tagPrefilter, data.tagMasks[index] & prefilter.required != prefilter.required { return false }
        for needle in filter.textNeedles where !data.search.row(index, contains: needle) { return false }
        return data.withFilterCandidates { filter.matchesFields($0(index)) }
    }

    /// Rebuilds `visible` for the current tab and filters (and the Today view while it shows), and finds the
    /// selected record again.
    mutating func recomputeVisible(anchor: Int? = nil, holdingScroll: Bool = false) {
        if showsToday { rebuildAgenda() }
        let selectedID = selectedIDs[tab]
        let oldSelection = selection
        let data = tabs[tab] ?? TabRows()
        let hint = visible.indices.contains(oldSelection) ? visible[oldSelection] : nil
        let matches = matchingRows(in: data)
        var result: [Int] = []
        if !data.hasLists {
            // No headings: only the filters decide.
            let hideWaiting = !showsWaiting
            result = matches.filter { (showCompleted || !data.rows[$0].isCompleted) && !(hideWaiting && data.rows[$0].isHidden(at: now)) }
        } else {
            appendVisibleWithHeadings(data, matches, filtering: activeFilter != nil || contextFilter != nil, &result)
        }
        visible = result
        finishRecompute(data, selectedID: selectedID, oldSelection: oldSelection, hint: hint, anchor: anchor, holdingScroll: holdingScroll)
    }

    /// The filter pass of a tab with lists: a heading shows when there is no filter, when it matches, or (just
    /// before it) when one of its todos does. `matches` are the rows the filter matches, ascending.
    private func appendVisibleWithHeadings(_ data: TabRows, _ matches: [Int], filtering: Bool, _ result: inout [Int]) {
        result.reserveCapacity(matches.count)
        var waitingHeading: Int?
        var nextMatch = 0
        for index in data.headings.indices {
            while nextMatch < matches.count && matches[nextMatch] < index { nextMatch += 1 }
            let matched = nextMatch < matches.count && matches[nextMatch] == index
            if data.headings[index] {
                waitingHeading = nil
                if !filtering || matched { result.append(index) } else { waitingHeading = index }
                continue
            }
            if !showCompleted, data.rows[index].isCompleted { continue }
            if !matched { continue }
            if !showsWaiting, data.rows[index].isHidden(at: now) { continue }
            if let heading = waitingHeading, data.rows[index].listID == data.rows[heading].id {
                result.append(heading)
                waitingHeading = nil
            }
            result.append(index)
        }
    }

    /// Keeps only the listed rows that still match the (longer, plain-word) filter.
    mutating func narrowVisible() {
        guard let data = tabs[tab], !showsToday else {
            recomputeVisible()
            return
        }
        if data.hasLists {
            recomputeVisible()
            return
        }
        let selectedID = selectedIDs[tab]
        let hint = visible.indices.contains(selection) ? visible[selection] : nil
        let kept = visible.filter { filterMatches($0, in: data) }
        visible = kept
        if let selectedID, let found = position(of: selectedID, in: data, hint: hint) {
            selection = found
        } else {
            selection = min(selection, max(0, visible.count - 1))
        }
        clampScroll()
        rememberSelection()
    }
}

/// Why a filter text does not parse, as `TodoFilter` says it.
struct FilterTextError: Error, CustomStringConvertible {
    var description: String
}
