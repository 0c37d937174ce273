/// Checks on names that reach storage and paths: ASCII only, bounded length.
enum Validation {
    /// Whether `text` is 1 to `maxLength` ASCII letters, digits or `extra` characters,
    /// starting with a letter (or also a digit when `letterFirst` is false).
    static func isName(_ text: String, maxLength: Int, extra: String, letterFirst: Bool = false) -> Bool {
        // Runs for every field of every record written: no copies, no sets.
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        var isFirst = true
        for byte in bytes {
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            let isDigit = byte >= 0x30 && byte <= 0x39
            if isFirst {
                guard isLetter || (!letterFirst && isDigit) else { return false }
                isFirst = false
            } else {
                guard isLetter || isDigit || extra.utf8.contains(byte) else { return false }
            }
        }
        return true
    }

    /// Whether `text` contains a C0 or C1 control character or DEL.
    static func hasControlCharacters(_ text: String) -> Bool {
        // In UTF-8: C0 and DEL are single bytes; C1 (U+0080–U+009F) is 0xC2 followed by 0x80–0x9F. Runs for every
        // record written, so on the bytes rather than decoded scalars.
        var afterC2 = false
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F || (afterC2 && byte <= 0x9F) { return true }
            afterC2 = byte == 0xC2
        }
        return false
    }
}
