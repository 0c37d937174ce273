public import Terminal

/// A single-line text editor: insert at the cursor, cursor movement, deletion, kill keys.
public struct LineEditor: Hashable, Sendable {
    /// The characters of the text.
    public private(set) var characters: [Character]
    /// The cursor, as an index into `characters` (0...count).
    public private(set) var cursor: Int

    /// Creates an editor with `text`, the cursor at its end.
    public init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    /// The current text.
    public var text: String { String(characters) }

    /// Display columns before the cursor (where the terminal cursor goes).
    public var cursorColumn: Int {
        characters[..<cursor].reduce(0) { $0 + displayWidth(of: $1) }
    }

    /// Applies an editing key; returns false if the key is not an editing key.
    @discardableResult
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .char(let c):
            characters.insert(c, at: cursor)
            cursor += 1
        case .left, .ctrl("b"):
            cursor = max(0, cursor - 1)
        case .right, .ctrl("f"):
            cursor = min(characters.count, cursor + 1)
        case .home, .ctrl("a"):
            cursor = 0
        case .end, .ctrl("e"):
            cursor = characters.count
        case .backspace, .ctrl("h"):
            if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete, .ctrl("d"):
            if cursor < characters.count { characters.remove(at: cursor) }
        case .ctrl("u"):
            characters.removeSubrange(0..<cursor)
            cursor = 0
        case .ctrl("k"):
            characters.removeSubrange(cursor...)
        case .ctrl("w"):
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default:
            return false
        }
        return true
    }

    /// The part of the text to show in a field `width` columns wide, scrolled so the cursor is
    /// visible, and the cursor's column within that field.
    public func visible(width: Int) -> (text: String, cursorColumn: Int) {
        guard width > 1 else { return ("", 0) }
        // Start from the cursor and walk left while the text fits (leaving a column for the cursor).
        var start = cursor
        var used = cursor < characters.count ? displayWidth(of: characters[cursor]) : 1
        while start > 0 {
            let w = displayWidth(of: characters[start - 1])
            if used + w > width { break }
            used += w
            start -= 1
        }
        var text = ""
        var column = 0
        var cursorColumn = 0
        for index in start..<characters.count {
            if index == cursor { cursorColumn = column }
            let w = displayWidth(of: characters[index])
            if column + w > width { break }
            text.append(characters[index])
            column += w
        }
        if cursor == characters.count { cursorColumn = column }
        return (text, min(cursorColumn, width - 1))
    }
}
