import CloudModel
import Foundation

/// Fast encodings and decodings of the hot messages, same shapes as their Codable forms.
enum WireBodies {
    /// A `records/modify` body written with `JSONWriter`.
    static func modifyRecords(_ request: ModifyRecordsRequest) -> Data {
        var writer = JSONWriter(reserving: 256 * max(1, request.operations.count))
        writer.raw("{\"operations\":[")
        for (index, operation) in request.operations.enumerated() {
            writer.separator(index)
            writer.raw("{\"operationType\":")
            writer.string(operation.operationType.rawValue)
            writer.raw(",\"record\":")
            writer.record(operation.record)
            if let keys = operation.desiredKeys {
                writer.raw(",\"desiredKeys\":")
                strings(keys, &writer)
            }
            writer.raw("}")
        }
        writer.raw("]")
        if let zone = request.zoneID {
            writer.raw(",\"zoneID\":")
            writer.zoneID(zone)
        }
        if let atomic = request.atomic {
            writer.raw(",\"atomic\":")
            writer.bool(atomic)
        }
        if let keys = request.desiredKeys {
            writer.raw(",\"desiredKeys\":")
            strings(keys, &writer)
        }
        if let numbers = request.numbersAsStrings {
            writer.raw(",\"numbersAsStrings\":")
            writer.bool(numbers)
        }
        writer.raw("}")
        return Data(writer.bytes)
    }

    private static func strings(_ values: [String], _ writer: inout JSONWriter) {
        writer.raw("[")
        for (index, value) in values.enumerated() {
            writer.separator(index)
            writer.string(value)
        }
        writer.raw("]")
    }

    /// Reads a `records/query` response.
    static func queryResponse(_ json: JSONValue) throws -> QueryResponse {
        let object = try json.object(at: "$")
        var records: [Record] = []
        if let list = object["records"], list != .null {
            let items = try list.array(at: "records")
            records.reserveCapacity(items.count)
            for (index, item) in items.enumerated() { records.append(try Record(json: item, path: "records[\(index)]")) }
        }
        let marker: String?
        switch object["continuationMarker"] {
        case nil, .null?: marker = nil
        case .string(let s)?: marker = s
        default: throw CloudError(.invalidResponse, "continuationMarker: expected a string")
        }
        return QueryResponse(records: records, continuationMarker: marker)
    }
}
