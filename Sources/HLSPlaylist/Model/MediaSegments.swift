#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The segments of a ``MediaPlaylist``, made into ``MediaSegment`` values as they are read.
public struct MediaSegments: RandomAccessCollection, Sendable {
    let playlist: MediaPlaylist

    public var startIndex: Int { 0 }
    public var endIndex: Int { self.playlist.segmentRecords.count }

    public subscript(position: Int) -> MediaSegment {
        let record = self.playlist.segmentRecords[position]
        let parsed = self.playlist.parsed
        let inf = parsed.inf(at: Int(record.infLine))
        var segment = MediaSegment(
            uri: parsed.content(at: Int(record.uriLine)),
            duration: record.duration,
            durationText: inf.durationText,
            title: inf.title
        )
        segment.byteRange = record.byteRange >= 0 ? self.playlist.byteRanges[Int(record.byteRange)] : nil
        segment.isDiscontinuity = record.isDiscontinuity
        segment.keys = self.playlist.keySets[Int(record.keySet)]
        segment.map = record.map >= 0 ? self.playlist.maps[Int(record.map)] : nil
        if record.programDateTimeLine >= 0, case .tag(.programDateTime(let date)) = parsed.line(at: Int(record.programDateTimeLine)).content {
            segment.programDateTime = date
        }
        segment.isGap = record.isGap
        segment.bitrate = record.bitrate >= 0 ? record.bitrate : nil
        segment.parts = Array(self.playlist.parts[Int(record.partsStart)..<Int(record.partsEnd)])
        segment.startTime = record.startTime
        segment.mediaSequenceNumber = self.playlist.mediaSequence + (self.playlist.skip?.value.skippedSegments ?? 0) + position
        segment.discontinuitySequenceNumber = record.discontinuitySequenceNumber
        segment.infLineNumber = Int(parsed.records[Int(record.infLine)].number)
        segment.uriLineNumber = Int(parsed.records[Int(record.uriLine)].number)
        segment.lineIndices = Int(record.firstLine)..<(Int(record.uriLine) + 1)
        return segment
    }
}
