/// The answer of `GET /health`: that the cloud runs, and its clock to the millisecond (devices order edits by it).
public struct HealthStatus: Codable, Sendable, Equatable {
    /// "ok" while the cloud serves.
    public var status: String
    /// The cloud's time when it answered, in milliseconds since 1970 (absent from clouds older than this field).
    public var time: Int64?

    /// A health answer.
    public init(status: String = "ok", time: Int64?) {
        self.status = status
        self.time = time
    }
}
