import CloudModel
import Foundation

extension CloudService {
    /// `assets/rereference`: a new receipt per stored asset field named, the caller's to save in another record
    /// (the bytes are copied under a new asset ID, which the caller owns).
    func rereferenceAssets(_ request: RereferenceAssetsRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        guard !request.assets.isEmpty, request.assets.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "name 1 to \(CloudLimits.maxOperationsPerRequest) asset fields")
        }
        let found = try await store.read { tx -> [Result<AssetRow, ServerError>] in
            guard let zone = try await self.resolveZone(tx, database, request.zoneID, create: false) else {
                throw ServerError(.zoneNotFound, "zone '\((request.zoneID ?? .default).zoneName.prefix(64))' not found")
            }
            var found: [Result<AssetRow, ServerError>] = []
            for entry in request.assets {
                do {
                    found.append(.success(try await Self.storedAsset(entry, zonePK: zone.pk, container: database.container, tx: tx)))
                } catch let error as ServerError {
                    var error = error
                    error.recordName = entry.recordName
                    found.append(.failure(error))
                }
            }
            return found
        }
        var answers: [RereferencedAsset] = []
        for (entry, result) in zip(request.assets, found) {
            switch result {
            case .failure(let error):
                answers.append(.failure(error))
            case .success(let asset):
                guard let bytes = try await store.assetContent(id: asset.id) else {
                    answers.append(.failure(ServerError(.notFound, "the asset's bytes are gone")))
                    continue
                }
                let copy = AssetRow(id: Secrets.randomHex(bytes: 32), container: asset.container, owner: user, size: asset.size, checksum: asset.checksum)
                try await store.putAssetContent(id: copy.id, bytes: bytes)
                let now = nowMillis
                try await store.write { try await $0.insertAsset(copy, now: now) }
                answers.append(
                    .asset(.init(recordName: entry.recordName, fieldName: entry.fieldName, fileChecksum: copy.checksum, size: copy.size, receipt: copy.id)))
            }
        }
        return try .encode(RereferenceAssetsResponse(assets: answers))
    }

    /// The asset a record's field holds (of a list, the one with `fileChecksum`, else the first).
    private static func storedAsset(
        _ entry: RereferenceAssetsRequest.Asset, zonePK: Int64, container: String, tx: any StoreTransaction
    ) async throws -> AssetRow {
        guard let record = try await tx.record(zonePK: zonePK, name: entry.recordName), !record.deleted else {
            throw ServerError(.notFound, "record '\(entry.recordName.prefix(64))' not found")
        }
        guard case .object(let fields)? = try? JSONParser.parse(ArraySlice(record.fieldsJSON)),
            case .object(let wrapper)? = fields[entry.fieldName], case .string(let type)? = wrapper["type"],
            AssetValues.isAsset(type) || AssetValues.isAssetList(type)
        else { throw ServerError(.badRequest, "field '\(entry.fieldName.prefix(64))' of '\(entry.recordName.prefix(64))' holds no asset") }
        let values: [JSONValue] = if case .array(let items)? = wrapper["value"] { items } else { wrapper["value"].map { [$0] } ?? [] }
        let candidates = values.compactMap { value -> (url: String, checksum: String?)? in
            guard case .object(let o) = value, case .string(let url)? = o["downloadURL"] else { return nil }
            if case .string(let checksum)? = o["fileChecksum"] { return (url, checksum) }
            return (url, nil)
        }
        guard let chosen = entry.fileChecksum.map({ wanted in candidates.first { $0.checksum == wanted } }) ?? candidates.first,
            let id = chosen.url.split(separator: "?").first?.split(separator: "/").last.map(String.init),
            let asset = try await tx.asset(id: id), asset.container == container
        else { throw ServerError(.notFound, "no such asset in field '\(entry.fieldName.prefix(64))'") }
        return asset
    }
}
