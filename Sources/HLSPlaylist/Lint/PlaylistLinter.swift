/// Checks playlists against the rules of RFC 8216 and draft-pantos-hls-rfc8216bis that a
/// playlist file can break, in the manner of Apple's mediastreamvalidator.
///
/// Findings are ``Diagnostic``s: `error` for a MUST the playlist breaks (players may refuse
/// it), `warning` for what players need in practice or the spec recommends. Sections cited
/// are those of draft-pantos-hls-rfc8216bis.
public struct PlaylistLinter: Sendable {
    public init() {}

    /// Every finding for a playlist of either kind, ordered by line.
    public func lint(_ playlist: Playlist) -> [Diagnostic] {
        switch playlist {
        case .media(let media): self.lint(media)
        case .multivariant(let multivariant): self.lint(multivariant)
        }
    }

    public func lint(_ playlist: MediaPlaylist) -> [Diagnostic] {
        var findings = Findings()
        findings.list += playlist.parseDiagnostics
        self.checkSource(playlist.source, lines: playlist.lines, into: &findings)
        self.checkMediaPlaylist(playlist, into: &findings)
        self.checkVersion(declared: playlist.version, required: self.requiredVersion(playlist), lines: playlist.lines, into: &findings)
        self.checkVariables(playlist.lines, isMultivariant: false, into: &findings)
        return findings.sorted
    }

    public func lint(_ playlist: MultivariantPlaylist) -> [Diagnostic] {
        var findings = Findings()
        self.checkSource(playlist.source, lines: playlist.lines, into: &findings)
        self.checkMultivariantPlaylist(playlist, into: &findings)
        self.checkVersion(declared: playlist.version, required: self.requiredVersion(playlist), lines: playlist.lines, into: &findings)
        self.checkVariables(playlist.lines, isMultivariant: true, into: &findings)
        return findings.sorted
    }

    // MARK: - Shared checks

    /// RFC 8216bis §4.1: no BOM, no control characters; tags that may appear once appear once
    /// (§4.4.1.2, §4.4.2, §4.4.3).
    private func checkSource(_ source: SourceNotes, lines: PlaylistLines, into findings: inout Findings) {
        if source.strippedByteOrderMark {
            findings.warning("bom", line: 1, "the file starts with a byte order mark, which RFC 8216bis §4.1 forbids; save it as UTF-8 without BOM")
        }
        var seen: [String: Int] = [:]
        // Without a control character or a C1 lead byte anywhere in the text, only the typed
        // tags can have findings (EXTINF, URI and comment lines have none of the tag checks):
        // those alone are made into lines.
        // Over the bytes in place when the text has them (a parsed playlist's always does).
        let isSuspect = { (byte: UInt8) in (byte < 0x20 && byte != 0x0A) || byte == 0x7f || byte == 0xC2 }
        let text = lines.parsed.text.utf8
        let clean = !(text.withContiguousStorageIfAvailable { $0.contains(where: isSuspect) } ?? text.contains(where: isSuspect))
        for index in lines.indices where !clean || lines.parsed.records[index].kind == .tag {
            let line = lines[index]
            // U+0000–U+001F but CR and LF (which end lines), and U+007F; tabs are let through with
            // a warning: common, and harmless where they stand. (U+0080–U+009F are forbidden too:
            // a warning, as no playlist line means them.)
            if let byte = line.text.utf8.first(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7f }) {
                findings.error(
                    "control-character",
                    line: line.number,
                    "the line holds the control character U+00\(byte < 0x10 ? "0" : "")\(String(byte, radix: 16, uppercase: true)), which RFC 8216bis §4.1 forbids in a playlist; remove it"
                )
            } else if line.text.utf8.contains(0x09) {
                findings.warning(
                    "control-character",
                    line: line.number,
                    "the line holds a tab, a control character RFC 8216bis §4.1 forbids in a playlist"
                )
            } else if line.text.unicodeScalars.contains(where: { (0x80...0x9f).contains($0.value) }) {
                findings.warning(
                    "control-character",
                    line: line.number,
                    "the line holds a C1 control character (U+0080–U+009F), which RFC 8216bis §4.1 forbids"
                )
            }
            guard let tag = line.tag else { continue }
            if tag.mayAppearOnlyOnce {
                if let first = seen[tag.name] {
                    findings.error("duplicate-tag", line: line.number, "\(tag.name) may appear only once; it already appears on line \(first)")
                } else {
                    seen[tag.name] = line.number
                }
            }
            if case .unknown(let name, _) = tag, name.hasPrefix("EXT-X-") {
                findings.warning("unknown-tag", line: line.number, "\(name) is not a tag of RFC 8216bis; players ignore it")
            }
            if let list = tag.attributes {
                for attribute in list.attributes where attribute.isQuoted && attribute.value.isEmpty && !tag.allowsEmptyQuotedString(attribute.name) {
                    findings.error(
                        "empty-quoted-string",
                        line: line.number,
                        "\(attribute.name) is an empty quoted-string; RFC 8216bis §4.2 requires a value"
                    )
                }
                for attribute in list.attributes where attribute.name.hasPrefix("REQ-") && tag.attributeSchema?[attribute.name] == nil {
                    findings.warning(
                        "unknown-req-attribute",
                        line: line.number,
                        "\(attribute.name) is not known; players MUST ignore a tag with an unknown REQ- attribute (§6.3.1)"
                    )
                }
            }
        }
    }

    /// Runs the variable resolver leniently (values of IMPORT and QUERYPARAM are unknown here)
    /// to report malformed, duplicate and undefined variables.
    private func checkVariables(_ lines: PlaylistLines, isMultivariant: Bool, into findings: inout Findings) {
        guard lines.mayUseVariables else { return }
        var resolver = VariableResolver(imports: nil, url: nil, isMultivariant: isMultivariant, placeholdersForExternalValues: true)
        do {
            _ = try resolver.resolve(lines)
        } catch {
            findings.error("variables", line: error.line, error.message)
        }
    }
}

