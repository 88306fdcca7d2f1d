import CPNG

/// PNG (ISO/IEC 15948) through libpng's simplified `png_image` API: reads every PNG colour
/// type and bit depth (1/2/4/8/16-bit gray, RGB, RGBA, gray+alpha, palette, tRNS, Adam7
/// interlaced) into 8-bit gray, compositing transparency on white; writes 8-bit gray.
public enum PNGCodec {
    /// The 8-byte PNG signature (ISO/IEC 15948 §5.2).
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Refuse images whose decoded size would exceed this many pixels (a PNG bomb guard).
    static let maxPixels = 100_000_000

    public static func isPNG(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }

    /// Decodes PNG bytes to gray; damaged or truncated data is ``ProvisioningError/Code/corruptImage``.
    public static func decode(_ bytes: [UInt8]) throws(ProvisioningError) -> GrayImage {
        // libpng keeps the memory pointer from begin_read until finish_read: one closure spans both.
        let result: Result<GrayImage, ProvisioningError> = bytes.withUnsafeBytes { raw in
            var image = png_image()
            image.version = astra_png_version_opaque()
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
                return .failure(ProvisioningError(.corruptImage, "PNG: " + message(of: &image)))
            }
            let width = Int(image.width)
            let height = Int(image.height)
            guard width > 0, height > 0, width * height <= maxPixels else {
                png_image_free(&image)
                return .failure(ProvisioningError(.corruptImage, "PNG: image size \(width)×\(height) is not supported"))
            }
            image.format = astra_png_format_gray()
            var pixels = [UInt8](repeating: 255, count: width * height)
            var white = png_color(red: 255, green: 255, blue: 255)
            guard png_image_finish_read(&image, &white, &pixels, png_int_32(width), nil) != 0 else {
                let text = message(of: &image)
                png_image_free(&image)
                return .failure(ProvisioningError(.corruptImage, "PNG: " + text))
            }
            return .success(GrayImage(width: width, height: height, pixels: pixels))
        }
        return try result.get()
    }

    /// Encodes an 8-bit gray PNG (zlib-compressed IDAT, CRC-checked chunks written by libpng).
    public static func encode(_ gray: GrayImage) throws(ProvisioningError) -> [UInt8] {
        var image = png_image()
        image.version = astra_png_version_opaque()
        image.width = png_uint_32(gray.width)
        image.height = png_uint_32(gray.height)
        image.format = astra_png_format_gray()
        var size: png_alloc_size_t = 0
        guard png_image_write_to_memory(&image, nil, &size, 0, gray.pixels, png_int_32(gray.width), nil) != 0,
            size > 0
        else { throw ProvisioningError(.library, "PNG encoding failed: " + message(of: &image)) }
        var out = [UInt8](repeating: 0, count: Int(size))
        guard png_image_write_to_memory(&image, &out, &size, 0, gray.pixels, png_int_32(gray.width), nil) != 0 else {
            throw ProvisioningError(.library, "PNG encoding failed: " + message(of: &image))
        }
        return Array(out.prefix(Int(size)))
    }

    static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let bytes = raw.prefix(while: { $0 != 0 })
            let text = String(decoding: bytes, as: UTF8.self)
            return text.isEmpty ? "unknown libpng error" : text
        }
    }
}
