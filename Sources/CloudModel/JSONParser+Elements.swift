extension JSONParser {
    /// Reads `bytes` as a JSON array without building it, handing `body` each element in turn: for an object, the
    /// values of the members `keys` names (at their place in `keys`, nil where absent, the last one when a key repeats;
    /// the other members are read and dropped), and nil for an element that is no object. Answers false, having handed
    /// nothing on, when the document is no array. Invalid JSON throws `JSONParseError` (possibly after some elements
    /// were handed on); what `body` throws is thrown as it is. Same strictness as `parse`.
    public static func forEachElement(
        of bytes: some Collection<UInt8>, keeping keys: [String], _ body: (Int, [JSONValue?]?) throws -> Void
    ) throws -> Bool {
        let whiteSpace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        guard bytes.first(where: { !whiteSpace.contains($0) }) == UInt8(ascii: "[") else { return false }
        return try JSONReader.read(bytes) { reader in
            try reader.readArray(at: "$") { reader, index in
                guard reader.next == UInt8(ascii: "{") else {
                    _ = try reader.readValue()
                    try body(index, nil)
                    return
                }
                var values = [JSONValue?](repeating: nil, count: keys.count)
                try reader.readObject(at: "$[\(index)]") { reader, key in
                    let value = try reader.readValue()
                    if let slot = key.position(in: keys) { values[slot] = value }
                }
                try body(index, values)
            }
            return true
        }
    }
}
