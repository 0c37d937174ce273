/// A record's `fields` as the server stores them: each value already in its canonical JSON form
/// (`{"type":…,"value":…}`, byte for byte what `JSONWriter.field` writes), so a request's fields can be
/// validated and stored without being decoded into `FieldValue`s and encoded again.
public struct EncodedFields: Sendable, Hashable {
    /// One field as given: its name and where its canonical JSON lies in `storage`, or nil when it is removed.
    private struct Item: Sendable, Hashable {
        var name: String
        var range: Range<Int>?
        /// Whether the sender named the value's type (else its JSON shape chose it, and a schema may retype it).
        var typed = true
    }

    /// One field as given: its canonical JSON (nil when removed) and whether its type was named.
    public struct Entry {
        public var name: String
        public var canonical: ArraySlice<UInt8>?
        public var typed: Bool
    }

    /// Whether every field as given (its name, and its canonical JSON or nil when removed) satisfies `predicate`;
    /// stops at the first that does not. The fields are read where they lie: no list of entries is made.
    public func allFields(satisfy predicate: (String, ArraySlice<UInt8>?) throws -> Bool) rethrows -> Bool {
        for index in items.indices where try !predicate(items[index].name, items[index].range.map { storage[$0] }) { return false }
        return true
    }

    /// The fields as given, in order, duplicates included.
    public var entries: [Entry] { items.map { Entry(name: $0.name, canonical: $0.range.map { storage[$0] }, typed: $0.typed) } }

    /// The canonical JSON of every value, back to back.
    private var storage: [UInt8] = []
    /// The fields in the order given; a later item for a name replaces an earlier one.
    private var items: [Item] = []
    /// Whether every name is greater than the one before (as writers that sort their keys send them): `json()`
    /// then need not sort, nor look for repeated names.
    private var inOrder = true

    /// No fields.
    public init() {}

    /// No fields yet, with room for `count` fields of `bytes` bytes of JSON in all.
    init(reserving count: Int, bytes: Int) {
        items.reserveCapacity(count)
        storage.reserveCapacity(bytes)
    }

    /// The canonical form of decoded values; a `null` value (`.unknown(_, .null)`) is a removal.
    public init(_ fields: [String: FieldValue]) {
        for (name, value) in fields { append(name, value) }
    }

    /// The names given, in order, duplicates included.
    public var names: [String] { items.map(\.name) }

    /// Whether every name given satisfies `check` (without collecting the names first).
    public func allNames(_ check: (String) -> Bool) -> Bool { items.allSatisfy { check($0.name) } }

    /// Whether no field was given.
    public var isEmpty: Bool { items.isEmpty }

    /// Sets `name` to `value` (a `null` value removes it), after everything appended before.
    /// `typed` false: the value's type came from its JSON shape, not from the sender.
    public mutating func append(_ name: String, _ value: FieldValue, typed: Bool = true) {
        if case .unknown(_, .null) = value {
            noteOrder(name)
            items.append(Item(name: name, range: nil))
            return
        }
        var writer = JSONWriter(reserving: 64)
        writer.field(value)
        append(name, canonical: writer.bytes, typed: typed)
    }

    /// Sets `name` to a value given as canonical JSON; the caller vouches for the bytes.
    public mutating func append(_ name: String, canonical bytes: some Collection<UInt8>, typed: Bool = true) {
        noteOrder(name)
        let start = storage.count
        storage.append(contentsOf: bytes)
        items.append(Item(name: name, range: start..<storage.count, typed: typed))
    }

    /// Removes `name` (a `null` value), after everything appended before.
    public mutating func appendRemoval(_ name: String) {
        noteOrder(name)
        items.append(Item(name: name, range: nil))
    }

    /// Appends the canonical JSON of one value piece by piece through `write`; the caller vouches for the bytes.
    mutating func append(_ name: String, writing write: (inout [UInt8]) -> Void) {
        noteOrder(name)
        let start = storage.count
        write(&storage)
        items.append(Item(name: name, range: start..<storage.count))
    }

