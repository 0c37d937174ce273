// Streaming decoding of a `records/modify` body, the cloud's hot path for writes.

extension ModifyRecordsRequest {
    /// Reads a `records/modify` body straight from its bytes.
    public init(bytes: some Collection<UInt8>) throws {
        self = try Self.read(bytes, encodingFields: false).request
    }

    /// Reads a `records/modify` body for storage: each record's `fields` are validated (with the same errors as
    /// `init(bytes:)`) and kept as canonical JSON in `fields[i]` for operation `i`; `record.fields` stays nil.
    public static func readForStorage(bytes: some Collection<UInt8>) throws -> (request: ModifyRecordsRequest, fields: [EncodedFields?]) {
        try read(bytes, encodingFields: true)
    }

    private static func read(
        _ bytes: some Collection<UInt8>, encodingFields: Bool
    ) throws -> (request: ModifyRecordsRequest, fields: [EncodedFields?]) {
        // Room for the operations a body of this size can hold, so the list is not copied as it grows.
        let expected = min(CloudLimits.maxOperationsPerRequest, bytes.count / 128 + 1)
        return try JSONReader.read(bytes) { reader in
            var operations: [RecordOperation]?
            var encoded: [EncodedFields?] = []
            var request = ModifyRecordsRequest(operations: [])
            try reader.readObject(at: "$") { reader, key in
                switch key {
                case "operations":
                    var list: [RecordOperation] = []
                    var fieldList: [EncodedFields?] = []
                    list.reserveCapacity(expected)
                    if encodingFields { fieldList.reserveCapacity(expected) }
                    try reader.readArray(at: "operations") { reader, index in
                        let (operation, fields) = try reader.readOperation(index: index, encodingFields: encodingFields)
                        list.append(operation)
                        if encodingFields { fieldList.append(fields) }
                    }
                    operations = list
                    encoded = fieldList
                default: try reader.readRequestMember(key, into: &request)
                }
            }
            guard let operations else { throw WireFormatError(path: "operations", message: "missing") }
            request.operations = operations
            return (request, encoded)
        }
    }
}

extension JSONReader {
    /// One element of a `records/modify` body's `operations`, and with `encodingFields` its fields as canonical JSON.
    mutating func readOperation(index: Int, encodingFields: Bool) throws -> (RecordOperation, EncodedFields?) {
        let path = "operations[\(index)]"
        var type: RecordOperationType?
        var record: Record?
        var fields: EncodedFields?
        var desired: [String]?
        try readObject(at: path) { reader, key in
            switch key {
            case "operationType":
                let name = try reader.readString(at: "\(path).operationType") ?? ""
                guard let known = RecordOperationType(rawValue: name) else {
                    throw WireFormatError(path: "\(path).operationType", message: "unknown operation type '\(name)'")
                }
                type = known
            case "record":
                fields = nil
                record = try reader.readRecord(at: "\(path).record", encodingFields: encodingFields, into: &fields, nameRequired: false)
            case "desiredKeys":
                if case .array(let keys) = try reader.readValue() {
                    desired = keys.compactMap { if case .string(let s) = $0 { s } else { nil } }
                }
            default: _ = try reader.readValue()
            }
        }
        guard let type else { throw WireFormatError(path: "\(path).operationType", message: "missing") }
        guard let record else { throw WireFormatError(path: "\(path).record", message: "missing") }
        // Only a create may leave the name to the server.
        if record.recordName.isEmpty, type != .create {
            throw WireFormatError(path: "\(path).record.recordName", message: "missing")
        }
        return (RecordOperation(type, record, desiredKeys: desired), fields)
    }

    /// A member of a `records/modify` body other than `operations` (unknown ones skipped).
    mutating func readRequestMember(_ key: JSONKey, into request: inout ModifyRecordsRequest) throws {
        switch key {
        case "zoneID": if !(try readNull()) { request.zoneID = try readZoneID(at: "zoneID") }
        case "atomic": request.atomic = try readBool(at: "atomic")
        case "numbersAsStrings": request.numbersAsStrings = try readBool(at: "numbersAsStrings")
        case "desiredKeys":
            if case .array(let keys) = try readValue() {
                request.desiredKeys = keys.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
        default: _ = try readValue()
        }
    }

    /// Where each element of an array lies, found by skipping over them without reading them; checks little beyond
    /// where strings and containers end (reading each element later checks the rest).
    mutating func skimArray(at path: @autoclosure () -> String) throws -> [Range<Int>] {
        guard try enter(UInt8(ascii: "["), UInt8(ascii: "]"), expected: "expected an array", at: path) else { return [] }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(CloudLimits.maxOperationsPerRequest)
        repeat {
            cursor.skipWhitespace()
            let start = cursor.index
            try cursor.skipValue()
            ranges.append(start..<cursor.index)
        } while try continues(UInt8(ascii: "]"), expected: "expected ',' or ']'")
        return ranges
    }
}

/// A `records/modify` body read for storage in two steps: a first pass reads its members besides `operations` and
/// finds where each operation lies; then each operation is read on its own, in any order and on any thread.
///
/// Reading an operation gives what `ModifyRecordsRequest.readForStorage` gives for it. A body the first pass cannot
/// split this way, or an operation that does not read cleanly, makes `readForStorage` the one to tell why.
public struct ModifyRecordsBody: Sendable {
    /// The request's members other than its operations (its `operations` is empty).
    public var header: ModifyRecordsRequest
    private let bytes: [UInt8]
    private let ranges: [Range<Int>]

    /// How many operations the body has.
    public var count: Int { ranges.count }

    /// The first pass over a body; throws when it cannot find the operations (let `readForStorage` say why).
    public init(bytes: [UInt8]) throws {
        self.bytes = bytes
        (header, ranges) = try bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            var header = ModifyRecordsRequest(operations: [])
            var ranges: [Range<Int>]?
            try reader.readObject(at: "$") { reader, key in
                if key == "operations" { ranges = try reader.skimArray(at: "operations") } else { try reader.readRequestMember(key, into: &header) }
            }
            try reader.expectEnd()
            guard let ranges else { throw WireFormatError(path: "operations", message: "missing") }
            return (header, ranges)
        }
    }

    /// Operation `index` and its fields as canonical JSON.
    public func operation(_ index: Int) throws -> (operation: RecordOperation, fields: EncodedFields?) {
        let range = ranges[index]
        return try bytes.withUnsafeBufferPointer { buffer in
            // Inside the body object and its operations array: two levels deep, as in a reading of the whole body.
            var reader = JSONReader(buffer, at: range.lowerBound, depth: 2)
            let read = try reader.readOperation(index: index, encodingFields: true)
            guard reader.position == range.upperBound else { throw reader.error("operation ends elsewhere than found") }
            return read
        }
    }
}
