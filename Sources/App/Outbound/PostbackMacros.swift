import Foundation
import JSON

/// The `{macro}`s of postback URL and body templates (outbound.md, "Ad-network postbacks"):
/// which exist, which a template uses, and the template with values put in, URL-encoded in a URL,
/// JSON-escaped in a JSON body, form-encoded in any other body.
public enum PostbackMacros {
    public static let names: Set<String> = [
        "click_id", "network_click_id", "install_id", "event_name", "event_id", "revenue", "currency", "idfa", "idfv", "gaid",
        "ip", "user_agent", "country", "platform", "app_version", "timestamp",
        "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term",
    ]

    /// Every `{name}` in the text (names of letters, digits and `_`).
    public static func used(in text: String) -> [String] {
        var found: [String] = []
        var current: String?
        for character in text {
            if character == "{" {
                current = ""
            } else if character == "}" {
                if let name = current, !name.isEmpty { found.append(name) }
                current = nil
            } else if current != nil {
                if character.isASCII && (character.isLetter || character.isNumber || character == "_") {
                    current!.append(character)
                } else {
                    current = nil
                }
            }
        }
        return found
    }

    public enum Encoding: Sendable { case url, json }

    /// The text with each known macro replaced by its value (empty when there is none).
    public static func render(_ text: String, values: [String: String], encoding: Encoding) -> String {
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "{", let close = text[index...].firstIndex(of: "}") {
                let name = String(text[text.index(after: index)..<close])
                if names.contains(name) {
                    output += encode(values[name] ?? "", encoding)
                    index = text.index(after: close)
                    continue
                }
            }
            output.append(text[index])
            index = text.index(after: index)
        }
        return output
    }

    /// An amount as macros carry it: plain decimal, no exponent, no trailing zeros.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// Whether a body is JSON (macros JSON-escaped) rather than a form.
    public static func isJSONBody(_ body: String) -> Bool {
        guard let first = body.first(where: { !$0.isWhitespace }) else { return false }
        return first == "{" || first == "["
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ value: String, _ encoding: Encoding) -> String {
        switch encoding {
        case .url: return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        case .json:
            var bytes: [UInt8] = []
            ByteText.appendJSONString(value, to: &bytes)
            return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
        }
    }
}
