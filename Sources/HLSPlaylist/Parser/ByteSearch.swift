#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension UnsafeBufferPointer<UInt8> {
    /// The index of the first `byte` at or after `start` — `memchr`, which libc vectorises: the
    /// one byte search the parser, the linter and the loader use over a playlist's whole text.
    package func firstIndex(ofByte byte: UInt8, from start: Int) -> Int? {
        guard start >= 0, start < self.count, let base = self.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), self.count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
