import Foundation

/// File paths made from their text: the paths every command opens (configuration, session, cache) are built and
/// read here without Foundation's path appending and `path` property.
///
/// Both cost more than the file they name (`appendingPathComponent` about 14,000 instructions a call) and their first
/// call makes the Swift runtime look up `UInt8: Hashable` by scanning all 10,000 conformance records of the binary:
/// 0.6 M instructions and the pages of those records, in a `todo list` of 10 M (docs/BENCHMARKS.md).
extension URL {
    /// This file URL with `relativePath` (names joined by `/`, no leading `/`) appended.
    public func appendingFilePath(_ relativePath: String) -> URL {
        let base = filePath
        return URL(filePath: base.hasSuffix("/") ? base + relativePath : base + "/" + relativePath, directoryHint: .inferFromPath)
    }

    /// This file URL's path, percent escapes decoded (a directory's may end in `/`).
    public var filePath: String { path(percentEncoded: false) }
}
