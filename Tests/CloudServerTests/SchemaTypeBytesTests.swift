@testable import CloudServer
import Testing

/// The schema's byte-level check of a canonical value's type against the string reading it replaced on the save path.
@Suite("Schema: a value's type compared as bytes")
struct SchemaTypeBytesTests {
    @Test("names(_:type:) answers canonicalType(_:) == type for values, fragments and near misses")
    func bytesAgreeWithTheStringReading() {
        let values = [
            #"{"type":"STRING","value":"x"}"#, #"{"type":"STRINGS","value":1}"#, #"{"type":"STRING""#, #"{"type":"STRING"#,
            #"{"value":1}"#, #"{"type":"","value":1}"#, "", #"{"type":"ASSETID","value":{}}"#, #"{"type":"STRING_LIST","value":["a"]}"#,
            #"{"type":"INT64","value":3}"#, #"{"type" :"INT64","value":3}"#, #"{"type":"TIMESTAMP","value":0}"#,
        ]
        let types = ["STRING", "STRIN", "STRINGS", "", "INT64", "TIMESTAMP", "ASSETID", "STRING_LIST", "string"]
        for value in values {
            // Also as a slice of a longer buffer, as the stored fields hand them out.
            let padded = Array("xx".utf8) + Array(value.utf8) + Array("yy".utf8)
            let slices = [ArraySlice(Array(value.utf8)), padded[2..<(padded.count - 2)]]
            for bytes in slices {
                for type in types {
                    #expect(Schema.names(bytes, type: type) == (Schema.canonicalType(bytes) == type), "\(value) as \(type)")
                }
            }
        }
    }

    @Test("Asset types are told apart by name, every other type is not one")
    func assetTypes() {
        for type in ["ASSET", "ASSETID", "ASSET_LIST", "ASSETID_LIST"] { #expect(Schema.isAssetType(type)) }
        for type in ["STRING", "ASSETS", "A", "", "BYTES", "REFERENCE_LIST", "LOCATION"] { #expect(!Schema.isAssetType(type)) }
    }
}
