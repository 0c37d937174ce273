import CloudModel
import Crypto
import Foundation

/// Assets as the web services have them: `assets/upload` hands out an upload URL per asset field, the client POSTs
/// the file's bytes there and gets back `{singleFile: {fileChecksum, size, receipt}}`, and puts that in the field
/// (`{"type":"ASSETID","value":{…}}`) of a `records/modify`. Stored, the value is `{downloadURL, fileChecksum,
/// size}`; the store keeps the bytes, at most `maxAssetBytes` each.
extension CloudService {
    /// How long an upload URL stays usable.
    static let uploadLifetime: Int64 = 3600 * 1000

    /// `assets/upload`: an upload URL per asset field named.
    func assetUpload(_ request: AssetUploadRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        guard !request.tokens.isEmpty, request.tokens.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "ask for 1 to \(CloudLimits.maxOperationsPerRequest) asset tokens")
        }
        for token in request.tokens {
            guard (1...255).contains(token.recordName.utf8.count), !Validation.hasControlCharacters(token.recordName),
                Validation.isName(token.fieldName, maxLength: 255, extra: "_", letterFirst: true)
            else { throw ServerError(.badRequest, "each token names a record (1 to 255 bytes) and a field (a plain name)") }
        }
        let tickets = request.tokens.map { _ in Secrets.randomHex(bytes: 32) }
        let now = nowMillis
        let container = database.container
        try await store.write { tx in
            for ticket in tickets { try await tx.insertAssetUpload(ticket: ticket, container: container, owner: user, now: now) }
        }
        return try .encode(
            AssetUploadResponse(
                tokens: zip(request.tokens, tickets).map { AssetUploadResponse.Token(recordName: $0.recordName, fieldName: $0.fieldName, url: capabilityURL(.assetUpload, origin: caller.origin, container: container, credential: $1)) }))
    }

    /// `POST /assets/1/{container}/{env}/upload/{ticket}` (the file's bytes) and
    /// `GET /assets/1/{container}/{env}/download/{id}`. The URLs are the capabilities: no session needed.
    func assets(_ request: ServiceRequest, container: String, action: String, id: String) async throws -> ServiceResponse {
        guard id.utf8.count == 64, id.allSatisfy(\.isHexDigit), id == id.lowercased() else {
            throw ServerError(.notFound, "unknown asset URL")
        }
        switch (request.method, action) {
        case (CapabilityURL.assetUpload.method.rawValue, CapabilityURL.assetUpload.action):
            guard request.body.count <= configuration.maxAssetBytes else {
                throw ServerError(.limitExceeded, "an asset is at most \(configuration.maxAssetBytes) bytes")
            }
            let notBefore = nowMillis - Self.uploadLifetime
            guard let owner = try await store.write({ try await $0.takeAssetUpload(ticket: id, container: container, notBefore: notBefore) }) else {
                throw ServerError(.notFound, "this upload URL is unknown, used or expired; ask assets/upload for another")
            }
            let asset = AssetRow(
                id: Secrets.randomHex(bytes: 32), container: container, owner: owner, size: Int64(request.body.count),
                checksum: Data(SHA256.hash(data: request.body)).base64EncodedString())
            let body = request.body
            try await store.putAssetContent(id: asset.id, bytes: body)
            let now = nowMillis
            try await store.write { try await $0.insertAsset(asset, now: now) }
            return try .encode(AssetUploadResult(singleFile: .init(fileChecksum: asset.checksum, size: asset.size, receipt: asset.id)))
        case (CapabilityURL.assetDownload.method.rawValue, CapabilityURL.assetDownload.action):
            guard let asset = try await store.read({ try await $0.asset(id: id) }), asset.container == container,
                let bytes = try await store.assetContent(id: id)
            else { throw ServerError(.notFound, "unknown asset") }
            return ServiceResponse(status: 200, body: Array(bytes), contentType: "application/octet-stream")
        default:
            throw RequestError.notFound(request.method, request.segments)
        }
    }
}