/// Collects diagnostics; sorted by line, whole-playlist findings first.
struct Findings {
    var list: [Diagnostic] = []

    mutating func error(_ rule: String, line: Int?, _ message: String) {
        self.list.append(.error(rule, line: line, message))
    }

    mutating func warning(_ rule: String, line: Int?, _ message: String) {
        self.list.append(.warning(rule, line: line, message))
    }

    var sorted: [Diagnostic] {
        self.list.enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element.line ?? 0, rhs.element.line ?? 0)
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
    }
}

extension Tag {
    /// RFC 8216bis: EXT-X-VERSION (§4.4.1.2), the §4.4.2 tags but DEFINE, every Media Playlist
    /// tag (§4.4.3), EXT-X-SKIP (§4.4.5.2) and EXT-X-CONTENT-STEERING (§4.4.6.6).
    var mayAppearOnlyOnce: Bool {
        switch self {
        case .m3u, .version, .independentSegments, .start, .targetDuration, .mediaSequence, .discontinuitySequence, .endList,
            .playlistType, .iFramesOnly, .partInf, .serverControl, .skip, .contentSteering:
            true
        default: false
        }
    }

    var attributeSchema: [String: AttributeType]? {
        switch self {
        case .start: Start.schema
        case .define: Define.schema
        case .partInf: PartInf.schema
        case .serverControl: ServerControl.schema
        case .key, .sessionKey: Key.schema
        case .map: Map.schema
        case .part: Part.schema
        case .dateRange: DateRange.schema
        case .skip: Skip.schema
        case .preloadHint: PreloadHint.schema
        case .renditionReport: RenditionReport.schema
        case .media: Media.schema
        case .streamInf: StreamInf.schema
        case .iFrameStreamInf: IFrameStreamInf.schema
        case .sessionData: SessionData.schema
        case .contentSteering: ContentSteering.schema
        default: nil
        }
    }

    /// Quoted-strings the spec allows to be empty: DEFINE's VALUE and SKIP's RECENTLY-REMOVED-DATERANGES.
    func allowsEmptyQuotedString(_ name: String) -> Bool {
        switch self {
        case .define: name == "VALUE"
        case .skip: name == "RECENTLY-REMOVED-DATERANGES"
        default: false
        }
    }
}
