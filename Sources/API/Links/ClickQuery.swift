import Attribution

/// What a click keeps of its URL's query, from items parsed once per request.
enum ClickQuery {
    /// UTM values of the query (`utm_source`, …).
    static func utm(_ queryItems: [(name: String, value: String)]) -> UTM {
        var map: [String: String] = [:]
        for item in queryItems where item.name.hasPrefix("utm_") {
            let key = String(item.name.dropFirst(4))
            if LinkTemplate.utmKeys.contains(key), !item.value.isEmpty, map[key] == nil { map[key] = item.value.prefix(characters: 256) }
        }
        return UTM(map)
    }

    /// Query parameters kept with a click: at most 50, values cut to 512 characters.
    static func kept(_ queryItems: [(name: String, value: String)]) -> [String: String] {
        var map: [String: String] = [:]
        for item in queryItems.prefix(50) where map[item.name] == nil { map[item.name.prefix(characters: 64)] = item.value.prefix(characters: 512) }
        return map
    }
}
