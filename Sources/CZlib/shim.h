// zlib's CRC-32 for Swift, behind names of our own (compress-nio wraps the same header for
// deflate): the gzip trailer of a response joined from blocks compressed at load needs the CRC
// of the whole, combined from the blocks' CRCs (crc32_combine_gen/_op, zlib 1.2.12+).
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <stdint.h>
#include <zlib.h>

/// The CRC-32 of `length` bytes at `bytes`, continuing from `crc` (0 to start).
static inline uint32_t czlib_crc32(uint32_t crc, const unsigned char *bytes, size_t length) {
    return (uint32_t)crc32_z(crc, bytes, length);
}

/// The operator that appends `length` bytes' worth to a CRC (crc32_combine_gen).
static inline unsigned long czlib_crc32_shift(long length) {
    return crc32_combine_gen((z_off_t)length);
}

/// The CRC-32 of A followed by B from theirs, given B's length's operator (crc32_combine_op).
static inline uint32_t czlib_crc32_combine(uint32_t crcA, uint32_t crcB, unsigned long shift) {
    return (uint32_t)crc32_combine_op(crcA, crcB, shift);
}

#endif
