extension QRCode {
    /// The symbol as a scalable SVG image: one path of dark runs per row, a light background,
    /// `margin` light modules of quiet zone around it (4 by the standard).
    public func svg(margin: Int = 4) -> String {
        let side = size + 2 * margin
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                var length = 1
                while x + length < size, isDark(x: x + length, y: y) { length += 1 }
                path += "M\(x + margin) \(y + margin)h\(length)v1h-\(length)z"
                x += length
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>

            """
    }
}