/// Turns the asset values of a save into what is stored: an uploaded asset (by its receipt, uploaded by the saver)
/// or one already stored (by its download URL, as a fetched record sends it back), checked against the asset's own
/// checksum and size.
struct AssetValues {
    var container: String
    var user: String
    var origin: String
    /// Signs the `downloadURL`s of a cloud that requires an API token.
    var grants: CapabilityGrant?

    static func isAsset(_ type: String) -> Bool { type == "ASSETID" || type == "ASSET" }

    /// The `downloadURL` of an asset, signed (without expiry: it is stored in the record) when grants are on.
    func downloadURL(_ id: String) -> String {
        let url = CapabilityURL.assetDownload.url(origin: origin, container: container, credential: id)
        guard let grants else { return url }
        let path = CapabilityURL.assetDownload.path(container: container, credential: id)
        return url + "?\(CapabilityGrant.parameter)=" + grants.grant(path: path, expires: 0)
    }

    /// Whether a type is a list of assets (`ASSETID_LIST`, or `ASSET_LIST` read as it).
    static func isAssetList(_ type: String) -> Bool { type == "ASSETID_LIST" || type == "ASSET_LIST" }

    /// The canonical value to store for an asset value (or a list of them) as sent.
    func resolve(_ bytes: ArraySlice<UInt8>, field: String, tx: any StoreTransaction) async throws -> [UInt8] {
        guard case .object(let wrapper)? = try? JSONParser.parse(bytes) else {
            throw ServerError(.badRequest, "field '\(field)': an asset value is an object")
        }
        let stored: FieldValue
        if case .string(let type)? = wrapper["type"], Self.isAssetList(type) {
            guard case .array(let items)? = wrapper["value"] else { throw ServerError(.badRequest, "field '\(field)': an asset list is an array") }
            var values: [JSONValue] = []
            for item in items {
                guard case .object(let value) = item else { throw ServerError(.badRequest, "field '\(field)': each asset is an object") }
                values.append(try await resolve(value, field: field, tx: tx))
            }
            stored = .unknown(type: "ASSETID_LIST", value: .array(values))
        } else {
            guard case .object(let value)? = wrapper["value"] else { throw ServerError(.badRequest, "field '\(field)': an asset value is an object") }
            stored = .unknown(type: "ASSETID", value: try await resolve(value, field: field, tx: tx))
        }
        // The canonical form `JSONWriter.field` gives every stored value (value keys sorted).
        var writer = JSONWriter(reserving: 256)
        writer.field(stored)
        return writer.bytes
    }

    /// One asset as stored (`{downloadURL, fileChecksum, size}`), from a receipt (the saver's upload) or a download
    /// URL (a fetched value sent back), checked against the asset's own checksum and size.
    private func resolve(_ value: [String: JSONValue], field: String, tx: any StoreTransaction) async throws -> JSONValue {
        let string = { (key: String) -> String? in if case .string(let s)? = value[key] { s } else { nil } }
        let id: String
        var fresh = false
        if let receipt = string("receipt") {
            id = receipt
            fresh = true
        } else if let url = string("downloadURL"), let last = url.split(separator: "?").first?.split(separator: "/").last {
            id = String(last)
        } else {
            throw ServerError(.badRequest, "field '\(field)': an asset value needs the receipt of its upload")
        }
        guard id.utf8.count == 64, id.allSatisfy(\.isHexDigit), let asset = try await tx.asset(id: id), asset.container == container,
            !fresh || asset.owner == user
        else { throw ServerError(.badRequest, "field '\(field)': no such uploaded asset") }
        if let checksum = string("fileChecksum"), checksum != asset.checksum {
            throw ServerError(.badRequest, "field '\(field)': fileChecksum does not match the uploaded asset")
        }
        switch value["size"] {
        case nil, .null?: break
        case .int(let size)? where size == asset.size: break
        default: throw ServerError(.badRequest, "field '\(field)': size does not match the uploaded asset")
        }
        return .object(["downloadURL": .string(downloadURL(asset.id)), "fileChecksum": .string(asset.checksum), "size": .int(asset.size)])
    }
}
