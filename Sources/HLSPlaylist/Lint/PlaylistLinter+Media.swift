extension PlaylistLinter {
    func checkMediaPlaylist(_ playlist: MediaPlaylist, into findings: inout Findings) {
        self.checkTargetDuration(playlist, into: &findings)
        self.checkSequenceTags(playlist, into: &findings)
        self.checkSegments(playlist, into: &findings)
        self.checkKeysAndMaps(playlist, into: &findings)
        self.checkDateRanges(playlist, into: &findings)
        self.checkLowLatency(playlist, into: &findings)
        if playlist.playlistType == .vod, !playlist.hasEndList {
            findings.warning(
                "vod-without-endlist",
                line: nil,
                "EXT-X-PLAYLIST-TYPE:VOD says the playlist cannot change, but it has no EXT-X-ENDLIST; add #EXT-X-ENDLIST"
            )
        }
        if let offset = playlist.start?.timeOffset, !playlist.segments.isEmpty, offset.magnitude > playlist.duration {
            findings.warning(
                "start-offset",
                line: self.firstLine(of: "EXT-X-START", in: playlist.lines),
                "EXT-X-START TIME-OFFSET \(offset) is beyond the playlist's \(playlist.duration) s (§4.4.2.2)"
            )
        }
        if playlist.start != nil, playlist.start?.timeOffset == nil {
            findings.error("missing-attribute", line: self.firstLine(of: "EXT-X-START", in: playlist.lines), "EXT-X-START needs TIME-OFFSET")
        }
    }

    /// §4.4.3.1: required, at least 1, and no EXTINF rounded to the nearest integer above it.
    /// Before version 6 the target was the unrounded maximum (§8); that is only a warning, as
    /// players apply the rounding rule to every version.
    private func checkTargetDuration(_ playlist: MediaPlaylist, into findings: inout Findings) {
        guard let target = playlist.targetDuration else {
            findings.error("target-duration", line: nil, "the media playlist has no EXT-X-TARGETDURATION, which is required (§4.4.3.1)")
            return
        }
        if target < 1 {
            findings.error(
                "target-duration",
                line: self.firstLine(of: "EXT-X-TARGETDURATION", in: playlist.lines),
                "EXT-X-TARGETDURATION must be at least 1"
            )
        }
        let before6 = (playlist.version ?? 1) < 6
        // By the index's durations; a segment is made into a value only for a finding.
        for (index, record) in playlist.segmentRecords.enumerated() {
            let rounded = record.duration.roundedToInteger
            guard rounded > target || (before6 && record.duration > ExactDecimal(target)) else { continue }
            let segment = playlist.segments[index]
            if rounded > target {
                findings.error(
                    "target-duration",
                    line: segment.infLineNumber,
                    "EXTINF \(segment.durationText) rounds to \(rounded), above EXT-X-TARGETDURATION \(target); "
                        + "raise the target duration to at least \(rounded)"
                )
            } else if before6, segment.duration > ExactDecimal(target) {
                findings.warning(
                    "target-duration",
                    line: segment.infLineNumber,
                    "EXTINF \(segment.durationText) exceeds EXT-X-TARGETDURATION \(target); before protocol version 6 the "
                        + "target duration was the unrounded maximum (§8), so older players may expect \(segment.duration.ceiling)"
                )
            }
        }
    }

    /// §4.4.3.2–3: MEDIA-SEQUENCE and DISCONTINUITY-SEQUENCE come before the first segment, and
    /// DISCONTINUITY-SEQUENCE before any EXT-X-DISCONTINUITY.
    private func checkSequenceTags(_ playlist: MediaPlaylist, into findings: inout Findings) {
        let firstURILine = playlist.segments.first?.uriLineNumber ?? Int.max
        var firstDiscontinuity: Int?
        for (tag, number) in playlist.lines.numberedTags {
            switch tag {
            case .mediaSequence, .discontinuitySequence:
                if number > firstURILine {
                    findings.error(
                        "sequence-placement",
                        line: number,
                        "\(tag.name) must appear before the first media segment (line \(firstURILine)); move it to the header"
                    )
                }
                if case .discontinuitySequence = tag, let first = firstDiscontinuity {
                    findings.error(
                        "sequence-placement",
                        line: number,
                        "EXT-X-DISCONTINUITY-SEQUENCE must appear before any EXT-X-DISCONTINUITY (line \(first))"
                    )
                }
            case .discontinuity:
                firstDiscontinuity = firstDiscontinuity ?? number
            default: continue
            }
        }
    }

    private func checkSegments(_ playlist: MediaPlaylist, into findings: inout Findings) {
        var previousDate: (date: DateTime, segment: MediaSegment)?
        for (index, record) in playlist.segmentRecords.enumerated() {
            // Most segments have no date and no discontinuity: only the fMP4 check applies, read
            // from the index (a MediaSegment per segment was most of a long playlist's lint).
            if record.programDateTimeLine < 0, !record.isDiscontinuity {
                guard record.map < 0 else { continue }
                let uri = playlist.parsed.content(at: Int(record.uriLine))
                if Self.looksLikeFragmentedMP4(uri) {
                    findings.error(
                        "fmp4-map",
                        line: Int(playlist.parsed.records[Int(record.uriLine)].number),
                        Self.fragmentWithoutMap(uri)
                    )
                }
                continue
            }
            let segment = playlist.segments[index]
            if let text = segment.programDateTime {
                let line = self.tagLine(in: segment, of: playlist, matching: { if case .programDateTime = $0 { true } else { false } })
                if let date = DateTime(text) {
                    if !date.hasTimeZone {
                        findings.warning("program-date-time", line: line, "EXT-X-PROGRAM-DATE-TIME \(text) has no time zone; add Z or an offset")
                    }
                    if let previous = previousDate {
                        let expected = previous.date.secondsSinceEpoch + (segment.startTime - previous.segment.startTime)
                        if date.secondsSinceEpoch + ExactDecimal(1) <= expected, !segment.isDiscontinuity {
                            findings.error(
                                "program-date-time",
                                line: line,
                                "EXT-X-PROGRAM-DATE-TIME goes back more than a second against the segments before it, "
                                    + "making the date-to-segment mapping ambiguous (§6.2.1)"
                            )
                        }
                    }
                    previousDate = (date, segment)
                } else {
                    findings.error(
                        "program-date-time",
                        line: line,
                        "EXT-X-PROGRAM-DATE-TIME \(text) is not an ISO 8601 date-time such as 2026-11-23T06:00:00.000Z"
                    )
                }
            }
            if segment.map == nil, Self.looksLikeFragmentedMP4(segment.uri) {
                findings.error("fmp4-map", line: segment.uriLineNumber, Self.fragmentWithoutMap(segment.uri))
            }
            if segment.isDiscontinuity, index > 0, segment.map != nil,
                !playlist.lines[segment.lineIndices].contains(where: { if case .tag(.map) = $0.content { true } else { false } })
            {
                findings.warning(
                    "fmp4-map-after-discontinuity",
                    line: segment.uriLineNumber,
                    "an fMP4 segment after EXT-X-DISCONTINUITY keeps the earlier EXT-X-MAP; re-emit EXT-X-MAP after the "
                        + "discontinuity so players re-initialise with the right init section"
                )
            }
        }
    }

    private static func fragmentWithoutMap(_ uri: Substring) -> String {
        "\(uri) looks like an fMP4 segment but no EXT-X-MAP applies to it; fMP4 segments need their initialization section (§3.1.2)"
    }

    private func checkKeysAndMaps(_ playlist: MediaPlaylist, into findings: inout Findings) {
        var activeAES128WithoutIV = false
        for (tag, number) in playlist.lines.numberedTags {
            switch tag {
            case .key(let key):
                self.checkKey(key, isSessionKey: false, line: number, into: &findings)
                if key.method == .noEncryption {
                    activeAES128WithoutIV = false
                } else if key.keyFormat == "identity" {
                    activeAES128WithoutIV = key.method == .aes128 && key.iv == nil
                }
            case .map(let map):
                if map.uri == nil { findings.error("missing-attribute", line: number, "EXT-X-MAP needs a URI attribute (§4.4.4.5)") }
                if let range = map.attributes.string("BYTERANGE") {
                    if let parsed = ByteRange(range) {
                        if parsed.offset == nil {
                            findings.error(
                                "map-byterange",
                                line: number,
                                "EXT-X-MAP BYTERANGE=\"\(range)\" needs an offset (LENGTH@OFFSET): §4.4.4.5 makes it required"
                            )
                        }
                    } else {
                        findings.error("map-byterange", line: number, "EXT-X-MAP BYTERANGE must be \"LENGTH@OFFSET\"")
                    }
                }
                if activeAES128WithoutIV {
                    findings.error(
                        "map-key-iv",
                        line: number,
                        "this EXT-X-MAP is encrypted with AES-128 by a key without IV; §4.4.4.5 requires the key's IV attribute"
                    )
                }
            default: continue
            }
        }
    }

    /// §4.4.4.4 and §4.4.6.5.
    func checkKey(_ key: Key, isSessionKey: Bool, line: Int, into findings: inout Findings) {
        let tagName = isSessionKey ? "EXT-X-SESSION-KEY" : "EXT-X-KEY"
        guard let method = key.method else {
            findings.error("missing-attribute", line: line, "\(tagName) needs a METHOD attribute")
            return
        }
        if method == .noEncryption {
            if isSessionKey {
                findings.error("key-method", line: line, "EXT-X-SESSION-KEY may not have METHOD=NONE (§4.4.6.5)")
            }
            let others = key.attributes.attributes.map(\.name).filter { $0 != "METHOD" }
            if !others.isEmpty {
                findings.error(
                    "key-none-attributes",
                    line: line,
                    "\(tagName) with METHOD=NONE may not have other attributes (\(others.joined(separator: ", "))); remove them"
                )
            }
            return
        }
        if key.uri == nil {
            findings.error("missing-attribute", line: line, "\(tagName) with METHOD=\(method.rawValue) needs a URI attribute")
        }
        if let iv = key.iv {
            if iv.utf8.count - 2 > 32 {
                findings.error("key-iv", line: line, "IV \(iv) is longer than 128 bits (32 hexadecimal digits)")
            } else if method == .sampleAESCTR || method.rawValue == "AES-256-GCM" {
                findings.error("key-iv", line: line, "METHOD=\(method.rawValue) may not have an IV attribute (§4.4.4.4)")
            }
        }
        let known: Set<String> = ["AES-128", "SAMPLE-AES", "SAMPLE-AES-CTR", "AES-256-GCM"]
        if !known.contains(method.rawValue) {
            findings.error("key-method", line: line, "METHOD=\(method.rawValue) is not a method of §4.4.4.4 (NONE, AES-128, SAMPLE-AES…)")
        }
    }

    /// §4.4.3.7, §4.4.3.8, §4.4.4.9, §4.4.5.2–4.
    private func checkLowLatency(_ playlist: MediaPlaylist, into findings: inout Findings) {
        let target = playlist.targetDuration.map { ExactDecimal($0) } ?? .zero
        let partTarget = playlist.partInf?.partTarget
        let hasParts = !playlist.trailingParts.isEmpty || playlist.segmentRecords.contains { $0.partsEnd > $0.partsStart }
        if hasParts, playlist.partInf == nil {
            findings.error("part-inf", line: nil, "the playlist has EXT-X-PART tags but no EXT-X-PART-INF, which they require (§4.4.3.7)")
        }
        if let partInf = playlist.partInf {
            let line = self.firstLine(of: PartInf.tagName, in: playlist.lines)
            if partInf.partTarget == nil { findings.error("missing-attribute", line: line, "EXT-X-PART-INF needs PART-TARGET") }
            if playlist.serverControl?.partHoldBack == nil {
                findings.error(
                    "part-hold-back",
                    line: line,
                    "a playlist with EXT-X-PART-INF needs EXT-X-SERVER-CONTROL with PART-HOLD-BACK (§4.4.3.8)"
                )
            }
        }
        if let control = playlist.serverControl {
            let line = self.firstLine(of: ServerControl.tagName, in: playlist.lines)
            if let skip = control.canSkipUntil, skip < target * 6 {
                findings.error("server-control", line: line, "CAN-SKIP-UNTIL \(skip) must be at least six target durations (\(target * 6))")
            }
            if let hold = control.holdBack, hold < target * 3 {
                findings.error("server-control", line: line, "HOLD-BACK \(hold) must be at least three target durations (\(target * 3))")
            }
            if let hold = control.partHoldBack, let partTarget, hold < partTarget * 2 {
                findings.error("server-control", line: line, "PART-HOLD-BACK \(hold) must be at least twice PART-TARGET (\(partTarget * 2))")
            }
            if control.canSkipDateRanges, control.canSkipUntil == nil {
                findings.error("server-control", line: line, "CAN-SKIP-DATERANGES requires CAN-SKIP-UNTIL")
            }
        }
        for (tag, number) in playlist.lines.numberedTags {
            switch tag {
            case .part(let part):
                if part.uri == nil { findings.error("missing-attribute", line: number, "EXT-X-PART needs a URI attribute") }
                if let duration = part.duration {
                    if let partTarget, duration > partTarget {
                        findings.error(
                            "part-duration",
                            line: number,
                            "EXT-X-PART DURATION \(duration) exceeds PART-TARGET \(partTarget) (§4.4.4.9)"
                        )
                    }
                } else {
                    findings.error("missing-attribute", line: number, "EXT-X-PART needs a DURATION attribute")
                }
            case .preloadHint(let hint):
                if playlist.hasEndList {
                    findings.error("preload-hint", line: number, "a playlist with EXT-X-ENDLIST may not have EXT-X-PRELOAD-HINT (§4.4.5.3)")
                }
                if hint.type == nil || hint.uri == nil {
                    findings.error("missing-attribute", line: number, "EXT-X-PRELOAD-HINT needs TYPE and URI")
                }
            case .renditionReport(let report):
                if let uri = report.uri {
                    if uri.contains("://") {
                        findings.error("rendition-report", line: number, "EXT-X-RENDITION-REPORT URI must be relative (§4.4.5.4)")
                    }
                } else {
                    findings.error("missing-attribute", line: number, "EXT-X-RENDITION-REPORT needs a URI attribute")
                }
            case .skip(let skip):
                if skip.skippedSegments == nil {
                    findings.error("missing-attribute", line: number, "EXT-X-SKIP needs SKIPPED-SEGMENTS")
                }
                if playlist.hasEndList {
                    findings.error("skip", line: number, "a playlist with EXT-X-ENDLIST cannot be a delta update with EXT-X-SKIP")
                }
            default: continue
            }
        }
    }

    /// Segment URIs whose path ends like an fMP4/CMAF file.
    static func looksLikeFragmentedMP4(_ uri: Substring) -> Bool {
        // Once per segment of every playlist read: the bytes in place when the string has them.
        uri.utf8.withContiguousStorageIfAvailable(Self.looksLikeFragmentedMP4(bytes:))
            ?? Array(uri.utf8).withUnsafeBufferPointer(Self.looksLikeFragmentedMP4(bytes:))
    }

    /// Whether the path's extension (before any `?`), ASCII case folded, is an fMP4 one. No such
    /// extension is over five bytes with its dot, so the dot is looked for among the last five.
    private static func looksLikeFragmentedMP4(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        var dot = end - 1
        while dot >= max(0, end - 5), bytes[dot] != UInt8(ascii: ".") { dot -= 1 }
        guard dot >= max(0, end - 5) else { return false }
        let ending = UnsafeBufferPointer(rebasing: bytes[dot..<end])
        return Self.fragmentedMP4Extensions.contains { $0.elementsEqual(ending.lazy.map { $0 | ($0 &- 65 < 26 ? 0x20 : 0) }) }
    }

    private static let fragmentedMP4Extensions = [".mp4", ".m4s", ".m4v", ".m4a", ".cmfv", ".cmfa", ".cmft", ".cmfm"].map { Array($0.utf8) }

    /// The line number of the first tag named `name`.
    func firstLine(of name: String, in lines: PlaylistLines) -> Int? {
        lines.first { $0.tag?.name == name }?.number
    }

    /// The line of the first tag of a segment's lines that matches.
    func tagLine(in segment: MediaSegment, of playlist: MediaPlaylist, matching predicate: (Tag) -> Bool) -> Int {
        playlist.lines[segment.lineIndices].first { $0.tag.map(predicate) ?? false }?.number ?? segment.uriLineNumber
    }
}
