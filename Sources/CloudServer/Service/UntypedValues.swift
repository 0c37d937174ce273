import CloudModel
import Foundation

/// Values sent without `type` whose JSON shape names no CloudKit type (an object, a list of mixed items): the
/// schema's type when their JSON fits it, an asset when they carry an upload's `receipt`, a `LOCATION` when they
/// are one; anything else is refused per record, in words, as CloudKit refuses it.
enum UntypedValues {
    /// The value typed: its canonical JSON with the type it takes (`known`: its field's type in the schema, nil for a
    /// new field). An asset still has to be resolved (its type is `ASSETID` or `ASSETID_LIST`).
    static func typed(_ bytes: ArraySlice<UInt8>, known: String?, field: String) throws -> [UInt8] {
        guard case .object(let wrapper)? = try? JSONParser.parse(bytes), let value = wrapper["value"] else {
            throw ServerError(.badRequest, "field '\(field.prefix(64))': a value needs a \"value\"")
        }
        guard let type = try type(of: value, known: known, field: field) else {
            throw ServerError(.badRequest, "field '\(field.prefix(64))': \(describe(value)) is no CloudKit value; send it with its \"type\"")
        }
        var writer = JSONWriter(reserving: bytes.count + 32)
        writer.field(.unknown(type: type, value: value))
        return writer.bytes
    }

    /// The type an untyped value takes, nil when it fits none.
    private static func type(of value: JSONValue, known: String?, field: String) throws -> String? {
        switch value {
        case .object(let object):
            if isAsset(object), known.map(AssetValues.isAsset) ?? true { return "ASSETID" }
            if isLocation(object), known == nil || known == "LOCATION" { return "LOCATION" }
            return nil
        case .array(let items):
            if items.contains(where: { $0 == .null }) {
                throw ServerError(.badRequest, "field '\(field.prefix(64))': a list may not hold null")
            }
            let objects = items.compactMap { item -> [String: JSONValue]? in if case .object(let o) = item { o } else { nil } }
            if objects.count == items.count, !objects.isEmpty {
                if objects.allSatisfy(isAsset), known == nil || known == "ASSETID_LIST" || known == "ASSET_LIST" { return "ASSETID_LIST" }
                if objects.allSatisfy(isLocation), known == nil || known == "LOCATION_LIST" { return "LOCATION_LIST" }
            }
            throw ServerError(.badRequest, "field '\(field.prefix(64))': a list's items must all be of one CloudKit type")
        default:
            return nil
        }
    }

    private static func isAsset(_ object: [String: JSONValue]) -> Bool {
        if case .string? = object["receipt"] { return true }
        if case .string? = object["downloadURL"] { return true }
        return false
    }

    private static func isLocation(_ object: [String: JSONValue]) -> Bool {
        func number(_ key: String) -> Bool {
            switch object[key] {
            case .int?, .double?: true
            default: false
            }
        }
        return number("latitude") && number("longitude")
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .object(let object): "an object with " + (object.keys.sorted().prefix(4).map { "'\($0.prefix(32))'" }.joined(separator: ", ")).ifEmpty("no keys")
        case .null: "null"
        default: "this value"
        }
    }
}

extension String {
    fileprivate func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}
