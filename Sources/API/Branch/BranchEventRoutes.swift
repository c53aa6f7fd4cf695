import App
import Attribution
import Foundation
import HTTP
import JSON
import StoreContracts

/// `POST /v2/event/standard` and `/v2/event/custom` (docs/sdk-apis.md, "Branch"): `BranchEvent`'s
/// `name`, its `event_data` (revenue, currency, transaction id…), `custom_data` and
/// `content_items`, and `user_data` naming the install by the token its session was given. A
/// retried request (the same `branch_sdk_request_unique_id`) is the same event.
enum BranchEventRoutes {
    /// What one event may carry in all: a bigger body is refused, not cut.
    static let maximumDataBytes = 65_536

    static func event(_ services: Services) -> RouteHandler {
        let auth = BranchAuth(services: services)
        return .deferred { request, done in
            let answer = BranchErrors.completing(request, services, done)
            do {
                let body = try JSONFields(request)
                let project = try auth.project(key: try body.string("branch_key", maxLength: 64))
                let name = try body.requiredString("name", maxLength: 256).trimmingWhitespace()
                guard !name.isEmpty else { throw HTTPError.invalidField("name", "must be 1 to 256 characters") }
                let user = try body.object("user_data")
                guard let installID = try user?.identifier("randomized_device_token") ?? body.identifier("randomized_device_token") else {
                    throw HTTPError.badRequest("user_data.randomized_device_token is required: start a session first", code: "missing_field")
                }
                guard try services.app.projects.owner(ofInstall: installID) == project.id else {
                    throw HTTPError.notFound("no install '\(installID.prefix(64))' in this project")
                }
                let eventData = try body.object("event_data")
                var revenue = try eventData?.amount("revenue", path: "event_data.revenue")
                if revenue == nil, case .string(let text)? = eventData?.fields["revenue"] {
                    guard let amount = Double(text), JSONFields.isPlausibleAmount(amount) else {
                        throw HTTPError.invalidField("event_data.revenue", "must be a finite number below 10^12")
                    }
                    revenue = amount
                }
                let currency = try eventData?.string("currency", path: "event_data.currency", maxLength: 8).map { code -> String in
                    guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                        throw HTTPError.invalidField("event_data.currency", "must be a three-letter currency code")
                    }
                    return code.uppercased()
                }
                var kept: [String: JSONValue] = [:]
                for key in ["event_data", "custom_data", "content_items", "customer_event_alias"] { kept[key] = body.fields[key] }
                let data = JSONValue.object(kept).serialized()
                guard data.count <= maximumDataBytes else {
                    throw HTTPError(
                        .contentTooLarge, code: "payload_too_large",
                        message: "event_data, custom_data and content_items must be at most \(maximumDataBytes / 1024) KB together")
                }
                let now = services.now(for: project)
                var record = EventRecord(
                    projectID: project.id, install: .id(installID), name: name,
                    clientEventID: try body.string("branch_sdk_request_unique_id", maxLength: 128),
                    userID: try user?.identifier("developer_identity"), data: String(decoding: data, as: UTF8.self), revenue: revenue,
                    currency: currency, occurredAt: now, receivedAt: now, dataValue: kept)
                var consent = Consent()
                consent.eea = try ConsentFields.signal(user?.fields["dma_eea"], path: "user_data.dma_eea")
                consent.adPersonalization = try ConsentFields.signal(user?.fields["dma_ad_personalization"], path: "user_data.dma_ad_personalization")
                consent.adUserData = try ConsentFields.signal(user?.fields["dma_ad_user_data"], path: "user_data.dma_ad_user_data")
                record.consent = consent.isEmpty ? nil : consent
                try services.app.activity.recordEvent(record, project: project, conversionValues: false, delivery: request.writeDelivery) { result in
                    answer(
                        Result {
                            if try result.get().duplicate { services.metrics.recordCollapsedEvent() }
                            return .json(bytes: Array(#"{"branch_view_enabled":false}"#.utf8))
                        })
                }
            } catch {
                answer(.failure(error))
            }
        }
    }
}
