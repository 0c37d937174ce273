// Streaming decoding of a `changes/zone` page, the device's hot path when it fetches.

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
