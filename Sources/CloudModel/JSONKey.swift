#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An object member's key as the pull reader found it: its bytes where they lie in the buffer (a key written
/// without escapes, the usual case), else its decoded text. Matched against literals without making a `String`.
///
/// Only valid inside the `readObject` body it is handed to (it points into the buffer being read).
struct JSONKey {
    private let base: UnsafePointer<UInt8>?
    private let count: Int
    private let decoded: String?

    /// The key of `range` in `buffer`, a string without escapes (checked by `Cursor.plainString`).
    init(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        base = buffer.baseAddress.map { $0 + range.lowerBound }
        count = range.count
        decoded = nil
    }

    /// A key that had escapes, decoded.
    init(decoded: String) {
        base = nil
        count = 0
        self.decoded = decoded
    }

    /// The key as a string (made on demand: field names, unknown keys in messages).
    var string: String {
        if let decoded { return decoded }
        guard let base else { return "" }
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// Whether the key is exactly the UTF-8 bytes `spelled`.
    private func spells(_ spelled: UnsafeBufferPointer<UInt8>) -> Bool {
        if let decoded { return decoded.utf8.elementsEqual(spelled) }
        guard count == spelled.count else { return false }
        guard let base, let letters = spelled.baseAddress else { return count == 0 }
        return memcmp(base, letters, count) == 0
    }

    /// Whether the key is exactly `word`.
    static func == (key: JSONKey, word: StaticString) -> Bool {
        word.withUTF8Buffer { key.spells($0) }
    }

    /// The place of the key among `names`, compared as UTF-8 bytes (JSON compares keys by their characters, not by
    /// Unicode equivalence); nil when it is none of them.
    func position(in names: [String]) -> Int? {
        names.firstIndex { name in
            name.utf8.withContiguousStorageIfAvailable { spells($0) } ?? Array(name.utf8).withUnsafeBufferPointer { spells($0) }
        }
    }

    /// `case "recordName":` in a `switch` over a key.
    static func ~= (word: StaticString, key: JSONKey) -> Bool { key == word }
}

extension JSONParser.Cursor {
    /// At a `"`: an object's key, read in place when it has no escapes.
    mutating func key() throws(JSONParseError) -> JSONKey {
        let opening = index
        if let range = plainString() { return JSONKey(buffer, range) }
        index = opening
        return JSONKey(decoded: try string())
    }
}
