extension PlaylistLinter {
    /// §4.4.5.1 and Appendix D (HLS Interstitials).
    func checkDateRanges(_ playlist: MediaPlaylist, into findings: inout Findings) {
        guard !playlist.dateRanges.isEmpty else { return }
        if !playlist.segments.contains(where: { $0.programDateTime != nil }) {
            findings.error(
                "daterange-without-program-date-time",
                line: playlist.dateRanges[0].line,
                "a playlist with EXT-X-DATERANGE must also have an EXT-X-PROGRAM-DATE-TIME (§4.4.5.1); add one before the first segment"
            )
        }
        // Attributes of each ID so far: later tags with the same ID may add attributes, never change them.
        var byID: [String: (attributes: [String: String], line: Int)] = [:]
        for entry in playlist.dateRanges {
            let range = entry.dateRange
            let line = entry.line
            guard let id = range.id else {
                findings.error("missing-attribute", line: line, "EXT-X-DATERANGE needs an ID attribute")
                continue
            }
            var merged = byID[id]?.attributes ?? [:]
            if let first = byID[id] {
                for attribute in range.attributes.attributes {
                    if let earlier = first.attributes[attribute.name], earlier != attribute.rawValue {
                        findings.error(
                            "daterange-conflict",
                            line: line,
                            "EXT-X-DATERANGE ID=\"\(id)\" gives \(attribute.name)=\(attribute.rawValue), but line \(first.line) gave "
                                + "\(earlier); tags with one ID must agree on every attribute they share (§4.4.5.1)"
                        )
                    }
                }
            } else if range.startDate == nil {
                findings.error("missing-attribute", line: line, "EXT-X-DATERANGE ID=\"\(id)\" needs a START-DATE")
            }
            for attribute in range.attributes.attributes where merged[attribute.name] == nil {
                merged[attribute.name] = attribute.rawValue
            }
            byID[id] = (merged, byID[id]?.line ?? line)

            let start = merged["START-DATE"].map { String(Attribute(name: "", rawValue: $0).value) }
            let end = merged["END-DATE"].map { String(Attribute(name: "", rawValue: $0).value) }
            let startDate = start.flatMap { DateTime($0) }
            let endDate = end.flatMap { DateTime($0) }
            if let start, startDate == nil {
                findings.error("daterange-date", line: line, "START-DATE \"\(start)\" is not an ISO 8601 date-time")
            }
            if let end, endDate == nil {
                findings.error("daterange-date", line: line, "END-DATE \"\(end)\" is not an ISO 8601 date-time")
            }
            if let startDate, let endDate {
                if endDate < startDate {
                    findings.error("daterange-end-date", line: line, "END-DATE is before START-DATE in EXT-X-DATERANGE ID=\"\(id)\"")
                }
                if let duration = merged["DURATION"].flatMap({ ExactDecimal($0) }),
                    (startDate.secondsSinceEpoch + duration - endDate.secondsSinceEpoch).magnitude > ExactDecimal(significand: 1, exponent: 3)
                {
                    findings.error(
                        "daterange-duration",
                        line: line,
                        "END-DATE must equal START-DATE plus DURATION (\(duration) s) in EXT-X-DATERANGE ID=\"\(id)\""
                    )
                }
            }
            if range.endOnNext {
                if range.dateRangeClass == nil && merged["CLASS"] == nil {
                    findings.error("daterange-end-on-next", line: line, "EXT-X-DATERANGE with END-ON-NEXT=YES needs a CLASS attribute")
                }
                if merged["DURATION"] != nil || merged["END-DATE"] != nil {
                    findings.error(
                        "daterange-end-on-next",
                        line: line,
                        "EXT-X-DATERANGE with END-ON-NEXT=YES may not have DURATION or END-DATE"
                    )
                }
            }
            if let value = range.attributes.string("END-ON-NEXT"), value != "YES" {
                findings.error("daterange-end-on-next", line: line, "END-ON-NEXT must be YES when present")
            }
            let cue = Set(range.cue)
            if cue.contains("PRE"), cue.contains("POST") {
                findings.error("daterange-cue", line: line, "CUE may not hold both PRE and POST (§4.4.5.1)")
            }
            if range.isInterstitial {
                let hasURI = merged["X-ASSET-URI"] != nil
                let hasList = merged["X-ASSET-LIST"] != nil
                if hasURI == hasList {
                    findings.error(
                        "interstitial-asset",
                        line: line,
                        "an interstitial EXT-X-DATERANGE needs exactly one of X-ASSET-URI and X-ASSET-LIST (Appendix D.2)"
                    )
                }
            }
        }
    }
}
