/// A pull reader over JSON bytes for the hot messages: it decodes records straight from the bytes,
/// without building a `JSONValue` tree of dictionaries first. Same strictness as `JSONParser`.
struct JSONReader {
    private var cursor: JSONParser.Cursor
    private var depth = 0
    /// The last stamp and zone ID read, with where their JSON lay: the records of one answer or page mostly repeat
    /// them byte for byte, and a repeat is then taken whole instead of read (and its strings made) again.
    private var lastStamp: (json: Range<Int>, value: RecordStamp)?
    private var lastZoneID: (json: Range<Int>, value: ZoneID)?

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

    private var next: UInt8? {
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

    /// Reads an object, calling `body` with each key; `body` must read (or skip) the value.
    mutating func readObject(at path: @autoclosure () -> String, _ body: (inout JSONReader, String) throws -> Void) throws {
        guard try enter(UInt8(ascii: "{"), UInt8(ascii: "}"), expected: "expected an object", at: path) else { return }
        repeat {
            guard next == UInt8(ascii: "\"") else { throw cursor.error("expected a key") }
            let key = try cursor.string()
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
    private mutating func enter(_ open: UInt8, _ close: UInt8, expected: String, at path: () -> String) throws -> Bool {
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
    private mutating func continues(_ close: UInt8, expected: String) throws -> Bool {
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

extension JSONReader {
    mutating func readZoneID(at path: @autoclosure () -> String) throws -> ZoneID {
        if let last = lastZoneID, repeats(last.json) { return last.value }
        cursor.skipWhitespace()
        let start = cursor.index
        let value = try readZoneIDMembers(at: path())
        lastZoneID = (start..<cursor.index, value)
        return value
    }

    /// Whether the JSON at the reader's position is the same bytes as at `earlier` (a whole object read before);
    /// if so, the reader steps over it.
    private mutating func repeats(_ earlier: Range<Int>) -> Bool {
        cursor.skipWhitespace()
        let start = cursor.index
        guard start != earlier.lowerBound, cursor.buffer.count - start >= earlier.count else { return false }
        let buffer = cursor.buffer
        for offset in 0..<earlier.count where buffer[start + offset] != buffer[earlier.lowerBound + offset] { return false }
        cursor.index += earlier.count
        return true
    }

    private mutating func readZoneIDMembers(at path: @autoclosure () -> String) throws -> ZoneID {
        var name: String?
        var owner: String?
        try readObject(at: path()) { reader, key in
            switch key {
            case "zoneName": name = try reader.readString(at: "\(path()).zoneName")
            case "ownerRecordName": owner = try reader.readString(at: "\(path()).ownerRecordName")
            default: _ = try reader.readValue()
            }
        }
        guard let name else { throw WireFormatError(path: "\(path()).zoneName", message: "missing") }
        return ZoneID(zoneName: name, ownerRecordName: owner)
    }

    mutating func readStamp(at path: @autoclosure () -> String) throws -> RecordStamp {
        if let last = lastStamp, repeats(last.json) { return last.value }
        cursor.skipWhitespace()
        let start = cursor.index
        let value = try readStampMembers(at: path())
        lastStamp = (start..<cursor.index, value)
        return value
    }

    private mutating func readStampMembers(at path: @autoclosure () -> String) throws -> RecordStamp {
        var timestamp: Int64?
        var user = ""
        var device: String?
        try readObject(at: path()) { reader, key in
            switch key {
            case "timestamp": timestamp = try reader.readInt(at: "\(path()).timestamp")
            case "userRecordName": user = try reader.readString(at: "\(path()).userRecordName") ?? ""
            case "deviceID": device = try reader.readString(at: "\(path()).deviceID")
            default: _ = try reader.readValue()
            }
        }
        guard let timestamp else { throw WireFormatError(path: "\(path()).timestamp", message: "missing") }
        return RecordStamp(timestamp: timestamp, userRecordName: user, deviceID: device)
    }

    /// A field value; the common `{"type": T, "value": scalar}` shape is read without a tree.
    mutating func readField(at path: @autoclosure () -> String) throws -> FieldValue {
        var typed = false
        return try readField(at: path(), typed: &typed)
    }

    /// A field value as `readField` reads it; `typed` says whether it named its `type` (else the JSON shape chose).
    mutating func readField(at path: @autoclosure () -> String, typed: inout Bool) throws -> FieldValue {
        typed = false
        guard next == UInt8(ascii: "{") else { return try FieldValue(json: try readValue(), path: path()) }
        var type: String?
        var fast: FieldValue?
        var raw: JSONValue?
        var typeIsJSONString = true
        try readObject(at: path()) { reader, key in
            switch key {
            case "type":
                switch try reader.readValue() {
                case .string(let t): type = t
                case .null: type = nil
                default: typeIsJSONString = false
                }
            case "value":
                // With the type already known, the common scalars are read directly.
                switch type {
                case "STRING" where reader.next == UInt8(ascii: "\""): fast = .string(try reader.cursor.string())
                default: raw = try reader.readValue()
                }
            default:
                _ = try reader.readValue()
            }
        }
        guard typeIsJSONString else { throw WireFormatError(path: "\(path()).type", message: "expected a type name") }
        typed = type != nil
        if let fast { return fast }
        guard let raw else {
            throw WireFormatError(path: path(), message: "a field value needs a \"value\"")
        }
        var object: [String: JSONValue] = ["value": raw]
        if let type { object["type"] = .string(type) }
        return try FieldValue(json: .object(object), path: path())
    }

    /// A `fields` object with each value kept as canonical JSON. The common shapes are checked and copied as
    /// they are scanned; any other value is read as a `FieldValue` (with the same errors) and written canonically.
    mutating func readEncodedFields(at path: @autoclosure () -> String) throws -> EncodedFields {
        var fields = EncodedFields(reserving: 8, bytes: 512)
        try readObject(at: path()) { reader, name in
            let start = reader.cursor.index
            if reader.copyCommonField(name, into: &fields) { return }
            reader.cursor.index = start
            var typed = false
            let value = try reader.readField(at: "\(path()).\(name)", typed: &typed)
            fields.append(name, value, typed: typed)
        }
        return fields
    }

    /// The fast path of `readEncodedFields`: `{"type":T,"value":V}` with the keys in either order, T one of
    /// STRING, INT64, TIMESTAMP and V a string without escapes (STRING) or a plain integer (INT64, TIMESTAMP).
    /// Appends the canonical JSON and answers true; for anything else answers false, having appended nothing,
    /// and the caller rewinds and reads the value the general way.
    private mutating func copyCommonField(_ name: String, into fields: inout EncodedFields) -> Bool {
        guard next == UInt8(ascii: "{") else { return false }
        cursor.index += 1
        var type: FieldType?
        var text: Range<Int>?
        var integer: Int64?
        var integerToken = 0..<0
        while true {
            guard next == UInt8(ascii: "\""), let key = cursor.plainString() else { return false }
            guard next == UInt8(ascii: ":") else { return false }
            cursor.index += 1
            if cursor.spells(key, "type") {
                guard type == nil, next == UInt8(ascii: "\""), let name = cursor.plainString() else { return false }
                if cursor.spells(name, "STRING") {
                    type = .string
                } else if cursor.spells(name, "INT64") {
                    type = .int64
                } else if cursor.spells(name, "TIMESTAMP") {
                    type = .timestamp
                } else {
                    return false
                }
            } else if cursor.spells(key, "value") {
                guard text == nil, integer == nil else { return false }
                if next == UInt8(ascii: "\"") {
                    guard let range = cursor.plainString() else { return false }
                    text = range
                } else {
                    let start = cursor.index
                    guard let value = cursor.plainInteger() else { return false }
                    integer = value
                    integerToken = start..<cursor.index
                }
            } else {
                return false
            }
            switch next {
            case UInt8(ascii: ","): cursor.index += 1
            case UInt8(ascii: "}"):
                cursor.index += 1
                switch type {
                case .string?:
                    guard let text else { return false }
                    let quoted = cursor.buffer[(text.lowerBound - 1)..<(text.upperBound + 1)]
                    fields.append(name) { bytes in
                        bytes.append(contentsOf: #"{"type":"STRING","value":"#.utf8)
                        bytes.append(contentsOf: quoted)
                        bytes.append(UInt8(ascii: "}"))
                    }
                case let integerType? where integerType == .int64 || integerType == .timestamp:
                    guard let integer else { return false }
                    // A plain integer token is already how the number is written, except for "-0".
                    let token = cursor.buffer[integerToken]
                    fields.append(name) { bytes in
                        bytes.append(contentsOf: integerType == .int64 ? #"{"type":"INT64","value":"#.utf8 : #"{"type":"TIMESTAMP","value":"#.utf8)
                        if integer == 0 { bytes.append(UInt8(ascii: "0")) } else { bytes.append(contentsOf: token) }
                        bytes.append(UInt8(ascii: "}"))
                    }
                default:
                    return false
                }
                return true
            default:
                return false
            }
        }
    }

    /// Reads one of a record's own members (all but `recordName` and `fields`, which callers read their own way)
    /// into `record`; false when `key` is not one of them.
    mutating func readRecordMember(_ key: String, into record: inout Record, at path: () -> String) throws -> Bool {
        switch key {
        case "recordType": record.recordType = try readString(at: "\(path()).recordType")
        case "recordChangeTag": record.recordChangeTag = try readString(at: "\(path()).recordChangeTag")
        case "created": if !(try readNull()) { record.created = try readStamp(at: "\(path()).created") }
        case "modified": if !(try readNull()) { record.modified = try readStamp(at: "\(path()).modified") }
        case "deleted": record.deleted = try readBool(at: "\(path()).deleted")
        case "zoneID": if !(try readNull()) { record.zoneID = try readZoneID(at: "\(path()).zoneID") }
        case "parent":
            if try readNull() { return true }
            var name: String?
            try readObject(at: "\(path()).parent") { reader, key in
                if key == "recordName" { name = try reader.readString(at: "\(path()).parent.recordName") } else { _ = try reader.readValue() }
            }
            guard let name else { throw WireFormatError(path: "\(path()).parent.recordName", message: "missing") }
            record.parent = ParentReference(recordName: name)
        case "share":
            let value = try readValue()
            if value != .null {
                record.share = try FieldValue(json: .object(["value": value, "type": .string("REFERENCE")]), path: "\(path()).share").referenceValue
            }
        default:
            return false
        }
        return true
    }

    /// A record in the web services' shape.
    mutating func readRecord(at path: @autoclosure () -> String) throws -> Record {
        var unused: EncodedFields?
        return try readRecord(at: path(), encodingFields: false, into: &unused)
    }

    /// A record in the web services' shape; with `encodingFields`, its `fields` go to `encoded` as canonical
    /// JSON and `record.fields` stays nil.
    /// Without `nameRequired`, a missing `recordName` reads as empty (a create whose name the server assigns).
    mutating func readRecord(
        at path: @autoclosure () -> String, encodingFields: Bool, into encoded: inout EncodedFields?, nameRequired: Bool = true
    ) throws -> Record {
        var record = Record(recordName: "")
        var hasName = false
        try readObject(at: path()) { reader, key in
            switch key {
            case "recordName":
                record.recordName = try reader.readString(at: "\(path()).recordName") ?? ""
                hasName = true
            case "fields" where encodingFields:
                if try reader.readNull() { return }
                encoded = try reader.readEncodedFields(at: "\(path()).fields")
            case "fields":
                if try reader.readNull() { return }
                var fields: [String: FieldValue] = [:]
                try reader.readObject(at: "\(path()).fields") { reader, name in
                    fields[name] = try reader.readField(at: "\(path()).fields.\(name)")
                }
                record.fields = fields
            default:
                if !(try reader.readRecordMember(key, into: &record, at: path)) { _ = try reader.readValue() }
            }
        }
        guard hasName || !nameRequired else { throw WireFormatError(path: "\(path()).recordName", message: "missing") }
        return record
    }
}

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
    mutating func readRequestMember(_ key: String, into request: inout ModifyRecordsRequest) throws {
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

extension ZoneChangesResponse {
    /// Reads a `changes/zone` response straight from its bytes.
    public init(bytes: some Collection<UInt8>) throws {
        self = try JSONReader.read(bytes) { reader in
            var zones: [ZoneChanges] = []
            try reader.readObject(at: "$") { reader, key in
                guard key == "zones" else {
                    _ = try reader.readValue()
                    return
                }
                try reader.readArray(at: "zones") { reader, index in
                    let path = "zones[\(index)]"
                    var zoneID: ZoneID?
                    var records: [Record] = []
                    var token: ChangeToken?
                    var moreComing = false
                    var code: String?
                    var reason: String?
                    var condition: String?
                    var retryAfter: Double?
                    try reader.readObject(at: path) { reader, key in
                        switch key {
                        case "zoneID": zoneID = try reader.readZoneID(at: "\(path).zoneID")
                        case "records":
                            records.reserveCapacity(CloudLimits.maxResultsPerPage)
                            try reader.readArray(at: "\(path).records") { reader, offset in
                                records.append(try reader.readRecord(at: "\(path).records[\(offset)]"))
                            }
                        case "syncToken": token = try reader.readString(at: "\(path).syncToken").map(ChangeToken.init(rawValue:))
                        case "moreComing": moreComing = try reader.readBool(at: "\(path).moreComing") ?? false
                        case "serverErrorCode": code = try reader.readString(at: "\(path).serverErrorCode")
                        case "condition": condition = try reader.readString(at: "\(path).condition")
                        case "reason": reason = try reader.readString(at: "\(path).reason")
                        case "retryAfter":
                            switch try reader.readValue() {
                            case .int(let i): retryAfter = Double(i)
                            case .double(let d): retryAfter = d
                            default: break
                            }
                        default: _ = try reader.readValue()
                        }
                    }
                    guard let zoneID else { throw WireFormatError(path: "\(path).zoneID", message: "missing") }
                    var changes = ZoneChanges(zoneID: zoneID, records: records, syncToken: token, moreComing: moreComing)
                    if let code {
                        changes.serverErrorCode = ServerErrorCode(wire: code, condition: condition) ?? .internalError
                        changes.reason = reason
                        changes.retryAfter = retryAfter
                    }
                    zones.append(changes)
                }
            }
            return ZoneChangesResponse(zones: zones)
        }
    }
}
