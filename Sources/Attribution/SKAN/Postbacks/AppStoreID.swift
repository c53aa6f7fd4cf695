/// An app's App Store id, the number Apple's postbacks name it by (`app-id`,
/// `advertised-item-identifier`), read from its store URL: `https://apps.apple.com/us/app/name/id123456789`.
public enum AppStoreID {
    public static func from(storeURL: String) -> Int64? {
        guard let host = storeURL.split(separator: "/").dropFirst().first?.lowercased(),
            host == "apps.apple.com" || host == "itunes.apple.com"
        else { return nil }
        let path = storeURL.split(separator: "?").first ?? ""
        for part in path.split(separator: "/").reversed() where part.hasPrefix("id") {
            let digits = part.dropFirst(2)
            if !digits.isEmpty, digits.count <= 15, digits.allSatisfy(\.isASCIIDigit), let id = Int64(digits), id > 0 { return id }
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
