import CloudModel
import Foundation
import TestSupport

/// Seeded hot messages (records, errors, change pages, modify requests) with awkward text, every field type and
/// optional parts present or not, and a respeller that writes any JSON with its members shuffled, whitespace added
/// and unknown members inserted: what a peer may send and both decoders must read alike.
struct WireMessageGenerator {
    private var rng: SplitMix

    init(seed: UInt64) { rng = SplitMix(seed: seed) }

    mutating func below(_ bound: Int) -> Int { Int(rng.next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func maybe<T>(_ make: (inout Self) -> T) -> T? { chance(50) ? make(&self) : nil }

    private static let pieces = ["a", "Todo", "写周报", "🥛", "\"", "\\", "\n", "\u{7F}", "\u{01}", "\u{08}", "é", "e\u{301}", " ", "/", "\u{FEFF}", "\u{2028}"]

    mutating func text() -> String { (0..<(1 + below(4))).map { _ in Self.pieces[below(Self.pieces.count)] }.joined() }

    private mutating func integer() -> Int64 {
        switch below(4) {
        case 0: Int64(below(1000))
        case 1: -Int64(below(1000))
        case 2: 1_700_000_000_000 + Int64(below(1_000_000))
        default: Int64(bitPattern: rng.next())
        }
    }

    mutating func zone() -> ZoneID { ZoneID(zoneName: chance(50) ? "Todos" : text(), ownerRecordName: maybe { $0.text() }) }

    private mutating func stamp() -> RecordStamp { RecordStamp(timestamp: integer(), userRecordName: text(), deviceID: maybe { $0.text() }) }

    private mutating func reference() -> Reference {
        Reference(recordName: text(), zoneID: maybe { $0.zone() }, action: [ReferenceAction.none, .deleteSelf, .validate, nil][below(4)])
    }

    private mutating func field() -> FieldValue {
        switch below(8) {
        case 0, 1: .string(text())
        case 2: .int64(integer())
        case 3: .double([0.5, -1e300, 1e-300, 3.25, 1.0, 123_456.789, Double(integer())][below(7)])
        case 4: .timestamp(integer())
        case 5: .list(.string, (0..<below(3)).map { _ in .string(text()) })
        case 6: .reference(reference())
        default: .bytes(Data((0..<below(6)).map { _ in UInt8(below(256)) }))
        }
    }

    mutating func record() -> Record {
        var record = Record(recordName: text(), recordType: maybe { $0.chance(50) ? "Todo" : $0.text() }, recordChangeTag: maybe { $0.text() })
        if chance(80) {
            var fields: [String: FieldValue] = [:]
            for _ in 0..<below(5) { fields[text()] = field() }
            record.fields = fields
        }
        record.created = maybe { $0.stamp() }
        record.modified = maybe { $0.stamp() }
        record.deleted = maybe { $0.chance(50) }
        record.zoneID = maybe { $0.zone() }
        record.parent = maybe { ParentReference(recordName: $0.text()) }
        if chance(20) { record.share = reference() }
        return record
    }

    mutating func error() -> ServerError {
        let codes = ServerErrorCode.allCases
        var error = ServerError(codes[below(codes.count)], text(), retryAfter: maybe { _ in 1.5 }, uuid: maybe { $0.text() })
        error.recordName = maybe { $0.text() }
        error.zoneID = maybe { $0.zone() }
        error.subscriptionID = chance(20) ? text() : nil
        error.rootRecordName = chance(20) ? text() : nil
        error.shareRecordName = chance(20) ? text() : nil
        if chance(20) { error.serverRecord = record() }
        return error
    }

    /// `value` written as JSON with its members in a random order, random whitespace and, outside `fields` maps
    /// (whose members are field names), now and then an unknown member.
    mutating func respell(_ value: JSONValue, parentKey: String = "") -> [UInt8] {
        var out: [UInt8] = []
        respell(value, parentKey: parentKey, into: &out)
        return out
    }

    private mutating func space(_ out: inout [UInt8]) {
        if chance(15) { out.append([0x20, 0x0A, 0x09, 0x0D][below(4)]) }
    }

    /// `key` quoted with its first character written as a `\u` escape (readers must match the key it decodes to).
    private func escapeFirstLetter(of key: String, into out: inout [UInt8]) {
        guard let first = key.unicodeScalars.first, first.value < 0x80 else {
            JSONWriter.appendString(key, to: &out)
            return
        }
        var rest: [UInt8] = []
        JSONWriter.appendString(String(key.unicodeScalars.dropFirst()), to: &rest)
        out.append(contentsOf: "\"\\u00".utf8)
        let hex = String(first.value, radix: 16)
        out.append(contentsOf: ((hex.count < 2 ? "0" : "") + hex).utf8)
        out.append(contentsOf: rest.dropFirst())
    }

    private mutating func respell(_ value: JSONValue, parentKey: String, into out: inout [UInt8]) {
        space(&out)
        switch value {
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                respell(item, parentKey: parentKey, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            var entries = members.map { ($0.key, $0.value) }
            if parentKey != "fields", chance(10) { entries.append(("zUnknown", .array([.object(["x": .null]), .double(2.5)]))) }
            for index in entries.indices.reversed() where index > 0 { entries.swapAt(index, below(index + 1)) }
            out.append(UInt8(ascii: "{"))
            for (index, (key, item)) in entries.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                space(&out)
                if chance(5) { escapeFirstLetter(of: key, into: &out) } else { JSONWriter.appendString(key, to: &out) }
                space(&out)
                out.append(UInt8(ascii: ":"))
                respell(item, parentKey: key, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .double(let number):
            out.append(contentsOf: "\(number)".utf8)
        default:
            var writer = JSONWriter()
            writer.json(value)
            out.append(contentsOf: writer.bytes)
        }
        space(&out)
    }
}
