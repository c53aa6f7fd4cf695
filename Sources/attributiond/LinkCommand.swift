import API
import App
import ArgumentParser
import Attribution
import Configuration
import Foundation
import Store
import StoreContracts

struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link", abstract: "Create short links and their QR codes.",
        subcommands: [Create.self, QR.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a link; prints it with its URL.")

        @OptionGroup var global: GlobalOptions
        @Option(help: "The project's id.") var project: String
        @Option(help: "A custom short code ([A-Za-z0-9_-]{3,64}); random when omitted.") var code: String?
        @Option(help: "The slug of one of the project's templates.") var template: String?
        @Option(name: .customLong("ios-url"), help: "App Store URL.") var iosURL: String?
        @Option(name: .customLong("android-url"), help: "Play Store URL.") var androidURL: String?
        @Option(name: .customLong("web-url"), help: "Web fallback URL.") var webURL: String?
        @Option(name: .customLong("app-scheme"), help: "The app's URL scheme (opens the installed app).") var appScheme: String?
        @Option(name: .customLong("deep-link-path"), help: "In-app path, e.g. /product/42.") var deepLinkPath: String?
        @Option(help: "Link title (also the Open Graph title).") var title: String?
        @Option(name: .customLong("utm-source")) var utmSource: String?
        @Option(name: .customLong("utm-medium")) var utmMedium: String?
        @Option(name: .customLong("utm-campaign")) var utmCampaign: String?
        @Option(name: .customLong("base-url"), help: "Public base URL for the printed link (default: public_url, else http://localhost:8080).")
        var baseURL: String?
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            if let code, !ShortCode.isValidCustom(code) { throw ValidationError("--code must be 3 to 64 characters of A-Z, a-z, 0-9, '_' or '-'") }
        }

        func run() throws {
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            guard try app.projects.find(id: project) != nil else {
                FileHandleOutput.standardError("link create: no project \(project)")
                throw ExitCode.failure
            }
            let templateValue: LinkTemplate?
            do {
                templateValue = try app.links.template(id: nil, slug: template, projectID: project, key: "template")
            } catch let error as AppError {
                FileHandleOutput.standardError("link create: --\(error.message)")
                throw ExitCode(2)
            }
            let link = Link(
                id: UUID().uuidString.lowercased(), projectID: project, templateID: templateValue?.id,
                shortCode: code ?? ShortCode.generate(), title: title, iosURL: iosURL, androidURL: androidURL,
                webURL: webURL, appScheme: appScheme, deepLinkPath: deepLinkPath,
                utm: UTM(source: utmSource, medium: utmMedium, campaign: utmCampaign), createdAt: SystemClock().now())
            let created: Link
            do {
                created = try app.links.create(link, codeIsCustom: code != nil, fieldNames: LinkCommand.optionNames)
            } catch AppError.invalid(let problems) {
                FileHandleOutput.standardError("link create: \(problems[0])")
                throw ExitCode(2)
            } catch let error as StoreError {
                FileHandleOutput.standardError("link create: \(error)")
                throw ExitCode.failure
            }
            let url = LinkCommand.url(
                base: baseURL ?? configuration.publicURL ?? "http://localhost:\(configuration.port)",
                templateSlug: templateValue?.slug, shortCode: created.shortCode)
            if json {
                try printJSON(["id": created.id, "short_code": created.shortCode, "url": url, "project_id": project])
            } else {
                print("\(url)\n(id \(created.id))")
            }
        }
    }

    struct QR: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a link's URL as a QR code in SVG (the image GET /{code}/qr serves).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The link's short code.") var code: String
        @Option(help: "Error correction level: L, M, Q or H.") var ecc = "M"
        @Option(help: "Light modules around the code (0 to 16; the standard asks for 4).") var margin = 4
        @Option(name: .customLong("base-url"), help: "Public base URL in the code (default: public_url, else http://localhost:8080).")
        var baseURL: String?

        func validate() throws {
            if QRCode.Correction(rawValue: ecc.uppercased()) == nil { throw ValidationError("--ecc must be L, M, Q or H") }
            if !(0...16).contains(margin) { throw ValidationError("--margin must be from 0 to 16") }
        }

        func run() throws {
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            guard let (_, target) = try app.links.resolve(code: code, slug: nil) else {
                FileHandleOutput.standardError("link qr: no link with code '\(code)'")
                throw ExitCode.failure
            }
            let link = target.link
            let url = LinkCommand.url(
                base: baseURL ?? configuration.publicURL ?? "http://localhost:\(configuration.port)",
                templateSlug: target.templateSlug, shortCode: link.shortCode)
            let symbol: QRCode
            do {
                symbol = try QRCode(text: url, correction: QRCode.Correction(rawValue: ecc.uppercased())!)
            } catch let error as QRCode.TooLong {
                FileHandleOutput.standardError("link qr: the URL (\(error.bytes) bytes) does not fit a QR code at level \(ecc.uppercased())")
                throw ExitCode(2)
            }
            print(symbol.svg(margin: margin), terminator: "")
        }
    }

    /// The command's option for each link field it can set, so a refusal names the option.
    static let optionNames = [
        "short_code": "--code", "ios_url": "--ios-url", "android_url": "--android-url", "web_url": "--web-url",
        "app_scheme": "--app-scheme", "deep_link_path": "--deep-link-path", "title": "--title",
        "utm.source": "--utm-source", "utm.medium": "--utm-medium", "utm.campaign": "--utm-campaign",
    ]

    /// The printed URL: `base` without trailing slashes (a flag may carry one), then the server's own joining.
    static func url(base: String, templateSlug: String?, shortCode: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return LinkURLs.url(base: base, shortCode: shortCode, templateSlug: templateSlug)
    }
}
