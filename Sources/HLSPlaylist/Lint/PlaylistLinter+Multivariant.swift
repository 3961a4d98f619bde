extension PlaylistLinter {
    func checkMultivariantPlaylist(_ playlist: MultivariantPlaylist, into findings: inout Findings) {
        self.checkRenditions(playlist, into: &findings)
        self.checkVariants(playlist, into: &findings)
        self.checkSessionTags(playlist, into: &findings)
    }

    /// §4.4.6.1 and the group rules of §4.4.6.1.1.
    private func checkRenditions(_ playlist: MultivariantPlaylist, into findings: inout Findings) {
        var names: [String: Int] = [:]
        var defaults: [String: Int] = [:]
        for entry in playlist.renditions {
            let media = entry.value
            let line = entry.line
            guard let type = media.type else {
                findings.error(
                    media.attributes["TYPE"] == nil ? "missing-attribute" : "media-type",
                    line: line,
                    "EXT-X-MEDIA needs TYPE=AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS"
                )
                continue
            }
            guard let group = media.groupID, let name = media.name else {
                findings.error("missing-attribute", line: line, "EXT-X-MEDIA needs GROUP-ID and NAME attributes")
                continue
            }
            let groupKey = "\(type.rawValue)/\(group)"
            if let first = names["\(groupKey)/\(name)"] {
                findings.error("media-name", line: line, "NAME=\"\(name)\" is already used in \(type.rawValue) group \"\(group)\" (line \(first))")
            } else {
                names["\(groupKey)/\(name)"] = line
            }
            if media.isDefault {
                if let first = defaults[groupKey] {
                    findings.error(
                        "media-default",
                        line: line,
                        "\(type.rawValue) group \"\(group)\" already has a DEFAULT=YES member (line \(first))"
                    )
                } else {
                    defaults[groupKey] = line
                }
                if let autoselect = media.attributes.flag("AUTOSELECT"), !autoselect {
                    findings.error("media-autoselect", line: line, "AUTOSELECT must be YES when DEFAULT is YES (§4.4.6.1)")
                }
            }
            switch type {
            case .closedCaptions:
                if media.uri != nil { findings.error("media-uri", line: line, "CLOSED-CAPTIONS renditions may not have a URI") }
                if let id = media.instreamID {
                    if !Self.isClosedCaptionChannel(id) {
                        findings.error("media-instream-id", line: line, "INSTREAM-ID must be CC1–CC4 or SERVICE1–SERVICE63, found \"\(id)\"")
                    }
                } else {
                    findings.error("missing-attribute", line: line, "CLOSED-CAPTIONS renditions need INSTREAM-ID")
                }
            case .subtitles:
                if media.uri == nil { findings.error("media-uri", line: line, "SUBTITLES renditions need a URI (§4.4.6.2.1)") }
            case .audio, .video:
                break
            }
            if media.attributes["FORCED"] != nil, type != .subtitles {
                findings.error("media-forced", line: line, "FORCED is only allowed on SUBTITLES renditions")
            }
            for audioOnly in ["CHANNELS", "BIT-DEPTH", "SAMPLE-RATE"] where media.attributes[audioOnly] != nil && type != .audio {
                findings.error("media-audio-attribute", line: line, "\(audioOnly) is only allowed on AUDIO renditions")
            }
        }
    }

    /// §4.4.6.2–3; CODECS and RESOLUTION are what players choose variants by (seeds 000, 002).
    private func checkVariants(_ playlist: MultivariantPlaylist, into findings: inout Findings) {
        var groups: [MediaType: Set<String>] = [:]
        for entry in playlist.renditions {
            if let type = entry.value.type, let group = entry.value.groupID { groups[type, default: []].insert(group) }
        }
        var closedCaptionsNone = 0
        for variant in playlist.variants {
            let streamInf = variant.streamInf
            let line = variant.line
            self.checkBandwidth(streamInf, line: line, tagName: StreamInf.tagName, into: &findings)
            if streamInf.attributes["CODECS"] == nil {
                findings.warning(
                    "codecs",
                    line: line,
                    "EXT-X-STREAM-INF has no CODECS; players need it to skip variants they cannot decode without downloading them"
                )
            }
            if streamInf.resolution == nil, Self.hasVideo(streamInf.codecs) {
                findings.warning(
                    "resolution",
                    line: line,
                    "EXT-X-STREAM-INF of a video variant has no RESOLUTION; players need it to pick a variant for the screen"
                )
            }
            for (attribute, type) in [("AUDIO", MediaType.audio), ("VIDEO", .video), ("SUBTITLES", .subtitles)] {
                if let group = streamInf.attributes.string(attribute), groups[type]?.contains(group) != true {
                    findings.error(
                        "group-reference",
                        line: line,
                        "\(attribute)=\"\(group)\" names no EXT-X-MEDIA with TYPE=\(type.rawValue) and GROUP-ID=\"\(group)\""
                    )
                }
            }
            if let captions = streamInf.attributes["CLOSED-CAPTIONS"] {
                if captions.isQuoted {
                    if groups[.closedCaptions]?.contains(String(captions.value)) != true {
                        findings.error(
                            "group-reference",
                            line: line,
                            "CLOSED-CAPTIONS=\(captions.rawValue) names no EXT-X-MEDIA with TYPE=CLOSED-CAPTIONS and that GROUP-ID"
                        )
                    }
                } else {
                    closedCaptionsNone += 1
                }
            }
            if let frameRate = streamInf.attributes["FRAME-RATE"], let dot = frameRate.rawValue.firstIndex(of: "."),
                frameRate.rawValue[dot...].count > 4
            {
                findings.warning("frame-rate", line: line, "FRAME-RATE should be rounded to three decimal places (§4.4.6.2)")
            }
            if (playlist.version ?? 1) >= 6, streamInf.attributes["PROGRAM-ID"] != nil {
                findings.warning("program-id", line: line, "PROGRAM-ID was removed in protocol version 6; remove it")
            }
        }
        if closedCaptionsNone > 0, closedCaptionsNone != playlist.variants.count {
            findings.error(
                "closed-captions-none",
                line: nil,
                "some variants have CLOSED-CAPTIONS=NONE and others do not; with NONE on one, every EXT-X-STREAM-INF must say NONE (§4.4.6.2)"
            )
        }
        for entry in playlist.iFrameVariants {
            let iFrame = entry.value
            self.checkBandwidth(iFrame, line: entry.line, tagName: IFrameStreamInf.tagName, into: &findings)
            if iFrame.uri == nil {
                findings.error("missing-attribute", line: entry.line, "EXT-X-I-FRAME-STREAM-INF needs a URI attribute")
            }
            // The I-frame variant of a rendition carries a fraction of its frames: more bits than
            // the full variant of the same picture size means a wrong BANDWIDTH.
            let sameSize = playlist.variants.filter { $0.streamInf.resolution == iFrame.resolution && iFrame.resolution != nil }
            if let bandwidth = iFrame.bandwidth, !sameSize.isEmpty,
                let regular = sameSize.compactMap({ $0.streamInf.bandwidth }).max(), bandwidth > regular
            {
                findings.warning(
                    "iframe-bandwidth",
                    line: entry.line,
                    "I-frame variant BANDWIDTH \(bandwidth) exceeds the \(iFrame.resolution?.description ?? "") variant's \(regular); "
                        + "measure the I-frame playlist's peak bit rate"
                )
            }
        }
    }

    private func checkBandwidth(_ variant: some VariantAttributes, line: Int, tagName: String, into findings: inout Findings) {
        guard let bandwidth = variant.bandwidth else {
            findings.error("missing-attribute", line: line, "\(tagName) needs a BANDWIDTH attribute (§4.4.6.2)")
            return
        }
        if let average = variant.averageBandwidth, average > bandwidth {
            findings.warning("average-bandwidth", line: line, "AVERAGE-BANDWIDTH \(average) exceeds the peak BANDWIDTH \(bandwidth)")
        }
    }

    /// §4.4.6.4–6.
    private func checkSessionTags(_ playlist: MultivariantPlaylist, into findings: inout Findings) {
        var dataKeys: [String: Int] = [:]
        for entry in playlist.sessionData {
            let data = entry.value
            guard let id = data.dataID else {
                findings.error("missing-attribute", line: entry.line, "EXT-X-SESSION-DATA needs a DATA-ID attribute")
                continue
            }
            if (data.value == nil) == (data.uri == nil) {
                findings.error("session-data", line: entry.line, "EXT-X-SESSION-DATA needs either VALUE or URI, not both and not neither")
            }
            let key = "\(id)\u{0}\(data.language ?? "")"
            if let first = dataKeys[key] {
                findings.error(
                    "session-data",
                    line: entry.line,
                    "EXT-X-SESSION-DATA DATA-ID=\"\(id)\" with this LANGUAGE already appears on line \(first)"
                )
            } else {
                dataKeys[key] = entry.line
            }
        }
        for entry in playlist.sessionKeys {
            self.checkKey(entry.value, isSessionKey: true, line: entry.line, into: &findings)
        }
        if let steering = playlist.contentSteering {
            if steering.value.serverURI == nil {
                findings.error("missing-attribute", line: steering.line, "EXT-X-CONTENT-STEERING needs SERVER-URI")
            }
            if let pathway = steering.value.pathwayID, !playlist.variants.contains(where: { $0.streamInf.pathwayID == pathway }) {
                findings.error(
                    "content-steering",
                    line: steering.line,
                    "PATHWAY-ID=\"\(pathway)\" is not the PATHWAY-ID of any variant (§4.4.6.6)"
                )
            }
        }
    }

    static func isClosedCaptionChannel(_ id: String) -> Bool {
        if ["CC1", "CC2", "CC3", "CC4"].contains(id) { return true }
        guard id.hasPrefix("SERVICE"), let number = Int(id.dropFirst(7)) else { return false }
        return (1...63).contains(number)
    }

    /// Whether a CODECS list names a video codec (or is absent, when nothing is known).
    static func hasVideo(_ codecs: [String]) -> Bool {
        guard !codecs.isEmpty else { return true }
        let video = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "av01", "vp09", "vp08", "mp4v"]
        return codecs.contains { codec in video.contains { codec.hasPrefix($0) } }
    }
}
