/// A list of strings as one TEXT column: each element as its UTF-8 length, a colon and the element (`3:abc2:de`).
///
/// Any text survives (separators, control characters, newlines), and reading 100,000 rows costs no JSON decoding.
/// Text that is not in this form (a damaged file) reads as the elements read before the damage.
enum StringListColumn {
    /// The column text of `elements`.
    static func encode(_ elements: [String]) -> String {
        var text = ""
        for element in elements {
            text += String(element.utf8.count)
            text += ":"
            text += element
        }
        return text
    }

    /// The elements of a column's text.
    static func decode(_ text: String) -> [String] {
        Array(text.utf8).withUnsafeBufferPointer(decode)
    }

    /// The elements of a column's text, from its UTF-8 bytes.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var elements: [String] = []
        var index = 0
        while index < bytes.count {
            var length = 0
            var digits = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]), digits < 10 {
                length = length * 10 + Int(bytes[index] - 0x30)
                index += 1
                digits += 1
            }
            guard digits > 0, index < bytes.count, bytes[index] == 0x3A, length <= bytes.count - index - 1 else { break }
            index += 1
            elements.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]), as: UTF8.self))
            index += length
        }
        return elements
    }
}
