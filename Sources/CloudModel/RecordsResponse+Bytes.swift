// Streaming decoding of the `records/modify` answer, the device's hot path when it sends its outbox.

extension RecordsResponse {
    /// Reads a `records` result list straight from its bytes: each item a record or a per-item error.
    ///
    /// Same results and strictness as decoding the `JSONParser` tree with `init(json:)`, without building the tree.
    public init(bytes: some Collection<UInt8>) throws {
        self = try JSONReader.read(bytes) { reader in
            var results: [RecordResult] = []
            try reader.readObject(at: "$") { reader, key in
                guard key == "records" else {
                    _ = try reader.readValue()
                    return
                }
                results.reserveCapacity(CloudLimits.maxOperationsPerRequest)
                try reader.readArray(at: "records") { reader, index in
                    results.append(try reader.readRecordResult(at: "records[\(index)]"))
                }
            }
            return RecordsResponse(records: results)
        }
    }
}

extension JSONReader {
    /// One item of a result list: a record, or (when it names a `serverErrorCode`) a per-item error.
    mutating func readRecordResult(at path: @autoclosure () -> String) throws -> RecordResult {
        var record = Record(recordName: "")
        var hasName = false
        var name: String?
        var isError = false
        var code: String?
        var condition: String?
        var reason: String?
        var uuid: String?
        var retryAfter: Double?
        var subscriptionID: String?
        var rootRecordName: String?
        var shareRecordName: String?
        var serverRecord: Record?
        try readObject(at: path()) { reader, key in
            switch key {
            case "serverErrorCode":
                isError = true
                code = try reader.readString(at: "\(path()).serverErrorCode")
            case "condition": condition = try reader.readString(at: "\(path()).condition")
            case "reason": reason = try reader.readString(at: "\(path()).reason")
            case "uuid": uuid = try reader.readString(at: "\(path()).uuid")
            case "retryAfter":
                switch try reader.readValue() {
                case .int(let i): retryAfter = Double(i)
                case .double(let d): retryAfter = d
                default: break
                }
            case "subscriptionID": subscriptionID = try reader.readString(at: "\(path()).subscriptionID")
            case "rootRecordName": rootRecordName = try reader.readString(at: "\(path()).rootRecordName")
            case "shareRecordName": shareRecordName = try reader.readString(at: "\(path()).shareRecordName")
            case "serverRecord":
                if !(try reader.readNull()) { serverRecord = try reader.readRecord(at: "\(path()).serverRecord") }
            case "recordName":
                name = try reader.readString(at: "\(path()).recordName")
                record.recordName = name ?? ""
                hasName = true
            case "fields":
                if try reader.readNull() { return }
                var fields: [String: FieldValue] = [:]
                try reader.readObject(at: "\(path()).fields") { reader, key in
                    // Room for a todo's fields, made at the first one: a save's answer has none (`desiredKeys: []`).
                    if fields.isEmpty { fields.reserveCapacity(8) }
                    let name = key.string
                    fields[name] = try reader.readTypedField(at: "\(path()).fields.\(name)")
                }
                record.fields = fields
            default:
                if !(try reader.readRecordMember(key, into: &record, at: path)) { _ = try reader.readValue() }
            }
        }
        if isError {
            guard let code else { throw WireFormatError(path: "\(path()).serverErrorCode", message: "missing") }
            guard let known = ServerErrorCode(wire: code, condition: condition) else {
                throw WireFormatError(path: "\(path()).serverErrorCode", message: "unknown error code")
            }
            var error = ServerError(known, reason ?? known.rawValue, uuid: uuid)
            error.retryAfter = retryAfter
            error.recordName = name
            error.subscriptionID = subscriptionID
            error.rootRecordName = rootRecordName
            error.shareRecordName = shareRecordName
            error.zoneID = record.zoneID
            error.serverRecord = serverRecord
            return .failure(error)
        }
        guard hasName else { throw WireFormatError(path: "\(path()).recordName", message: "missing") }
        return .record(record)
    }
}

extension JSONReader {
    /// A field value, like `readField`, with every scalar type read without building an object tree first.
    mutating func readTypedField(at path: @autoclosure () -> String) throws -> FieldValue {
        var type: String?
        var typeIsString = true
        var raw: JSONValue?
        var sawKey = false
        do {
            try readObject(at: path()) { reader, key in
                sawKey = true
                switch key {
                case "type":
                    switch try reader.readValue() {
                    case .string(let name): type = name
                    case .null: type = nil
                    default: typeIsString = false
                    }
                case "value": raw = try reader.readValue()
                default: _ = try reader.readValue()
                }
            }
        } catch let error as WireFormatError where !sawKey && error.message == "expected an object" {
            return try FieldValue(json: try readValue(), path: path())  // a bare value (older clients)
        }
        guard typeIsString else { throw WireFormatError(path: "\(path()).type", message: "expected a type name") }
        guard let raw else { throw WireFormatError(path: path(), message: "a field value needs a \"value\"") }
        if let value = try? FieldValue.make(typeName: type, raw: raw) { return value }
        // Refused: let the tree decoder say why, in its words.
        var object: [String: JSONValue] = ["value": raw]
        if let type { object["type"] = .string(type) }
        return try FieldValue(json: .object(object), path: path())
    }
}
