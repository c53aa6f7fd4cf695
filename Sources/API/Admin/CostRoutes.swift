import App
import Attribution
import HTTP
import JSON

/// `/admin/v1/projects/{id}/cost` (docs/cost.md): ad spend uploaded as CSV, and read back by day.
enum CostRoutes {
    /// `POST /admin/v1/projects/:id/cost` with `Content-Type: text/csv`: every row stored, or none.
    static func importCSV(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let type = request.headers["Content-Type"]?.lowercased() ?? ""
            guard type.hasPrefix("text/csv") || type.hasPrefix("text/plain") else {
                throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: "send the cost table as Content-Type: text/csv")
            }
            let saved = try services.app.costs.importCSV(request.body, project: project)
            return .json(
                bytes: JSONValue.object([
                    "rows": .number(Double(saved.added + saved.replaced)), "added": .number(Double(saved.added)),
                    "replaced": .number(Double(saved.replaced)),
                ]).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/cost?since=YYYY-MM-DD&until=YYYY-MM-DD` (both days included;
    /// the last 30 days of the project's calendar when absent).
    static func list(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            let today = calendar.dateText(services.now(for: project))
            let until = request.queryValue("until") ?? today
            let since = request.queryValue("since") ?? calendar.dateText(calendar.addingDays(-29, to: services.now(for: project)))
            let rows = try services.app.costs.rows(project: project, since: since, until: until)
            // With `currency`, each row's spend converted at its day's rates as well.
            guard let currency = request.queryValue("currency")?.uppercased() else {
                return .json(
                    bytes: JSONValue.object(["since": .string(since), "until": .string(until), "cost": .array(rows.map { .object(fields($0)) })])
                        .serialized())
            }
            guard MoneyAmount.isCurrencyCode(currency) else {
                throw HTTPError.invalidField("currency", "must be a three-letter ISO 4217 code such as USD")
            }
            let rates = try services.app.exchangeRates.rates(since: since, until: until)
            let converted = rows.map { row -> JSONValue in
                var fields = fields(row)
                fields["converted"] =
                    rates.convert(row.spend, from: row.currency, to: currency, on: row.day).map { converted in
                        .object([
                            "spend": .number(MoneyAmount.rounded(converted.amount, currency: currency)), "currency": .string(currency),
                            "rates_of": .string(converted.ratesOf), "stale": .bool(converted.isStale),
                        ])
                    } ?? .null
                return .object(fields)
            }
            return .json(bytes: JSONValue.object(["since": .string(since), "until": .string(until), "cost": .array(converted)]).serialized())
        }
    }

    /// `PUT /admin/v1/fx-rates` with the ECB's reference-rate CSV (`text/csv`): its days stored,
    /// each replacing what was stored for it.
    static func importRates(_ services: Services) -> RouteHandler {
        .sync { request in
            let type = request.headers["Content-Type"]?.lowercased() ?? ""
            guard type.hasPrefix("text/csv") || type.hasPrefix("text/plain") else {
                throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: "send the rates as Content-Type: text/csv")
            }
            let stored = try services.app.exchangeRates.importECB(request.body)
            return .json(bytes: JSONValue.object(["days": .number(Double(stored.days)), "rates": .number(Double(stored.rates))]).serialized())
        }
    }

    /// `POST /admin/v1/fx-rates/fetch`: the ECB's daily rates fetched now (as the server does
    /// once a day), its days stored.
    static func fetchRates(_ services: Services) -> RouteHandler {
        .pooled { _, respond in
            services.app.rateFetcher.fetch { result in
                respond(
                    result.map { stored in
                        .json(bytes: JSONValue.object(["days": .number(Double(stored.days)), "rates": .number(Double(stored.rates))]).serialized())
                    }.mapError { HTTPError(.badGateway, code: "upstream_failed", message: $0.description) })
            }
        }
    }

    /// `GET /admin/v1/fx-rates?day=YYYY-MM-DD`: the rates of the day, or of the last day before it
    /// that has them (`day` in the answer says which).
    static func showRates(_ services: Services) -> RouteHandler {
        .sync { request in
            guard let day = request.queryValue("day") else { throw HTTPError.invalidField("day", "is required (YYYY-MM-DD)") }
            guard let found = try services.app.exchangeRates.rates(on: day) else {
                throw HTTPError.notFound("no rates on or before \(day)")
            }
            return .json(
                bytes: JSONValue.object([
                    "day": .string(found.day), "base": .string("EUR"), "rates": .object(found.rates.mapValues { .number($0) }),
                ]).serialized())
        }
    }

    static func fields(_ row: CostRow) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "date": .string(row.day), "network": .string(row.network), "campaign_id": .string(row.campaignID),
            "campaign_name": .string(row.campaignName), "adgroup_id": .string(row.adGroupID), "ad_id": .string(row.adID),
            "spend": .number(row.spend), "spend_micros": .number(Double(row.spendMicros)), "currency": .string(row.currency),
        ]
        fields["impressions"] = row.impressions.map { .number(Double($0)) } ?? .null
        fields["clicks"] = row.clicks.map { .number(Double($0)) } ?? .null
        return fields
    }
}
