import StoreContracts
import Testing

@testable import App

/// What the export writes of stored values it did not write itself (a hand edit, an import):
/// extreme times are held to years 0001–9999 rather than trapping; CSV quotes what RFC 4180 says.
@Suite struct ExportEncodingTests {
    @Test func extremeTimesAreWrittenWithoutTrapping() {
        for stored in [Int64.min, -1, 0, Int64.max] {
            var buffer: [UInt8] = []
            ExportEncoding.appendTime(stored, into: &buffer)
            #expect(buffer.count == 24, "\(stored): \(String(decoding: buffer, as: UTF8.self))")
        }
        var epoch: [UInt8] = []
        ExportEncoding.appendTime(1_500, into: &epoch)
        #expect(String(decoding: epoch, as: UTF8.self) == "1970-01-01T00:00:01.500Z")
        #expect(ExportHour(containing: Int64.max).end > ExportHour(containing: Int64.max).start)
        #expect(ExportHour(containing: Int64.min).start == 0)
    }

    @Test func csvQuotesOnlyWhatNeedsIt() {
        var buffer: [UInt8] = []
        let values: [ExportValue] = [.text("a,b"), .text(""), .null, .text(#"say "hi""#), .text("plain")]
        ExportEncoding.csvRow(
            values + Array(repeating: .null, count: ExportTable.erasures.columns.count - values.count), of: .erasures, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self).hasPrefix(#""a,b","",,"say ""hi""",plain"#))
    }
}
