/// A pull reader over JSON bytes for the hot messages: it decodes records straight from the bytes,
/// without building a `JSONValue` tree of dictionaries first. Same strictness as `JSONParser`.
struct JSONReader {
    var cursor: JSONParser.Cursor
    private var depth = 0
    /// The last stamp and zone ID read, with where their JSON lay: the records of one answer or page mostly repeat
    /// them byte for byte, and a repeat is then taken whole instead of read (and its strings made) again.
    var lastStamp: (json: Range<Int>, value: RecordStamp)?
    var lastZoneID: (json: Range<Int>, value: ZoneID)?

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        cursor = JSONParser.Cursor(buffer: buffer)
    }

    /// A reader of the value at `start`, `depth` containers deep (positions in errors stay those of the whole buffer).
    init(_ buffer: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int) {
        cursor = JSONParser.Cursor(buffer: buffer, index: start)
        self.depth = depth
    }

    /// Where the reader stands in its buffer.
    var position: Int { cursor.index }

    /// A parse error at the reader's position.
    func error(_ message: String) -> JSONParseError { cursor.error(message) }

    /// Checks that nothing but whitespace is left in the buffer.
    mutating func expectEnd() throws {
        cursor.skipWhitespace()
        guard cursor.index == cursor.buffer.count else { throw cursor.error("unexpected data after the JSON value") }
    }

    /// Runs `body` over the bytes of `data`, then checks nothing but whitespace follows.
    static func read<T>(_ bytes: some Collection<UInt8>, _ body: (inout JSONReader) throws -> T) throws -> T {
        func read(_ buffer: UnsafeBufferPointer<UInt8>) throws -> T {
            var reader = JSONReader(buffer)
            let value = try body(&reader)
            reader.cursor.skipWhitespace()
            guard reader.cursor.index == buffer.count else { throw reader.cursor.error("unexpected data after the JSON value") }
            return value
        }
        // Contiguous bytes (a request's Data, an array) are read in place; others are copied once.
        if let value = try bytes.withContiguousStorageIfAvailable(read) { return value }
        return try Array(bytes).withUnsafeBufferPointer(read)
    }

    /// The next byte after whitespace (which is skipped), or nil at the end.
    var next: UInt8? {
        mutating get {
            cursor.skipWhitespace()
            return cursor.index < cursor.buffer.count ? cursor.buffer[cursor.index] : nil
        }
    }

    /// Whether the next value is `null` (consumed if so).
    mutating func readNull() throws -> Bool {
        guard next == UInt8(ascii: "n") else { return false }
        try cursor.literal("null")
        return true
    }

    /// Reads an object, calling `body` with each key (read in place, not made a `String`); `body` must read (or skip)
    /// the value.
    mutating func readObject(at path: @autoclosure () -> String, _ body: (inout JSONReader, JSONKey) throws -> Void) throws {
        guard try enter(UInt8(ascii: "{"), UInt8(ascii: "}"), expected: "expected an object", at: path) else { return }
        repeat {
            guard next == UInt8(ascii: "\"") else { throw cursor.error("expected a key") }
            let key = try cursor.key()
            guard next == UInt8(ascii: ":") else { throw cursor.error("expected ':'") }
            cursor.index += 1
            try body(&self, key)
        } while try continues(UInt8(ascii: "}"), expected: "expected ',' or '}'")
    }

    /// Reads an array, calling `body` for each element with its index.
    mutating func readArray(at path: @autoclosure () -> String, _ body: (inout JSONReader, Int) throws -> Void) throws {
        guard try enter(UInt8(ascii: "["), UInt8(ascii: "]"), expected: "expected an array", at: path) else { return }
        var index = 0
        repeat {
            try body(&self, index)
            index += 1
        } while try continues(UInt8(ascii: "]"), expected: "expected ',' or ']'")
    }

    /// Steps into an object or array one level deeper; false when it is empty (and already left).
    mutating func enter(_ open: UInt8, _ close: UInt8, expected: String, at path: () -> String) throws -> Bool {
        guard next == open else { throw WireFormatError(path: path(), message: expected) }
        depth += 1
        guard depth <= JSONParser.maxDepth else { throw cursor.error("JSON nested deeper than \(JSONParser.maxDepth)") }
        cursor.index += 1
        guard next == close else { return true }
        cursor.index += 1
        depth -= 1
        return false
    }

    /// After a member: true when a comma says another follows, false when `close` ends the container (left).
    mutating func continues(_ close: UInt8, expected: String) throws -> Bool {
        switch next {
        case UInt8(ascii: ","):
            cursor.index += 1
            return true
        case close:
            cursor.index += 1
            depth -= 1
            return false
        default: throw cursor.error(expected)
        }
    }

    /// Reads any value as a tree (for the rare, unknown or loosely typed parts).
    mutating func readValue() throws -> JSONValue {
        cursor.skipWhitespace()
        return try cursor.value(depth: depth)
    }

    /// Reads a string, or nil for `null`.
    mutating func readString(at path: @autoclosure () -> String) throws -> String? {
        if try readNull() { return nil }
        guard next == UInt8(ascii: "\"") else { throw WireFormatError(path: path(), message: "expected a string") }
        return try cursor.string()
    }

    /// Reads an integer (or an integral double), or nil for `null`.
    mutating func readInt(at path: @autoclosure () -> String) throws -> Int64? {
        switch try readValue() {
        case .null: return nil
        case .int(let i): return i
        case .double(let d) where d.isFinite && d == d.rounded() && abs(d) < 9e15: return Int64(d)
        default: throw WireFormatError(path: path(), message: "expected an integer")
        }
    }

    /// Reads a boolean, or nil for `null`.
    mutating func readBool(at path: @autoclosure () -> String) throws -> Bool? {
        switch try readValue() {
        case .null: return nil
        case .bool(let b): return b
        default: throw WireFormatError(path: path(), message: "expected true or false")
        }
    }
}
