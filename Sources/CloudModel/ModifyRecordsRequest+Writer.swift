// Writing a `records/modify` body without JSONEncoder: the device's outbox and the client send one per batch.

/// Writes a `records/modify` request body operation by operation, as `ModifyRecordsRequest` encodes it (members in
/// the order the web services document them rather than sorted; it decodes to the same request).
public struct ModifyRecordsRequestWriter: Sendable {
    private var writer: JSONWriter
    private var count = 0
    private var cache = RecordJSONCache()

    /// A body with room for `capacity` bytes.
    public init(reserving capacity: Int = 1024) {
        writer = JSONWriter(reserving: capacity)
        writer.raw("{\"operations\":[")
    }

    /// Appends an operation on a record whose `fields` member `fields` gives (none: a deletion).
    public mutating func operation(
        _ type: RecordOperationType, _ system: RecordSystemFields, fields: RecordFields = .absent, desiredKeys: [String]? = nil
    ) {
        openOperation(type)
        writer.record(system, fields: fields, cache: &cache)
        closeOperation(desiredKeys)
    }

    /// Appends an operation on a record whose `fields` object `fields` writes.
    public mutating func operation(
        _ type: RecordOperationType, _ system: RecordSystemFields, desiredKeys: [String]? = nil, fields: (inout JSONWriter) throws -> Void
    ) rethrows {
        openOperation(type)
        try writer.record(system, cache: &cache, fields: fields)
        closeOperation(desiredKeys)
    }

    /// Appends an operation value.
    public mutating func operation(_ operation: RecordOperation) {
        openOperation(operation.operationType)
        writer.record(operation.record, cache: &cache)
        closeOperation(operation.desiredKeys)
    }

    /// The body, ended with the request's members besides its operations (nil ones left out).
    public consuming func finish(zoneID: ZoneID?, atomic: Bool?, desiredKeys: [String]?, numbersAsStrings: Bool? = nil) -> [UInt8] {
        writer.raw("]")
        if let zoneID {
            writer.raw(",\"zoneID\":")
            var cache = cache  // a consuming method's stored properties cannot be borrowed apart
            writer.cachedZoneID(zoneID, &cache)
        }
        if let atomic {
            writer.raw(",\"atomic\":")
            writer.bool(atomic)
        }
        if let desiredKeys {
            writer.raw(",\"desiredKeys\":")
            writer.strings(desiredKeys)
        }
        if let numbersAsStrings {
            writer.raw(",\"numbersAsStrings\":")
            writer.bool(numbersAsStrings)
        }
        writer.raw("}")
        return writer.bytes
    }

    private mutating func openOperation(_ type: RecordOperationType) {
        writer.separator(count)
        count += 1
        // Each type spelled out: the hot path need not make and escape its raw value.
        switch type {
        case .create: writer.raw("{\"operationType\":\"create\",\"record\":")
        case .update: writer.raw("{\"operationType\":\"update\",\"record\":")
        case .forceUpdate: writer.raw("{\"operationType\":\"forceUpdate\",\"record\":")
        case .replace: writer.raw("{\"operationType\":\"replace\",\"record\":")
        case .forceReplace: writer.raw("{\"operationType\":\"forceReplace\",\"record\":")
        case .delete: writer.raw("{\"operationType\":\"delete\",\"record\":")
        case .forceDelete: writer.raw("{\"operationType\":\"forceDelete\",\"record\":")
        }
    }

    private mutating func closeOperation(_ desiredKeys: [String]?) {
        if let desiredKeys {
            writer.raw(",\"desiredKeys\":")
            writer.strings(desiredKeys)
        }
        writer.raw("}")
    }
}

extension ModifyRecordsRequest {
    /// The request as its JSON body, written by `ModifyRecordsRequestWriter`.
    public var jsonBody: [UInt8] {
        var writer = ModifyRecordsRequestWriter(reserving: 256 * max(1, operations.count))
        for operation in operations { writer.operation(operation) }
        return writer.finish(zoneID: zoneID, atomic: atomic, desiredKeys: desiredKeys, numbersAsStrings: numbersAsStrings)
    }
}
