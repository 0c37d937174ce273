/// Checks on names that reach storage and paths: ASCII only, bounded length.
enum Validation {
    /// Whether `text` is 1 to `maxLength` ASCII letters, digits or `extra` characters,
    /// starting with a letter (or also a digit when `letterFirst` is false).
    static func isName(_ text: String, maxLength: Int, extra: String, letterFirst: Bool = false) -> Bool {
        // Runs for every field of every record written: on the string's own bytes, no copies, no sets.
        let utf8 = text.utf8
        if let checked = utf8.withContiguousStorageIfAvailable({ isName($0, maxLength: maxLength, extra: extra, letterFirst: letterFirst) }) {
            return checked
        }
        return Array(utf8).withUnsafeBufferPointer { isName($0, maxLength: maxLength, extra: extra, letterFirst: letterFirst) }
    }

    private static func isName(_ bytes: UnsafeBufferPointer<UInt8>, maxLength: Int, extra: String, letterFirst: Bool) -> Bool {
        guard let first = bytes.first, bytes.count <= maxLength else { return false }
        // `byte | 0x20` is a lowercase ASCII letter exactly when `byte` is an ASCII letter of either case.
        let firstIsLetter = (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A
        guard firstIsLetter || (!letterFirst && first >= 0x30 && first <= 0x39) else { return false }
        for byte in bytes.dropFirst() {
            let lower = byte | 0x20
            if (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) { continue }
            guard extra.utf8.contains(byte) else { return false }
        }
        return true
    }

    /// Whether `name` can name a record: 1 to 255 bytes without control characters (a record's, a share root's, a
    /// share record's).
    static func isRecordName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !hasControlCharacters(name)
    }

    /// Whether `text` contains a C0 or C1 control character or DEL.
    static func hasControlCharacters(_ text: String) -> Bool {
        // In UTF-8: C0 and DEL are single bytes; C1 (U+0080–U+009F) is 0xC2 followed by 0x80–0x9F. Runs for every
        // record written, so on the bytes rather than decoded scalars, and on the string's own buffer: iterated as
        // `utf8`, it took 1,600 instructions for a 36-byte record name.
        var text = text
        return text.withUTF8 { bytes in
            var afterC2 = false
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (afterC2 && byte <= 0x9F) { return true }
                afterC2 = byte == 0xC2
            }
            return false
        }
    }
}
