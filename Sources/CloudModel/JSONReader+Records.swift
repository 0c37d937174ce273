// The pull reader's parts of a record: zone IDs, stamps, field values and whole records.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        // One memcmp: compared byte by byte (each index checked) this was 3 % of a device's instructions sending 10,000.
        guard let base = cursor.buffer.baseAddress, memcmp(base + start, base + earlier.lowerBound, earlier.count) == 0 else {
            return false
        }
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
        try readObject(at: path()) { reader, key in
            let name = key.string
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
    /// STRING, INT64, TIMESTAMP and STRING_LIST and V a string without escapes (STRING), a plain integer (INT64,
    /// TIMESTAMP) or a non-empty array of such strings (STRING_LIST: tags, which every other todo has).
    /// Appends the canonical JSON and answers true; for anything else answers false, having appended nothing,
    /// and the caller rewinds and reads the value the general way.
    private mutating func copyCommonField(_ name: String, into fields: inout EncodedFields) -> Bool {
        enum Kind { case string, int64, timestamp, stringList }
        guard next == UInt8(ascii: "{") else { return false }
        let opening = cursor.index
        cursor.index += 1
        var type: Kind?
        // Whether the type came before the value (the canonical order).
        var typeFirst = false
        var text: Range<Int>?
        var integer: Int64?
        var integerToken = 0..<0
        var elements: [Range<Int>]?
        while true {
            guard next == UInt8(ascii: "\""), let key = cursor.plainString() else { return false }
            guard next == UInt8(ascii: ":") else { return false }
            cursor.index += 1
            if cursor.spells(key, "type") {
                guard type == nil, next == UInt8(ascii: "\""), let name = cursor.plainString() else { return false }
                typeFirst = text == nil && integer == nil && elements == nil
                if cursor.spells(name, "STRING") {
                    type = .string
                } else if cursor.spells(name, "INT64") {
                    type = .int64
                } else if cursor.spells(name, "TIMESTAMP") {
                    type = .timestamp
                } else if cursor.spells(name, "STRING_LIST") {
                    type = .stringList
                } else {
                    return false
                }
            } else if cursor.spells(key, "value") {
                guard text == nil, integer == nil, elements == nil else { return false }
                if next == UInt8(ascii: "\"") {
                    guard let range = cursor.plainString() else { return false }
                    text = range
                } else if next == UInt8(ascii: "[") {
                    cursor.index += 1
                    var strings: [Range<Int>] = []
                    while true {
                        guard next == UInt8(ascii: "\""), let range = cursor.plainString() else { return false }
                        strings.append(range)
                        guard let separator = next else { return false }
                        cursor.index += 1
                        if separator == UInt8(ascii: "]") { break }
                        guard separator == UInt8(ascii: ",") else { return false }
                    }
                    elements = strings
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
                // Sent in canonical form already (type first, nothing between the tokens: then the value's bytes are
                // exactly as long as the canonical ones): copied whole, in one piece instead of three.
                let canonicalLength: Int? =
                    switch type {
                    case .string?: text.map { JSONWriter.stringFieldOpening.utf8CodeUnitCount + $0.count + 3 }
                    case .int64?: integer.map { JSONWriter.int64FieldOpening.utf8CodeUnitCount + ($0 == 0 ? 1 : integerToken.count) + 1 }
                    case .timestamp?: integer.map { JSONWriter.timestampFieldOpening.utf8CodeUnitCount + ($0 == 0 ? 1 : integerToken.count) + 1 }
                    case .stringList?:
                        elements.map { JSONWriter.stringListFieldOpening.utf8CodeUnitCount + $0.reduce(0) { $0 + $1.count + 3 } - 1 + 2 }
                    case nil: nil
                    }
                if typeFirst, let canonicalLength, cursor.index - opening == canonicalLength {
                    fields.append(name, canonical: cursor.buffer[opening..<cursor.index])
                    return true
                }
                switch type {
                case .string?:
                    guard let text else { return false }
                    let quoted = cursor.buffer[(text.lowerBound - 1)..<(text.upperBound + 1)]
                    fields.append(name) { bytes in
                        JSONWriter.stringFieldOpening.withUTF8Buffer { bytes.append(contentsOf: $0) }
                        bytes.append(contentsOf: quoted)
                        bytes.append(UInt8(ascii: "}"))
                    }
                case .stringList?:
                    guard let elements else { return false }
                    let buffer = cursor.buffer
                    fields.append(name) { bytes in
                        JSONWriter.stringListFieldOpening.withUTF8Buffer { bytes.append(contentsOf: $0) }
                        for (index, element) in elements.enumerated() {
                            if index > 0 { bytes.append(UInt8(ascii: ",")) }
                            bytes.append(contentsOf: buffer[(element.lowerBound - 1)..<(element.upperBound + 1)])
                        }
                        bytes.append(contentsOf: "]}".utf8)
                    }
                case let integerType? where integerType == .int64 || integerType == .timestamp:
                    guard let integer else { return false }
                    // A plain integer token is already how the number is written, except for "-0".
                    let token = cursor.buffer[integerToken]
                    fields.append(name) { bytes in
                        (integerType == .int64 ? JSONWriter.int64FieldOpening : JSONWriter.timestampFieldOpening).withUTF8Buffer { bytes.append(contentsOf: $0) }
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
    mutating func readRecordMember(_ key: JSONKey, into record: inout Record, at path: () -> String) throws -> Bool {
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
                try reader.readObject(at: "\(path()).fields") { reader, key in
                    let name = key.string
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
