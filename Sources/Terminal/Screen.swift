/// One cell of the grid: a grapheme cluster and its style, or the right half of a wide one.
public struct Cell: Hashable, Sendable {
    /// The grapheme drawn in this cell (a space when blank; unused on a continuation cell).
    public var character: Character
    /// How the cell is drawn.
    public var style: Style
    /// Columns the character occupies: 1, or 2 for a wide character (its right half follows).
    public var width: Int
    /// True for the right half of a wide character: nothing is drawn here.
    public var isContinuation: Bool

    /// A blank cell in the given style.
    public static func blank(_ style: Style = .plain) -> Cell {
        Cell(character: " ", style: style, width: 1, isContinuation: false)
    }
}

/// A position on the screen, zero-based.
public struct Position: Hashable, Sendable {
    /// Row, from the top.
    public var row: Int
    /// Column, from the left.
    public var col: Int

    /// Creates a position.
    public init(row: Int, col: Int) {
        self.row = row
        self.col = col
    }
}

/// A width × height grid of cells that the UI draws into and a terminal driver displays.
public struct Screen: Sendable, Equatable {
    /// Number of columns.
    public let width: Int
    /// Number of rows.
    public let height: Int
    /// The cells, row by row.
    public private(set) var cells: [Cell]
    /// Where the terminal cursor should be shown, or nil to hide it.
    public var cursor: Position?

    /// Creates a blank screen; negative sizes count as zero.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank(), count: self.width * self.height)
    }

    /// The cell at (row, col).
    public subscript(row: Int, col: Int) -> Cell {
        cells[row * width + col]
    }

    /// Writes `text` (sanitised) at (row, col) in `style`, clipped to `maxWidth` columns and to
    /// the right edge; returns the number of columns written.
    ///
    /// Each grapheme cluster (a base with its marks, a ZWJ emoji sequence, a flag) fills one cell, or two
    /// when wide; one that would not fit in the last available column is replaced by a space. Clusters
    /// that take no column (zero-width spaces, joiners, BOMs on their own) are left out. Overwriting half
    /// of an existing wide character blanks its other half.
    @discardableResult
    public mutating func put(_ text: String, row: Int, col: Int, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        guard row >= 0, row < height, col < width else { return 0 }
        let limit = min(width, maxWidth.map { col + max(0, $0) } ?? width)
        var x = col
        for character in sanitize(text) {
            guard x < limit else { break }
            let w = displayWidth(of: character)
            // A cluster of its own that takes no column (U+200B, U+FEFF, U+2060, a mark with nothing to sit on):
            // grapheme segmentation already joined every mark that belongs to a base, so there is nothing to draw.
            if w == 0 { continue }
            if x + w > limit {
                if x >= 0 { setCell(row: row, col: x, character: " ", style: style, width: 1) }
                x += 1
                break
            }
            if x >= 0 {
                setCell(row: row, col: x, character: drawnCluster(character), style: style, width: w)
            }
            x += w
        }
        return max(0, x - max(col, 0))
    }

    /// The most combining marks one cell draws: a flood of marks on one base (zalgo text) is cut to these, since
    /// terminals draw the excess above and below the row, over other rows.
    public static let maximumMarksPerCell = 4

    /// `character` as a cell draws it: its combining marks (nonspacing and enclosing) past `maximumMarksPerCell`
    /// left out, a lone regional indicator as U+FFFD; everything else (joiners, selectors, tag characters, modifiers) kept.
    func drawnCluster(_ character: Character) -> Character {
        let scalars = character.unicodeScalars
        // Half a flag: terminals give a lone regional indicator one column or two, so it is drawn as the replacement
        // character, one column on all of them (a pair is a flag, two columns everywhere).
        if scalars.count == 1, let only = scalars.first, (0x1F1E6...0x1F1FF).contains(only.value) { return "\u{FFFD}" }
        guard scalars.count > 1 + Self.maximumMarksPerCell else { return character }
        var kept = String.UnicodeScalarView()
        var marks = 0
        for scalar in scalars {
            let category = scalar.properties.generalCategory
            if category == .nonspacingMark || category == .enclosingMark {
                marks += 1
                if marks > Self.maximumMarksPerCell { continue }
            }
            kept.append(scalar)
        }
        // Leaving marks out cannot split a cluster in practice; should it, the first piece is drawn (never a trap).
        return String(kept).first ?? character
    }

    /// Fills `count` columns of `row` from `col` with spaces in `style`.
    public mutating func fill(row: Int, col: Int = 0, count: Int? = nil, style: Style) {
        guard row >= 0, row < height else { return }
        let start = max(0, col)
        let end = min(width, count.map { col + $0 } ?? width)
        guard start < end else { return }
        for x in start..<end { setCell(row: row, col: x, character: " ", style: style, width: 1) }
    }

    /// Changes the style of `count` cells of `row` from `col`, keeping their characters.
    public mutating func restyle(row: Int, col: Int = 0, count: Int? = nil, _ transform: (inout Style) -> Void) {
        guard row >= 0, row < height else { return }
        let start = max(0, col)
        let end = min(width, count.map { col + $0 } ?? width)
        guard start < end else { return }
        for x in start..<end { transform(&cells[row * width + x].style) }
    }

    /// Blanks every cell and hides the cursor.
    public mutating func clear() {
        for index in cells.indices { cells[index] = .blank() }
        cursor = nil
    }

    /// The text of each row, wide characters once, trailing spaces removed (for golden tests).
    public var lines: [String] {
        (0..<height).map { line($0) }
    }

    /// All rows joined with newlines, trailing empty rows kept (for golden tests).
    public var text: String {
        lines.joined(separator: "\n")
    }

    /// The text of one row, trailing spaces removed.
    public func line(_ row: Int) -> String {
        var result = ""
        let start = row * width
        for cell in cells[start..<start + width] where !cell.isContinuation {
            result.append(cell.character)
        }
        while result.last == " " { result.removeLast() }
        return result
    }

    private mutating func setCell(row: Int, col: Int, character: Character, style: Style, width w: Int) {
        let base = row * width
        // Blank the other half of any wide character we are cutting through.
        if cells[base + col].isContinuation, col > 0 {
            cells[base + col - 1] = .blank(cells[base + col - 1].style)
        }
        let end = col + w - 1
        if end + 1 < width, cells[base + end + 1].isContinuation {
            cells[base + end + 1] = .blank(cells[base + end + 1].style)
        }
        cells[base + col] = Cell(character: character, style: style, width: w, isContinuation: false)
        if w == 2 {
            cells[base + col + 1] = Cell(character: " ", style: style, width: 0, isContinuation: true)
        }
    }
}
