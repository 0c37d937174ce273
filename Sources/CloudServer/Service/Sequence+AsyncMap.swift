extension Sequence {
    /// `map` for a transform that awaits (store calls inside a transaction), one element after the other, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        results.reserveCapacity(underestimatedCount)
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
