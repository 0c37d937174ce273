import Foundation
import TodoPlanning

/// The context (`todo context NAME`): a saved filter in effect under every other filter, named in the header, until
/// `todo context none`. The filter `/` and `f` put in effect narrows what the context shows; it never replaces it.
extension AppState {
    /// Puts `saved` in effect as the context (nil: none); a context whose filter does not read is refused with why,
    /// and none is in effect then.
    public mutating func setContext(_ saved: SavedFilter?) {
        context = nil
        contextFilter = nil
        if let saved {
            switch parseFilter(saved.text) {
            case .success(let filter):
                context = saved
                contextFilter = filter
            case .failure(let error):
                message = StatusMessage("The context '\(saved.name)' cannot be used: \(error.description)", kind: .warning)
            }
        }
        recomputeVisible()
        clampScroll()
    }

    /// Whether the context lets row `index` of `data` show (no context: every row).
    func contextMatches(_ index: Int, in data: TabRows) -> Bool {
        guard let filter = contextFilter else { return true }
        for needle in filter.textNeedles where !data.search.row(index, contains: needle) { return false }
        return data.withFilterCandidates { filter.matchesFields($0(index)) }
    }

    /// Switches the context to the saved filter after the one in effect, past the last to none, and asks for it to be
    /// remembered as `todo context` does, so the command line and the next start see the same context.
    mutating func cycleContext() -> [Effect] {
        guard !savedFilters.isEmpty else {
            message = StatusMessage("No saved filters to use as a context" + keyed(.saveFilter, otherwise: ".") { ": \($0) saves the filter in effect." })
            return []
        }
        let current = context.flatMap { context in savedFilters.firstIndex { $0.name == context.name } }
        let next = current.map { $0 + 1 } ?? 0
        guard next < savedFilters.count else {
            setContext(nil)
            message = StatusMessage("No context: every todo shows" + keyed(.nextContext, otherwise: "") { " (\($0): \(savedFilters[0].name))" })
            return [.setContext(nil)]
        }
        setContext(savedFilters[next])
        guard let context else { return [] }  // refused: setContext said why
        let write = contextFilter?.contextWrite ?? ContextWrite(tags: [], project: nil)
        let writes = write.isEmpty ? "" : "; new todos get " + ([write.project.map { "project \($0)" }].compactMap(\.self) + write.tags.map { "+" + $0 }).joined(separator: " ")
        message = StatusMessage("Context '\(context.name)': \(context.text)\(writes)", kind: .success)
        return [.setContext(context.name)]
    }

    /// A new todo's form with what the context writes (Taskwarrior's write context): its tags, and its project when
    /// the todo goes into no list otherwise. The fields show them, so the person sees and may change them.
    func withContextDefaults(_ form: EditForm) -> EditForm {
        guard form.kind == .todo, let write = contextFilter?.contextWrite, !write.isEmpty else { return form }
        var form = form
        if !write.tags.isEmpty { form[.tags] = LineEditor(write.tags.joined(separator: " ")) }
        if let project = write.project, form.listID == nil, form.scope == .private { form[.project] = LineEditor(project) }
        return form
    }
}
