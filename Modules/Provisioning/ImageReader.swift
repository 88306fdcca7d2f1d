/// Turns image file bytes into gray pixels, choosing the codec by signature, not by name.
package enum ImageReader {
    /// PNG or Netpbm by magic bytes; anything else is ``ProvisioningError/Code/notAnImage``.
    public static func decode(_ bytes: [UInt8]) throws(ProvisioningError) -> GrayImage {
        if PNGCodec.isPNG(bytes) { return try PNGCodec.decode(bytes) }
        if NetpbmCodec.isNetpbm(bytes) { return try NetpbmCodec.decode(bytes) }
        if bytes.isEmpty { throw ProvisioningError(.notAnImage, "empty file, not an image") }
        throw ProvisioningError(.notAnImage, "not an image (expected PNG, PGM or PPM)")
    }
}
