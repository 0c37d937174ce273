import Foundation

// The URLs the cloud hands out instead of the client building them: each carries its own credential (a push token,
// an upload ticket, an asset ID), so they take no session. The cloud both builds them and routes them from here.

/// A URL the cloud hands out: where it is, which method takes it, and how its last part is named in the route.
public enum CapabilityURL: String, Sendable, Hashable, CaseIterable {
    /// `GET /device/1/{container}/{environment}/courier/{token}`: a push token's long-poll (`webcourierURL`).
    case courier
    /// `POST /assets/1/{container}/{environment}/upload/{ticket}`: one asset's bytes (an `assets/upload` answer's URL).
    case assetUpload
    /// `GET /assets/1/{container}/{environment}/download/{id}`: an uploaded asset (an `ASSETID` field's `downloadURL`).
    case assetDownload

    /// The prefix below which the cloud routes it, `{container}` and `{environment}` as route parameters.
    public var routePrefix: String {
        switch self {
        case .courier: "device/1/:container/:environment"
        case .assetUpload, .assetDownload: Self.assetsRoutePrefix
        }
    }

    /// The prefix every asset URL starts with, as a route.
    public static let assetsRoutePrefix = "assets/1/:container/:environment"
    /// The first path segment of every asset URL (`/assets/…`).
    public static let assetsSegment = "assets"

    /// The part below `routePrefix` naming the action (`courier`, `upload`, `download`).
    public var action: String {
        switch self {
        case .courier: "courier"
        case .assetUpload: "upload"
        case .assetDownload: "download"
        }
    }

    /// The method a client sends it with.
    public var method: EndpointMethod {
        switch self {
        case .courier, .assetDownload: .get
        case .assetUpload: .post
        }
    }

    /// The URL of `credential` in `container` (`container/environment`, as the cloud names it), on the cloud reached
    /// at `origin` (`scheme://authority`).
    public func url(origin: String, container: String, credential: String) -> String {
        origin + path(container: container, credential: credential)
    }

    /// The path of `credential` in `container` (`container/environment`).
    public func path(container: String, credential: String) -> String {
        switch self {
        case .courier: "/device/1/\(container)/\(action)/\(credential)"
        case .assetUpload, .assetDownload: "/\(Self.assetsSegment)/1/\(container)/\(action)/\(credential)"
        }
    }

    /// The path of `credential` in `address`'s container.
    public func path(in address: ContainerAddress, credential: String) -> String {
        path(container: "\(address.container)/\(address.environment)", credential: credential)
    }

    /// `path` with the credential of a courier URL (its only secret) left out, for logs.
    public static func redacted(_ path: String) -> String {
        let marker = "/\(CapabilityURL.courier.action)/"
        guard let range = path.range(of: marker) else { return path }
        return path[..<range.upperBound] + "(push token)"
    }
}
