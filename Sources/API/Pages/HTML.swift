/// Markup for a page. Text interpolated into it is escaped for HTML text and attribute values
/// (`&<>"'`); markup interpolated into it (another `HTML`) goes in as it is. So a page written as
/// an `HTML` literal escapes every value by default, and raw markup can enter only through
/// `HTML.trusted(_:)`, a call one can search for.
struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var markup: String

    init(stringLiteral literal: String) { markup = literal }

    init(stringInterpolation: Interpolation) { markup = stringInterpolation.markup }

    /// Markup this server made and vouches for (an SVG drawn here, a page's own fragment): never
    /// text that came in a request or from the store.
    static func trusted(_ markup: String) -> HTML { HTML(markup: markup) }

    fileprivate init(markup: String) { self.markup = markup }

    var description: String { markup }
    var isEmpty: Bool { markup.isEmpty }
    var bytes: [UInt8] { Array(markup.utf8) }

    static func + (left: HTML, right: HTML) -> HTML { HTML(markup: left.markup + right.markup) }
    static func += (left: inout HTML, right: HTML) { left.markup += right.markup }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) { markup.reserveCapacity(literalCapacity + interpolationCount * 16) }

        mutating func appendLiteral(_ literal: String) { markup += literal }
        mutating func appendInterpolation(_ html: HTML) { markup += html.markup }
        mutating func appendInterpolation(_ text: String) { markup += Escape.html(text) }
        mutating func appendInterpolation(_ text: Substring) { markup += Escape.html(String(text)) }
        mutating func appendInterpolation<Number: BinaryInteger>(_ number: Number) { markup += String(number) }
        mutating func appendInterpolation(_ parts: [HTML]) { for part in parts { markup += part.markup } }
        /// `parts`, or `empty` when there are none (a table's "None." row).
        mutating func appendInterpolation(_ parts: [HTML], otherwise empty: HTML) {
            if parts.isEmpty { markup += empty.markup } else { appendInterpolation(parts) }
        }
        /// `html` when `condition` holds, nothing otherwise.
        mutating func appendInterpolation(if condition: Bool, _ html: @autoclosure () -> HTML) {
            if condition { markup += html().markup }
        }
    }
}

extension HTML {
    /// `parts` one after another, `separator` between them. (Not a `joined()` on sequences: with
    /// two string-literal types, `.map { "…" }.joined()` would be ambiguous.)
    init<Parts: Sequence<HTML>>(joining parts: Parts, separator: HTML = "") {
        self.init(markup: "")
        for (index, part) in parts.enumerated() {
            if index > 0 { self += separator }
            self += part
        }
    }
}
