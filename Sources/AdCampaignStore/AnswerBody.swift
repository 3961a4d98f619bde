import NIOCore

/// An answer's body as the buffers it is written from, in order.
///
/// A stitched media playlist's are the session's own bytes (its header, discontinuities, date
/// ranges, key changes, short blocks such as an ad's few segments, rows rewritten with its values)
/// between the layout's long shared segment blocks — a programme island's hundreds of lines —
/// each of those one buffer made at load (``StitchedBody/Block/plain``, ``StitchedBody/sharedMinimum``):
/// no request copies them, and an answer in flight holds only its own bytes
/// (docs/performance.md "Direct answers"). Every other answer is one buffer.
package struct AnswerBody: Sendable {
    /// The buffers, in order; none of them empty.
    package let buffers: [ByteBuffer]
    /// The body's length in bytes.
    package let count: Int
    /// What the answer holds in memory of its own: the capacity of the buffers not shared with
    /// the layout (the response cache counts it where it exceeds ``count``).
    package let ownedBytes: Int

    package init(_ buffer: ByteBuffer) {
        self.buffers = buffer.readableBytes > 0 ? [buffer] : []
        self.count = buffer.readableBytes
        self.ownedBytes = buffer.capacity
    }

    /// `buffers` in order, of which `ownedBytes` are the answer's own.
    package init(buffers: [ByteBuffer], ownedBytes: Int) {
        self.buffers = buffers.filter { $0.readableBytes > 0 }
        self.count = buffers.reduce(0) { $0 + $1.readableBytes }
        self.ownedBytes = ownedBytes
    }
}
