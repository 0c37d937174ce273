/// The first occurrence of each value in a list, in order: a short list (a todo's tags or dependencies) compared
/// value by value, a longer one through a set of keys so that the work stays linear.
///
/// Hashing a todo's one or two tags into a new set (and, for tags, lowercasing each first) cost 1,800–3,600
/// instructions a todo of an import; `DistinctValuesTests` and `TagNameTests` check both ways against the set's answer.
public enum FirstOccurrences {
    /// Lists up to this long are compared value by value.
    public static let comparedPairwise = 8

    /// `values` without repeats, first occurrence kept; `same` and `key` must agree (two values are the same exactly
    /// when their keys are equal).
    @inlinable
    public static func of<Key: Hashable>(_ values: [String], same: (String, String) -> Bool, key: (String) -> Key) -> [String] {
        guard values.count > 1 else { return values }
        var kept: [String] = []
        kept.reserveCapacity(values.count)
        if values.count <= comparedPairwise {
            for value in values where !kept.contains(where: { same($0, value) }) { kept.append(value) }
            return kept
        }
        var seen = Set<Key>(minimumCapacity: values.count)
        for value in values where seen.insert(key(value)).inserted { kept.append(value) }
        return kept
    }
}
