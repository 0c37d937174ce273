// Streaming decoding of a `records/query` page, the device's hot path when it polls the public board.

extension QueryResponse {
    /// Reads a `records/query` page straight from its bytes: its records (a missing or `null` list reads as none)
    /// and its `continuationMarker`.
    public init(bytes: some Collection<UInt8>) throws {
        self = try JSONReader.read(bytes) { reader in
            var records: [Record] = []
            var marker: String?
            try reader.readObject(at: "$") { reader, key in
                switch key {
                case "records":
                    if try reader.readNull() { return }
                    try reader.readArray(at: "records") { reader, index in
                        records.append(try reader.readRecord(at: "records[\(index)]"))
                    }
                case "continuationMarker": marker = try reader.readString(at: "continuationMarker")
                default: _ = try reader.readValue()
                }
            }
            return QueryResponse(records: records, continuationMarker: marker)
        }
    }
}
