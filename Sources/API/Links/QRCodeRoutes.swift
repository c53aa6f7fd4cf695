import App
import Attribution
import HTTP

/// `GET /{code}/qr` and `/{templateSlug}/{code}/qr`: the link's public URL as a QR code in SVG,
/// for print and posters (links-and-clicks.md, "Other routes on the link host"). Fetching it is
/// not a tap, so no click is recorded. `ecc` (L, M, Q, H; default M) picks the error correction
/// level and `margin` (0–16 modules; default 4, the standard's quiet zone) the light border.
enum QRCodeRoutes {
    /// `GET /:code/qr`, `GET /:slug/:code/qr`
    static func route(_ services: Services) -> RouteHandler {
        LinkAddressed.handler { request, code, slug in try qrCode(request, code: code, slug: slug, services: services) }
    }

    static func qrCode(_ request: HTTPRequest, code: String, slug: String?, services: Services) throws -> HTTPResponse {
        let correction =
            try request.queryValue("ecc").map { text in
                guard let level = QRCode.Correction(rawValue: text.uppercased()) else {
                    throw HTTPError.invalidField("ecc", "expected L, M, Q or H, got '\(text.prefix(characters: 16))'")
                }
                return level
            } ?? .medium
        let margin =
            try request.queryValue("margin").map { text in
                guard let margin = Int(text), (0...16).contains(margin) else {
                    throw HTTPError.invalidField("margin", "expected a whole number of modules from 0 to 16, got '\(text.prefix(characters: 16))'")
                }
                return margin
            } ?? 4
        guard let (_, target) = try services.app.links.resolve(code: code, slug: slug, on: try ProjectHosts.claim(of: request, services: services))
        else {
            throw HTTPError.notFound(
                "no link with code '\(code.prefix(characters: 64))'\(slug.map { " under template '\($0.prefix(characters: 64))'" } ?? "")")
        }
        let url = LinkURLs.url(
            base: LinkURLs.base(of: target.link, otherwise: LinkURLs.base(for: request, services: services)), shortCode: target.link.shortCode,
            templateSlug: target.templateSlug)
        let symbol: QRCode
        do {
            symbol = try QRCode(text: url, correction: correction)
        } catch let error as QRCode.TooLong {
            throw HTTPError.invalidField("ecc", "the link's URL (\(error.bytes) bytes) does not fit a QR code at level \(correction.rawValue)")
        }
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "image/svg+xml",
                // The image depends only on the link's URL, which a short code keeps.
                "Cache-Control": "public, max-age=86400",
            ], body: Array(symbol.svg(margin: margin).utf8))
    }
}
