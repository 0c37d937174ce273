import Terminal

/// The text a terminal shows after the bytes a program wrote to it: a small xterm model (cursor moves, erases,
/// inserts and deletes, repeats, wide characters; colours and modes ignored), enough to read back what ncurses
/// drew, so a benchmark can tell which frame answered which key.
struct ScreenModel {
    private(set) var cells: [[String]]
    private var row = 0
    private var col = 0
    private var saved = (row: 0, col: 0)
    /// Set after a character went into the last column: the next one wraps first.
    private var pendingWrap = false
    private var lastPrinted = " "
    private var utf8: [UInt8] = []
    private var utf8Needed = 0
    private var escape: [UInt8]?
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        cells = Array(repeating: Array(repeating: " ", count: width), count: height)
    }

    /// Line `index` as text (a wide character's second cell is left out).
    func line(_ index: Int) -> String { cells[index].joined() }

    /// Takes the next bytes the program wrote.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { feed(byte) }
    }

    private mutating func feed(_ byte: UInt8) {
        if var sequence = escape {
            sequence.append(byte)
            escape = sequence
            if let done = Self.finished(sequence) {
                escape = nil
                if done { perform(sequence) }
            }
            return
        }
        if utf8Needed > 0 {
            utf8.append(byte)
            utf8Needed -= 1
            if utf8Needed == 0 { put(String(decoding: utf8, as: UTF8.self)) }
            return
        }
        switch byte {
        case 0x1B: escape = []
        case 0x0D: col = 0; pendingWrap = false
        case 0x0A, 0x0B, 0x0C: lineFeed()
        case 0x08: col = max(0, col - 1); pendingWrap = false
        case 0x09: col = min(width - 1, (col / 8 + 1) * 8)
        case 0x00..<0x20, 0x7F: break
        case 0xC0..<0xE0: utf8 = [byte]; utf8Needed = 1
        case 0xE0..<0xF0: utf8 = [byte]; utf8Needed = 2
        case 0xF0...0xFF: utf8 = [byte]; utf8Needed = 3
        default: put(String(UnicodeScalar(byte)))
        }
    }

    /// Whether an escape sequence is complete: true to act on it, false to drop it, nil while it goes on.
    private static func finished(_ sequence: [UInt8]) -> Bool? {
        guard let first = sequence.first else { return nil }
        switch first {
        case UInt8(ascii: "["):
            guard sequence.count > 1, let last = sequence.last else { return nil }
            return (0x40...0x7E).contains(last) ? true : (sequence.count > 64 ? false : nil)
        case UInt8(ascii: "]"), UInt8(ascii: "P"):  // OSC, DCS: up to BEL or ESC \
            if sequence.last == 0x07 || sequence.suffix(2) == [0x1B, UInt8(ascii: "\\")] { return false }
            return sequence.count > 512 ? false : nil
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "#"), UInt8(ascii: "%"):
            return sequence.count == 2 ? false : nil
        default:
            return true
        }
    }

    private mutating func perform(_ sequence: [UInt8]) {
        guard sequence.first == UInt8(ascii: "[") else {
            switch sequence.first {
            case UInt8(ascii: "7"): saved = (row, col)
            case UInt8(ascii: "8"): (row, col) = saved; pendingWrap = false
            case UInt8(ascii: "D"): lineFeed()
            case UInt8(ascii: "E"): col = 0; lineFeed()
            case UInt8(ascii: "M"): if row > 0 { row -= 1 } else { scrollDown() }
            case UInt8(ascii: "c"): self = ScreenModel(width: width, height: height)
            default: break
            }
            return
        }
        let body = sequence.dropFirst().dropLast()
        let final = sequence.last ?? 0
        if body.first == UInt8(ascii: "?") || body.first == UInt8(ascii: ">") { return }  // modes
        let numbers = String(decoding: body, as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func number(_ index: Int, _ fallback: Int = 1) -> Int {
            guard index < numbers.count, let value = numbers[index], value > 0 else { return fallback }
            return value
        }
        pendingWrap = false
        switch final {
        case UInt8(ascii: "H"), UInt8(ascii: "f"):
            row = min(height - 1, number(0) - 1)
            col = min(width - 1, number(1) - 1)
        case UInt8(ascii: "A"): row = max(0, row - number(0))
        case UInt8(ascii: "B"), UInt8(ascii: "e"): row = min(height - 1, row + number(0))
        case UInt8(ascii: "C"), UInt8(ascii: "a"): col = min(width - 1, col + number(0))
        case UInt8(ascii: "D"): col = max(0, col - number(0))
        case UInt8(ascii: "G"), UInt8(ascii: "`"): col = min(width - 1, number(0) - 1)
        case UInt8(ascii: "d"): row = min(height - 1, number(0) - 1)
        case UInt8(ascii: "K"):
            switch number(0, 0) {
            case 0: clear(row, from: col, to: width)
            case 1: clear(row, from: 0, to: col + 1)
            default: clear(row, from: 0, to: width)
            }
        case UInt8(ascii: "J"):
            switch number(0, 0) {
            case 0:
                clear(row, from: col, to: width)
                for below in (row + 1)..<height { clear(below, from: 0, to: width) }
            case 1:
                for above in 0..<row { clear(above, from: 0, to: width) }
                clear(row, from: 0, to: col + 1)
            default:
                for any in 0..<height { clear(any, from: 0, to: width) }
            }
        case UInt8(ascii: "X"): clear(row, from: col, to: min(width, col + number(0)))
        case UInt8(ascii: "@"):
            let count = min(number(0), width - col)
            cells[row].insert(contentsOf: repeatElement(" ", count: count), at: col)
            cells[row].removeLast(count)
        case UInt8(ascii: "P"):
            let count = min(number(0), width - col)
            cells[row].removeSubrange(col..<(col + count))
            cells[row].append(contentsOf: repeatElement(" ", count: count))
        case UInt8(ascii: "b"): for _ in 0..<number(0) { put(lastPrinted) }
        default: break  // colours, scroll regions (ncurses scrolls nothing unless asked), modes
        }
    }

    private mutating func put(_ text: String) {
        for character in text {
            let cellWidth = max(1, displayWidth(of: character))
            if pendingWrap || col + cellWidth > width {
                col = 0
                lineFeed()
            }
            pendingWrap = false
            cells[row][col] = String(character)
            if cellWidth == 2, col + 1 < width { cells[row][col + 1] = "" }
            lastPrinted = String(character)
            if col + cellWidth >= width { pendingWrap = true; col = width - 1 } else { col += cellWidth }
        }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if row == height - 1 { scrollUp() } else { row += 1 }
    }

    private mutating func scrollUp() {
        cells.removeFirst()
        cells.append(Array(repeating: " ", count: width))
    }

    private mutating func scrollDown() {
        cells.removeLast()
        cells.insert(Array(repeating: " ", count: width), at: 0)
    }

    private mutating func clear(_ line: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        for index in start..<end { cells[line][index] = " " }
    }
}
