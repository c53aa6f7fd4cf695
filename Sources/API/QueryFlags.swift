import Attribution
import HTTP

extension HTTPRequest {
    /// A boolean query parameter: absent, `false` or `0` is false; `true`, `1` or bare is true;
    /// anything else is refused naming the parameter.
    func flag(_ name: String) throws -> Bool {
        switch queryValue(name) {
        case nil, "false"?, "0"?: return false
        case "true"?, "1"?, ""?: return true
        case let other?: throw HTTPError.invalidField(name, "must be true or false, got '\(other.prefix(characters: 16))'")
        }
    }
}
