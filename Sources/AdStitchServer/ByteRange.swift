import AdCampaignStore
import HTTPTypes
import Hummingbird
import NIOCore

/// One `bytes` range as RFC 9110 §14.1.2 writes it: `first-last`, `first-` or `-suffix` — what
/// media files and session files answer with `206`.
enum ByteRange: Equatable {
    case from(Int, through: Int?)
    case suffix(Int)

    /// A single well-formed `bytes=` range; nil for anything else (which the caller ignores:
    /// RFC 9110 §14.2, a Range the server does not understand — another unit, several ranges,
    /// bad syntax — gets the whole representation).
    init?(_ header: String) {
        guard header.hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        func number(_ text: Substring) -> Int? {
            // Digits only: Int("+5") would accept a sign, RFC 9110 does not. More digits than an
            // Int holds are a position past any file (a last byte clamps to the end).
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
            return Int(text) ?? Int.max
        }
        if spec[0].isEmpty {
            guard let suffix = number(spec[1]) else { return nil }
            self = .suffix(suffix)
            return
        }
        guard let first = number(spec[0]) else { return nil }
        if spec[1].isEmpty {
            self = .from(first, through: nil)
            return
        }
        guard let last = number(spec[1]), last >= first else { return nil }
        self = .from(first, through: last)
    }

    /// The first and last byte within a file of `size` bytes; nil when unsatisfiable.
    func bounds(size: Int) -> (Int, Int)? {
        switch self {
        case .from(let first, let last):
            guard first < size else { return nil }
            return (first, min(last ?? size - 1, size - 1))
        case .suffix(let length):
            guard length > 0, size > 0 else { return nil }
            return (max(0, size - length), size - 1)
        }
    }
}

extension AnswerBody {
    /// A session file's answer to its request's `Range` and `If-Range`, as nginx answers for a
    /// static file (RFC 9110 §14, §13.1.5): on the plain representation (a request with a Range
    /// gets no gzip: ``Response/acceptsGzip(_:range:)``) — `206` with `Content-Range` for one satisfiable range, `416` with
    /// `Content-Range: bytes */size` for a well-formed one past the end, the whole `200` when
    /// there is no Range, one the server does not understand, or an If-Range that is not the
    /// answer's strong ETag (a date never matches: session files carry no Last-Modified). Every
    /// answer says `Accept-Ranges: bytes`. A player that lost a connection midway (libsoup asks
    /// for "the rest" after a short body) resumes instead of failing.
    static func ranged(
        _ headers: HTTPFields,
        _ body: AnswerBody,
        range: String?,
        ifRange: String?
    ) -> (status: HTTPResponse.Status, headers: HTTPFields, body: AnswerBody) {
        var headers = headers
        headers[.acceptRanges] = "bytes"
        guard let range, let byteRange = ByteRange(range) else { return (.ok, headers, body) }
        if let ifRange {
            // A strong comparison (§8.8.3.2): a weak tag or another tag means "send it all".
            let condition = ifRange.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
            guard let etag = headers[.eTag], !etag.hasPrefix("W/"), condition.elementsEqual(etag) else {
                return (.ok, headers, body)
            }
        }
        guard let (first, last) = byteRange.bounds(size: body.count) else {
            headers[.contentRange] = "bytes */\(body.count)"
            headers[.contentLength] = "0"
            // No body, so nothing for these to describe.
            headers[.contentType] = nil
            headers[.contentEncoding] = nil
            return (.rangeNotSatisfiable, headers, AnswerBody(buffers: [], ownedBytes: 0))
        }
        headers[.contentRange] = "bytes \(first)-\(last)/\(body.count)"
        headers[.contentLength] = String(last - first + 1)
        return (.partialContent, headers, body.slice(first...last))
    }

    /// Bytes `bounds` of the body, as slices of its buffers (nothing copied).
    func slice(_ bounds: ClosedRange<Int>) -> AnswerBody {
        var slices: [ByteBuffer] = []
        var offset = 0
        for buffer in self.buffers {
            let start = max(bounds.lowerBound, offset)
            let end = min(bounds.upperBound + 1, offset + buffer.readableBytes)
            if start < end, let slice = buffer.getSlice(at: buffer.readerIndex + start - offset, length: end - start) { slices.append(slice) }
            offset += buffer.readableBytes
            if offset > bounds.upperBound { break }
        }
        return AnswerBody(buffers: slices, ownedBytes: 0)
    }
}
