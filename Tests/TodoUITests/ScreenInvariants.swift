import HostileTextSupport
import Terminal

extension Screen {
    /// Problems with the grid: a row whose cells do not add up to the width, an active scalar in a cell, a cell
    /// whose grapheme is not as wide as the cell says.
    var invariantViolations: [String] {
        var problems: [String] = []
        for row in 0..<height {
            var columns = 0
            for col in 0..<width {
                let cell = self[row, col]
                if cell.isContinuation {
                    columns += 0
                    continue
                }
                columns += cell.width
                if let bad = HostileText.firstActive(in: String(cell.character)) {
                    problems.append("row \(row) col \(col): U+\(String(bad.value, radix: 16)) in a cell")
                }
                if displayWidth(of: cell.character) != cell.width {
                    problems.append("row \(row) col \(col): '\(cell.character)' measured \(displayWidth(of: cell.character)), cell says \(cell.width)")
                }
                if cell.width == 2, col + 1 < width, !self[row, col + 1].isContinuation {
                    problems.append("row \(row) col \(col): wide cell without its right half")
                }
            }
            if columns > width { problems.append("row \(row): \(columns) columns in a \(width)-column screen") }
            if displayWidth(line(row)) > width { problems.append("row \(row): the line is wider than the screen") }
        }
        return problems
    }
}
