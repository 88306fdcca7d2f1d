import CZBar

/// Finds QR codes in a gray image with zbar (Y800 input, QR only, `ZBAR_CFG_BINARY` so UTF-8
/// payloads arrive as raw bytes — SWIFT-LINUX.md). Returns every code's bytes, in zbar's order.
public enum QRScanner {
    /// The fourcc "Y800": 8-bit luma, one byte per pixel.
    static let y800: UInt = 0x3030_3859

    public static func scan(_ image: GrayImage) throws(ProvisioningError) -> [[UInt8]] {
        guard let scanner = zbar_image_scanner_create() else {
            throw ProvisioningError(.library, "zbar_image_scanner_create failed")
        }
        defer { zbar_image_scanner_destroy(scanner) }
        _ = zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        _ = zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        _ = zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        guard let zimage = zbar_image_create() else { throw ProvisioningError(.library, "zbar_image_create failed") }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, y800)
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        var results: [[UInt8]] = []
        let status: Int32 = image.pixels.withUnsafeBytes { raw in
            zbar_image_set_data(zimage, raw.baseAddress, UInt(raw.count), nil)
            let n = zbar_scan_image(scanner, zimage)
            var symbol = zbar_image_first_symbol(zimage)
            while let s = symbol {
                if zbar_symbol_get_type(s) == ZBAR_QRCODE, let data = zbar_symbol_get_data(s) {
                    let length = Int(zbar_symbol_get_data_length(s))
                    results.append(
                        data.withMemoryRebound(to: UInt8.self, capacity: length) {
                            Array(UnsafeBufferPointer(start: $0, count: length))
                        })
                }
                symbol = zbar_symbol_next(s)
            }
            zbar_image_set_data(zimage, nil, 0, nil)
            return n
        }
        guard status >= 0 else { throw ProvisioningError(.library, "zbar_scan_image failed") }
        return results
    }
}