    /// Applies `other` on top of these fields: its values win, its removals remove.
    public mutating func merge(_ other: EncodedFields) {
        storage.reserveCapacity(storage.count + other.storage.count)
        for item in other.items {
            if let range = item.range {
                append(item.name, canonical: other.storage[range], typed: item.typed)
            } else {
                noteOrder(item.name)
                items.append(item)
            }
        }
    }

    private mutating func noteOrder(_ name: String) {
        if inOrder, let last = items.last, !(last.name < name) { inOrder = false }
    }

    /// The fields object, keys sorted, removed fields left out: the same bytes `JSONWriter.fields` writes for
    /// the dictionary these fields amount to.
    public func json() -> [UInt8] {
        if inOrder, let bytes = plainJSON() { return bytes }
        if inOrder {
            var writer = JSONWriter(reserving: storage.count + items.count * 16 + 2)
            writer.raw("{")
            var written = 0
            for item in items {
                guard let range = item.range else { continue }
                writer.separator(written)
                writer.string(item.name)
                writer.raw(":")
                writer.raw(storage[range])
                written += 1
            }
            writer.raw("}")
            return writer.bytes
        }
        // Sort by name, the later of equal names last (an insertion sort is stable, and records have few
        // fields); keep only that last one.
        var order = Array(items.indices)
        for position in order.indices.dropFirst() {
            let index = order[position]
            var slot = position
            while slot > 0, items[index].name < items[order[slot - 1]].name {
                order[slot] = order[slot - 1]
                slot -= 1
            }
            order[slot] = index
        }
        var writer = JSONWriter(reserving: storage.count + items.count * 16 + 2)
        writer.raw("{")
        var written = 0
        for (position, index) in order.enumerated() {
            if position + 1 < order.count, items[order[position + 1]].name == items[index].name { continue }
            guard let range = items[index].range else { continue }
            writer.separator(written)
            writer.string(items[index].name)
            writer.raw(":")
            writer.raw(storage[range])
            written += 1
        }
        writer.raw("}")
        return writer.bytes
    }

    /// `json()` of fields in order whose names need no escaping, laid out in one buffer of its exact size (written
    /// piece by piece through a `JSONWriter`, each name checked for escapes as it was copied, it was 640 instructions a
    /// field of the cloud's every save); nil when a name needs escaping or has no contiguous bytes.
    private func plainJSON() -> [UInt8]? {
        var total = 2
        var written = 0
        for item in items {
            guard let range = item.range else { continue }
            let plain = item.name.utf8.withContiguousStorageIfAvailable { name in
                name.contains(where: JSONWriter.needsEscape) ? nil : name.count
            }
            guard let length = plain ?? nil else { return nil }
            total += (written > 0 ? 1 : 0) + length + 3 + range.count
            written += 1
        }
        return storage.withUnsafeBufferPointer { values in
            [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
                var at = 0
                func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                    (buffer.baseAddress! + at).initialize(from: base, count: bytes.count)
                    at += bytes.count
                }
                func put(_ byte: UInt8) {
                    buffer[at] = byte
                    at += 1
                }
                put(UInt8(ascii: "{"))
                for item in items {
                    guard let range = item.range else { continue }
                    if at > 1 { put(UInt8(ascii: ",")) }
                    put(UInt8(ascii: "\""))
                    _ = item.name.utf8.withContiguousStorageIfAvailable { put($0) }
                    put(UInt8(ascii: "\""))
                    put(UInt8(ascii: ":"))
                    put(UnsafeBufferPointer(rebasing: values[range]))
                }
                put(UInt8(ascii: "}"))
                initialized = at
            }
        }
    }

    /// The fields decoded into values (removed fields left out).
    public func decoded() throws -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for (name, value) in try JSONParser.parse(json()).object(at: "fields") {
            fields[name] = try FieldValue(json: value, path: "fields.\(name)")
        }
        return fields
    }
}
