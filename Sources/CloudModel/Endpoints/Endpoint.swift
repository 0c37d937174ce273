/// The part of the cloud an endpoint belongs to: where its path starts.
public enum EndpointAPI: String, Sendable, Hashable, CaseIterable {
    /// `/database/1/{container}/{environment}/{database}/{path}`: records, zones, feeds, subscriptions, shares, users.
    case database
    /// `/device/1/{container}/{environment}/{path}`: push tokens and the signed-in devices.
    case device
    /// `/auth/1/{container}/{path}`: accounts and sessions.
    case auth
    /// `/admin/1/{path}`: test hooks, served only by a cloud started with faults enabled.
    case admin
    /// `/health`: the liveness probe.
    case health
}

extension EndpointAPI {
    /// The liveness probe's path, which names no container: what load balancers and scripts poll.
    public static var healthPath: String { "/\(EndpointAPI.health.rawValue)" }
}

/// An HTTP method the cloud answers.
public enum EndpointMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
}

/// One call of the cloud's protocol, without its body types: what the router registers and the tests enumerate.
public struct AnyEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The part of the cloud it belongs to.
    public let api: EndpointAPI
    /// The method a client sends.
    public let method: EndpointMethod
    /// Every method the cloud answers it with (a read-only call also takes a POST, as CloudKit's do).
    public let methods: Set<EndpointMethod>
    /// The path below its API's prefix, e.g. `records/modify` (empty for `/health`).
    public let path: String
    /// The databases it works in; in the others the cloud refuses it with a reason (database endpoints only).
    public let databases: Set<DatabaseScope>

    public var description: String { "\(method.rawValue) \(api.rawValue)/\(path)" }
}

/// One call of the cloud's protocol: where it is, and what goes in (`Request`) and comes back (`Response`).
///
/// The table of them is the `Endpoint` extensions in this folder; the cloud registers its routes from it and the
/// client builds its URLs from it (`ContainerAddress.path(of:in:)`).
public struct Endpoint<Request: Sendable, Response: Sendable>: Sendable {
    /// Method, path and databases, without the body types.
    public let erased: AnyEndpoint

    /// The path below its API's prefix.
    public var path: String { erased.path }
    /// The method a client sends.
    public var method: EndpointMethod { erased.method }

    init(_ api: EndpointAPI, _ method: EndpointMethod, _ path: String, also: Set<EndpointMethod> = [], in databases: Set<DatabaseScope> = []) {
        erased = AnyEndpoint(api: api, method: method, methods: also.union([method]), path: path, databases: databases)
    }

    /// A database endpoint; read-only ones are sent as GET and also answered for a POST.
    static func database(_ method: EndpointMethod, _ path: String, in databases: Set<DatabaseScope> = Set(DatabaseScope.allCases), alsoGET: Bool = false) -> Self {
        Self(.database, method, path, also: method == .get || alsoGET ? [.post, .get] : [], in: databases)
    }
}

extension ContainerAddress {
    /// The path of `endpoint` in this container (and `database`, for a database endpoint), as the client sends it.
    public func path(of endpoint: AnyEndpoint, in database: DatabaseScope = .private) -> String {
        switch endpoint.api {
        case .database: databasePath(database, endpoint.path)
        case .device: devicePath(endpoint.path)
        case .auth: authPath(endpoint.path)
        case .admin: "/admin/1/\(endpoint.path)"
        case .health: EndpointAPI.healthPath
        }
    }

    /// The path of `endpoint` in this container (and `database`, for a database endpoint), as the client sends it.
    public func path<Request, Response>(of endpoint: Endpoint<Request, Response>, in database: DatabaseScope = .private) -> String {
        path(of: endpoint.erased, in: database)
    }

    /// The path of a database endpoint: `/database/1/{container}/{environment}/{database}/{endpoint}`.
    public func databasePath(_ scope: DatabaseScope, _ endpoint: String) -> String {
        "/database/1/\(container)/\(environment)/\(scope.rawValue)/\(endpoint)"
    }

    /// The path of a device endpoint: `/device/1/{container}/{environment}/{endpoint}`.
    public func devicePath(_ endpoint: String) -> String {
        "/device/1/\(container)/\(environment)/\(endpoint)"
    }

    /// The path of an account endpoint: `/auth/1/{container}/{endpoint}`.
    public func authPath(_ endpoint: String) -> String {
        "/auth/1/\(container)/\(endpoint)"
    }
}
