import CloudModel
import Foundation

/// `numbersAsStrings`, as CloudKit Web Services takes it on `records/modify`, `records/lookup`, `records/query`,
/// `records/changes` and `changes/zone`: INT64 and TIMESTAMP values (and list items) written as decimal strings, for
/// clients whose numbers lose precision past 2^53. The typed writers stay as they are for everyone else; an answer
/// asking for strings is rewritten once written, so only those requests pay for it.
extension ServiceResponse {
    /// The answer with the numbers of its records as strings: the records of `records` (a conflict's `serverRecord`
    /// included) and of each zone of `zones` whose name `zoneNames` holds (every zone when nil).
    func numbersAsStrings(zoneNames: Set<String>? = nil) throws -> ServiceResponse {
        guard status == 200, case .object(var body) = try JSONParser.parse(body) else { return self }
        if case .array(let records)? = body["records"] { body["records"] = .array(records.map(Self.stringingRecord)) }
        if case .array(let zones)? = body["zones"] {
            body["zones"] = .array(
                zones.map { zone in
                    guard case .object(var object) = zone, case .array(let records)? = object["records"] else { return zone }
                    if let zoneNames {
                        guard case .object(let zoneID)? = object["zoneID"], case .string(let name)? = zoneID["zoneName"], zoneNames.contains(name)
                        else { return zone }
                    }
                    object["records"] = .array(records.map(Self.stringingRecord))
                    return .object(object)
                })
        }
        var writer = JSONWriter(reserving: self.body.count + 64)
        writer.json(.object(body))
        var answer = self
        answer.body = writer.bytes
        return answer
    }

    private static let numberTypes: Set<String> = ["INT64", "TIMESTAMP", "INT64_LIST", "TIMESTAMP_LIST"]

    private static func stringingRecord(_ record: JSONValue) -> JSONValue {
        guard case .object(var object) = record else { return record }
        if case .object(var fields)? = object["fields"] {
            for (name, field) in fields {
                guard case .object(var wrapper) = field, case .string(let type)? = wrapper["type"], numberTypes.contains(type),
                    let value = wrapper["value"]
                else { continue }
                wrapper["value"] = stringed(value)
                fields[name] = .object(wrapper)
            }
            object["fields"] = .object(fields)
        }
        if let server = object["serverRecord"] { object["serverRecord"] = stringingRecord(server) }
        return .object(object)
    }

    private static func stringed(_ value: JSONValue) -> JSONValue {
        switch value {
        case .int(let number): .string(String(number))
        case .array(let items): .array(items.map(stringed))
        default: value
        }
    }
}
