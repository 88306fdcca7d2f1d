/// Draws a ``QRMatrix`` in qrencode's output types (`-t PNG|SVG|ANSI|UTF8|ASCII|PGM`), with
/// its `-s` module size (pixels per module) and `-m` margin (quiet zone in modules; ISO/IEC
/// 18004 §5.3.8 asks for 4).
public enum QRRenderer {
    public enum Format: String, Sendable, CaseIterable {
        case png = "PNG", svg = "SVG", ansi = "ANSI", utf8 = "UTF8", ascii = "ASCII", pgm = "PGM"

        public init?(name: String) { self.init(rawValue: name.uppercased()) }

        /// qrencode's default margins: 4 modules for images, 2 for terminal text.
        public var defaultMargin: Int {
            switch self {
            case .png, .svg, .pgm: 4
            case .ansi, .utf8, .ascii: 2
            }
        }

        /// True for the formats meant for a terminal.
        public var isText: Bool { self == .ansi || self == .utf8 || self == .ascii }
    }

    /// The file bytes for `matrix` in `format`.
    public static func render(_ matrix: QRMatrix, format: Format, moduleSize: Int = 3, margin: Int? = nil)
        throws(ProvisioningError) -> [UInt8]
    {
        let margin = margin ?? format.defaultMargin
        guard (1...100).contains(moduleSize) else {
            throw ProvisioningError(.badOption, "module size -s must be 1…100")
        }
        guard (0...100).contains(margin) else { throw ProvisioningError(.badOption, "margin -m must be 0…100") }
        switch format {
        case .png: return try PNGCodec.encode(raster(matrix, moduleSize: moduleSize, margin: margin))
        case .pgm: return NetpbmCodec.encodePGM(raster(matrix, moduleSize: moduleSize, margin: margin))
        case .svg: return Array(svg(matrix, moduleSize: moduleSize, margin: margin).utf8)
        case .ansi: return Array(ansi(matrix, margin: margin).utf8)
        case .utf8: return Array(utf8(matrix, margin: margin).utf8)
        case .ascii: return Array(ascii(matrix, margin: margin).utf8)
        }
    }

    /// The symbol as gray pixels: black modules on white, `moduleSize` pixels each.
    public static func raster(_ matrix: QRMatrix, moduleSize: Int = 3, margin: Int = 4) -> GrayImage {
        let side = (matrix.size + 2 * margin) * moduleSize
        var image = GrayImage(width: side, height: side, fill: 255)
        for my in 0..<matrix.size {
            for mx in 0..<matrix.size where matrix[mx, my] {
                let x0 = (mx + margin) * moduleSize
                let y0 = (my + margin) * moduleSize
                for y in y0..<y0 + moduleSize {
                    let row = y * side
                    for x in x0..<x0 + moduleSize { image.pixels[row + x] = 0 }
                }
            }
        }
        return image
    }

    /// An SVG 1.1 document with one path of unit squares, scaled to `moduleSize` px per module.
    static func svg(_ matrix: QRMatrix, moduleSize: Int, margin: Int) -> String {
        let n = matrix.size + 2 * margin
        var path = ""
        for y in 0..<matrix.size {
            var x = 0
            while x < matrix.size {
                guard matrix[x, y] else {
                    x += 1
                    continue
                }
                var run = 1
                while x + run < matrix.size, matrix[x + run, y] { run += 1 }
                path += "M\(x + margin) \(y + margin)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let px = n * moduleSize
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(px)" height="\(px)" \
            viewBox="0 0 \(n) \(n)" shape-rendering="crispEdges">
            <rect width="\(n)" height="\(n)" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>

            """
    }

    static func dark(_ m: QRMatrix, _ x: Int, _ y: Int, margin: Int) -> Bool {
        let mx = x - margin
        let my = y - margin
        return mx >= 0 && my >= 0 && mx < m.size && my < m.size && m[mx, my]
    }

    /// Two spaces per module with ANSI background colours (like `qrencode -t ANSI`).
    static func ansi(_ m: QRMatrix, margin: Int) -> String {
        let n = m.size + 2 * margin
        let white = "\u{1B}[47m"
        let black = "\u{1B}[40m"
        let reset = "\u{1B}[0m"
        var out = ""
        for y in 0..<n {
            var current = ""
            for x in 0..<n {
                let colour = dark(m, x, y, margin: margin) ? black : white
                if colour != current {
                    out += colour
                    current = colour
                }
                out += "  "
            }
            out += reset + "\n"
        }
        return out
    }

    /// Half-block characters, two rows per text line, dark modules drawn as spaces on a light
    /// terminal background inverted (like `qrencode -t UTF8`: light = █).
    static func utf8(_ m: QRMatrix, margin: Int) -> String {
        let n = m.size + 2 * margin
        var out = ""
        var y = 0
        while y < n {
            for x in 0..<n {
                let top = !dark(m, x, y, margin: margin)
                let bottom = y + 1 < n ? !dark(m, x, y + 1, margin: margin) : false
                switch (top, bottom) {
                case (true, true): out += "█"
                case (true, false): out += "▀"
                case (false, true): out += "▄"
                case (false, false): out += " "
                }
            }
            out += "\n"
            y += 2
        }
        return out
    }

    /// `##` for dark and two spaces for light modules (like `qrencode -t ASCII`).
    static func ascii(_ m: QRMatrix, margin: Int) -> String {
        let n = m.size + 2 * margin
        var out = ""
        for y in 0..<n {
            for x in 0..<n { out += dark(m, x, y, margin: margin) ? "##" : "  " }
            out += "\n"
        }
        return out
    }
}
