// Fast decoding of the hot message types from a parsed `JSONValue`, mirroring their Codable shapes.

/// A JSON document that parsed but does not have the shape a message needs.
public struct WireFormatError: Error, Sendable, CustomStringConvertible {
    /// Where in the document, e.g. `operations[3].record.fields.title`.
    public var path: String
    public var message: String

    public var description: String { "\(message) at \(path)" }
}

extension JSONValue {
    /// This value as an object, or a shape error naming `path`.
    public func object(at path: String) throws(WireFormatError) -> [String: JSONValue] {
        guard case .object(let object) = self else { throw WireFormatError(path: path, message: "expected an object") }
        return object
    }

    /// This value as an array, or a shape error naming `path`.
    public func array(at path: String) throws(WireFormatError) -> [JSONValue] {
        guard case .array(let array) = self else { throw WireFormatError(path: path, message: "expected an array") }
        return array
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    func string(_ key: String, _ path: String) throws(WireFormatError) -> String? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw WireFormatError(path: "\(path).\(key)", message: "expected a string")
        }
    }

    func requiredString(_ key: String, _ path: String) throws(WireFormatError) -> String {
        guard let value = try string(key, path) else { throw WireFormatError(path: "\(path).\(key)", message: "missing") }
        return value
    }

    func int(_ key: String, _ path: String) throws(WireFormatError) -> Int64? {
        switch self[key] {
        case nil, .null?: return nil
        case .int(let i)?: return i
        case .double(let d)? where d.isFinite && d == d.rounded() && abs(d) < 9e15: return Int64(d)
        default: throw WireFormatError(path: "\(path).\(key)", message: "expected an integer")
        }
    }

    func bool(_ key: String, _ path: String) throws(WireFormatError) -> Bool? {
        switch self[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: throw WireFormatError(path: "\(path).\(key)", message: "expected true or false")
        }
    }
}

extension ZoneID {
    /// Reads `{zoneName, ownerRecordName?}`.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        let object = try json.object(at: path)
        self.init(zoneName: try object.requiredString("zoneName", path), ownerRecordName: try object.string("ownerRecordName", path))
    }
}

extension RecordStamp {
    /// Reads `{timestamp, userRecordName, deviceID?}`.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        let object = try json.object(at: path)
        guard let timestamp = try object.int("timestamp", path) else { throw WireFormatError(path: "\(path).timestamp", message: "missing") }
        self.init(timestamp: timestamp, userRecordName: try object.string("userRecordName", path) ?? "", deviceID: try object.string("deviceID", path))
    }
}

extension FieldValue {
    /// Reads a field value: `{"value", "type"?}` or a bare JSON value.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        do {
            if case .object(let object) = json, let raw = object["value"] {
                let type: String?
                switch object["type"] {
                case nil, .null?: type = nil
                case .string(let t)?: type = t
                default: throw WireFormatError(path: "\(path).type", message: "expected a type name")
                }
                self = try FieldValue.make(typeName: type, raw: raw)
            } else {
                self = try FieldValue.make(typeName: nil, raw: json)
            }
        } catch let error as WireFormatError {
            throw error
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error { throw WireFormatError(path: path, message: context.debugDescription) }
            throw WireFormatError(path: path, message: "invalid value")
        } catch {
            throw WireFormatError(path: path, message: "invalid value")
        }
    }
}

extension Record {
    /// Reads a record in the web services' shape.
    public init(json: JSONValue, path: String = "record") throws(WireFormatError) {
        let object = try json.object(at: path)
        self.init(recordName: try object.requiredString("recordName", path))
        recordType = try object.string("recordType", path)
        recordChangeTag = try object.string("recordChangeTag", path)
        if let fields = object["fields"], fields != .null {
            var decoded: [String: FieldValue] = [:]
            for (name, value) in try fields.object(at: "\(path).fields") {
                decoded[name] = try FieldValue(json: value, path: "\(path).fields.\(name)")
            }
            self.fields = decoded
        }
        if let created = object["created"], created != .null { self.created = try RecordStamp(json: created, path: "\(path).created") }
        if let modified = object["modified"], modified != .null { self.modified = try RecordStamp(json: modified, path: "\(path).modified") }
        deleted = try object.bool("deleted", path)
        if let zone = object["zoneID"], zone != .null { zoneID = try ZoneID(json: zone, path: "\(path).zoneID") }
        if let parent = object["parent"], parent != .null {
            let name = try parent.object(at: "\(path).parent").requiredString("recordName", "\(path).parent")
            self.parent = ParentReference(recordName: name)
        }
        if let share = object["share"], share != .null,
            case .reference(let reference) = try FieldValue(json: .object(["value": share, "type": .string("REFERENCE")]), path: "\(path).share")
        {
            self.share = reference
        }
    }
}

extension ServerError {
    /// Reads an error body or a per-item error.
    public init(json: JSONValue, path: String) throws(WireFormatError) {
        let object = try json.object(at: path)
        guard let code = ServerErrorCode(wire: try object.requiredString("serverErrorCode", path), condition: try object.string("condition", path))
        else {
            throw WireFormatError(path: "\(path).serverErrorCode", message: "unknown error code")
        }
        self.init(code, try object.string("reason", path) ?? code.rawValue, uuid: try object.string("uuid", path))
        switch object["retryAfter"] {
        case .int(let i)?: retryAfter = Double(i)
        case .double(let d)?: retryAfter = d
        default: break
        }
        recordName = try object.string("recordName", path)
        subscriptionID = try object.string("subscriptionID", path)
        rootRecordName = try object.string("rootRecordName", path)
        shareRecordName = try object.string("shareRecordName", path)
        if let zone = object["zoneID"], zone != .null { zoneID = try ZoneID(json: zone, path: "\(path).zoneID") }
        if let record = object["serverRecord"], record != .null { serverRecord = try Record(json: record, path: "\(path).serverRecord") }
    }
}
