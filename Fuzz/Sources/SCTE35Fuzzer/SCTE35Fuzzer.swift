// libFuzzer target over the SCTE 35 decoder (scripts/fuzz.sh). The bytes are a
// splice_info_section — with the CRC-32 the fuzzer cannot guess fixed up first, so mutations
// reach the fields behind it — and, as text, a base64 or hex one. Any input may be refused
// with an SCTE35Error; none may crash or hang, and what decodes is consistent.
import SCTE35

@_cdecl("LLVMFuzzerTestOneInput")
public func scte35FuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? SpliceInfoSection(bytes: bytes)
    _ = try? SpliceInfoSection(String(decoding: bytes, as: UTF8.self))
    // The same bytes with a correct CRC-32: the decoder then reads every field.
    if bytes.count >= 4 {
        let crc = SpliceInfoSection.crc32(bytes.dropLast(4))
        bytes.replaceSubrange(
            bytes.count - 4..<bytes.count,
            with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        )
        if let section = try? SpliceInfoSection(bytes: bytes) {
            precondition(section.crc == crc, "a decoded section carries another CRC than its bytes")
            for segmentation in section.segmentations {
                precondition(!(segmentation.startsBreak && segmentation.endsBreak), "a type both starts and ends a break")
            }
        }
    }
    return 0
}
