import Attribution
import Testing

/// Reading a cost upload: columns by their header names, spend in exact millionths, and every
/// refusal naming its line and column.
@Suite struct CostCSVTests {
    @Test func rowsAreReadByTheirHeaderInAnyOrder() throws {
        let csv = """
            spend,date,network,campaign_id,campaign_name,currency,impressions,clicks,adgroup_id
            12.5,2026-11-30,Google,111,Winter sale,eur,1000,40,
            0.000001,2026-11-30,meta,,Spring,,,,ag-1
            """
        let rows = try CostCSV.rows(Array(csv.utf8), currency: "USD").get()
        #expect(rows.count == 2)
        #expect(
            rows[0]
                == CostRow(
                    day: "2026-11-30", network: "google", campaignID: "111", campaignName: "Winter sale", spendMicros: 12_500_000,
                    currency: "EUR", impressions: 1000, clicks: 40))
        #expect(rows[1].spendMicros == 1 && rows[1].currency == "USD" && rows[1].adGroupID == "ag-1" && rows[1].impressions == nil)
        #expect(rows[1].campaignKey == "name:Spring" && rows[0].campaignKey == "111")
    }

    @Test func everyWrongCellIsNamedByLineAndColumn() {
        let csv = """
            date,network,campaign_id,campaign_name,spend,currency,clicks
            2026-02-30,google,1,A,10,USD,
            2026-03-01,google,1,A,-1,EURO,2.5
            2026-03-01,,,,ten,USD,
            2026-03-02,google,1,A,1.5,USD,
            2026-03-02,google,1,B,3,USD,
            """
        guard case .failure(let refused) = CostCSV.rows(Array(csv.utf8), currency: "USD") else {
            Issue.record("the upload was accepted")
            return
        }
        let refusals = refused.refusals
        let named = refusals.map { "\($0.line):\($0.column ?? "-")" }
        #expect(
            named == [
                "2:date", "3:spend", "3:currency", "3:clicks", "4:network", "4:campaign_id", "4:spend", "6:-",
            ], "\(refusals)")
        #expect(refusals.last?.reason == "the same day, network, campaign, ad group and ad as line 5")
    }

    @Test func aHeaderWithoutWhatEveryUploadNeedsIsRefused() {
        guard case .failure(let refused) = CostCSV.rows(Array("date,network,cost\n2026-01-01,google,3\n".utf8), currency: "USD") else {
            Issue.record("the upload was accepted")
            return
        }
        let refusals = refused.refusals
        #expect(refusals.map(\.column) == ["cost", "campaign_id", "campaign_name", "spend"])
        #expect(refusals.allSatisfy { $0.line == 1 })
        guard case .failure(let empty) = CostCSV.rows([], currency: "USD") else { return }
        #expect(empty.refusals.first?.description == "the file: the file is empty")
    }

    @Test func spendIsReadExactly() {
        #expect(CostCSV.micros("19.99") == 19_990_000)
        #expect(CostCSV.micros(".5") == 500_000 && CostCSV.micros("7") == 7_000_000 && CostCSV.micros("-0.25") == -250_000)
        for wrong in ["", ".", "1e3", "1,5", "1.2.3", "0x10", "1.0000001", " 1", "99999999999999999"] {
            #expect(CostCSV.micros(wrong) == nil, "\(wrong)")
        }
        #expect(CostCSV.isDay("2024-02-29") && !CostCSV.isDay("2023-02-29") && !CostCSV.isDay("2026-13-01") && !CostCSV.isDay("26-01-01"))
    }
}
