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
}
