/// An 8-bit grayscale raster, row-major, top row first — what zbar scans (Y800) and what the
/// PNG/PGM writers take. 0 is black, 255 white.
public struct GrayImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixel count must be width×height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A blank image of one gray level.
    public init(width: Int, height: Int, fill: UInt8 = 255) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: fill, count: width * height))
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
