import Foundation

/// The lines of the Today or Next view.
///
/// The Next view lists every open todo: its todo lines are places in the tabs' rows (the tabs' arrays, shared, not
/// copied), each made into a line when read. 80,000 ranked todos cost 4 bytes each, where a copy of each row in a
/// line cost 104 (8 MB, beside the tabs' own rows, while the view showed).
public struct AgendaLines: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    /// Lines held as they are: all of the Today view's, the Next view's heading.
    private var lines: [AgendaLine]
    /// The rows `places` point into.
    private var parts: [[TodoRow]] = []
    /// After `lines`, a todo line each: its part (the top 2 bits) and its index in that part.
    private var places: [UInt32] = []

    /// Bits of a place that hold the index.
    static let indexBits: UInt32 = 30

    /// Lines as they are.
    public init(_ lines: [AgendaLine]) { self.lines = lines }

    /// Lines as they are.
    public init(arrayLiteral elements: AgendaLine...) { lines = elements }

    /// `head`, then a todo line for each place: `(part, index)` of `parts` (at most 4 parts; indices below 2^30).
    init(head: [AgendaLine], parts: [[TodoRow]], places: [UInt32]) {
        precondition(parts.count <= 4, "at most 4 parts of rows")
        lines = head
        self.parts = parts
        self.places = places
    }

    /// The place of row `index` of part `part`.
    static func place(part: Int, index: Int) -> UInt32 {
        precondition(index < 1 << indexBits, "a part of at most 2^30 rows")
        return UInt32(part) << indexBits | UInt32(index)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { lines.count + places.count }

    public subscript(position: Int) -> AgendaLine {
        if position < lines.count { return lines[position] }
        return .todo(row(of: places[position - lines.count]))
    }

    /// Whether line `position` is a todo line (without making the line).
    public func isTodo(_ position: Int) -> Bool {
        guard position < lines.count else { return true }
        if case .todo = lines[position] { return true }
        return false
    }

    /// How many of the lines before `end` are todo lines.
    public func todoCount(before end: Int) -> Int {
        let end = Swift.min(Swift.max(0, end), count)
        let held = Swift.min(end, lines.count)
        var todos = Swift.max(0, end - lines.count)
        for position in 0..<held where isTodo(position) { todos += 1 }
        return todos
    }

    private func row(of place: UInt32) -> TodoRow { Self.row(place, of: parts) }

    /// The row at `place` of `parts`.
    static func row(_ place: UInt32, of parts: [[TodoRow]]) -> TodoRow {
        parts[Int(place >> indexBits)][Int(place & (1 << indexBits - 1))]
    }
}
