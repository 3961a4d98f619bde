/// A feature that needs a minimum protocol version (RFC 8216bis §8).
public struct VersionRequirement: Sendable, Hashable {
    public var version: Int
    /// The feature, in words (`EXT-X-MAP`, `a floating-point EXTINF duration`).
    public var feature: String
    /// The line that uses it.
    public var line: Int
}

extension MediaPlaylist {
    /// The lowest EXT-X-VERSION this playlist's features need (RFC 8216bis §8): the one rule
    /// the linter checks declared versions against and stitching writes its versions by.
    public var minimumVersion: Int { self.versionRequirement?.version ?? 1 }

    /// The feature that needs the highest version, and where; nil when version 1 will do.
    public var versionRequirement: VersionRequirement? { PlaylistLinter().requiredVersion(self) }
}

extension MultivariantPlaylist {
    /// The lowest EXT-X-VERSION this playlist's features need (RFC 8216bis §8).
    public var minimumVersion: Int { PlaylistLinter().requiredVersion(self)?.version ?? 1 }
}

extension PlaylistLinter {
    /// §8: a playlist must declare at least the version its features need (none declared is version 1).
    func checkVersion(declared: Int?, required: VersionRequirement?, lines: PlaylistLines, into findings: inout Findings) {
        guard let required, required.version > (declared ?? 1) else { return }
        let versionLine = self.firstLine(of: "EXT-X-VERSION", in: lines)
        let declaredText = declared.map { "EXT-X-VERSION is \($0)" } ?? "the playlist has no EXT-X-VERSION (version 1)"
        findings.error(
            "version",
            line: versionLine ?? required.line,
            "\(declaredText), but \(required.feature) (line \(required.line)) needs version \(required.version); "
                + "declare #EXT-X-VERSION:\(required.version) or higher"
        )
    }

    /// The highest requirement among the media playlist's features.
    func requiredVersion(_ playlist: MediaPlaylist) -> VersionRequirement? {
        var best: VersionRequirement?
        func need(_ version: Int, _ feature: String, _ line: Int) {
            if version > (best?.version ?? 1) { best = VersionRequirement(version: version, feature: feature, line: line) }
        }
        // Only the lines that can raise the requirement are made into values: EXTINF lines until
        // one needs version 3, URI lines only when the text holds a variable reference.
        let parsed = playlist.parsed
        let variables = playlist.lines.mayUseVariables
        for (index, record) in parsed.records.enumerated() {
            let content: PlaylistLine.Content
            switch record.kind {
            case .inf where (best?.version ?? 1) < 3, .uri where variables: content = parsed.lineContent(at: index)
            case .tag: content = .tag(parsed.tags[Int(record.payload)])
            case .inf, .uri, .comment: continue
            }
            let number = Int(record.number)
            switch content {
            case .tag(.inf(let inf)) where inf.durationText.utf8.contains(UInt8(ascii: ".")):
                need(3, "a floating-point EXTINF duration", number)
            case .tag(.byteRange):
                need(4, "EXT-X-BYTERANGE", number)
            case .tag(.iFramesOnly):
                need(4, "EXT-X-I-FRAMES-ONLY", number)
            case .tag(.key(let key)):
                if key.attributes["IV"] != nil { need(2, "the IV attribute of EXT-X-KEY", number) }
                if key.method == .sampleAES { need(5, "EXT-X-KEY METHOD=SAMPLE-AES", number) }
                if key.attributes["KEYFORMAT"] != nil || key.attributes["KEYFORMATVERSIONS"] != nil {
                    need(5, "the KEYFORMAT/KEYFORMATVERSIONS attributes of EXT-X-KEY", number)
                }
            case .tag(.map):
                if playlist.isIFramesOnly {
                    need(5, "EXT-X-MAP in an I-frame playlist", number)
                } else {
                    need(6, "EXT-X-MAP", number)
                }
            case .tag(.skip(let skip)):
                need(9, "EXT-X-SKIP", number)
                if skip.attributes["RECENTLY-REMOVED-DATERANGES"] != nil {
                    need(10, "EXT-X-SKIP replacing EXT-X-DATERANGE tags", number)
                }
            default:
                self.sharedRequirement(content, number, need: need)
            }
        }
        return best
    }

    /// The highest requirement among the multivariant playlist's features.
    func requiredVersion(_ playlist: MultivariantPlaylist) -> VersionRequirement? {
        var best: VersionRequirement?
        func need(_ version: Int, _ feature: String, _ line: Int) {
            if version > (best?.version ?? 1) { best = VersionRequirement(version: version, feature: feature, line: line) }
        }
        for (content, number) in playlist.lines.numberedContents {
            if case .tag(.media(let media)) = content, let id = media.instreamID {
                if id.hasPrefix("SERVICE") { need(7, "INSTREAM-ID=\"SERVICEn\"", number) }
                if media.type != .closedCaptions { need(13, "INSTREAM-ID on a rendition other than CLOSED-CAPTIONS", number) }
            }
            self.sharedRequirement(content, number, need: need)
        }
        return best
    }

    /// Requirements of both playlist kinds: variables (8), QUERYPARAM (11), REQ- attributes (12).
    private func sharedRequirement(_ content: PlaylistLine.Content, _ number: Int, need: (Int, String, Int) -> Void) {
        switch content {
        case .tag(.define(let define)):
            need(8, "variable substitution (EXT-X-DEFINE)", number)
            if define.attributes["QUERYPARAM"] != nil { need(11, "EXT-X-DEFINE with QUERYPARAM", number) }
        case .uri(let uri) where uri.hasVariableReference:
            need(8, "variable substitution", number)
        case .tag(let tag):
            guard let list = tag.attributes else { return }
            if list.attributes.contains(where: { $0.name.hasPrefix("REQ-") }) {
                need(12, "an attribute whose name starts with REQ-", number)
            }
            if list.attributes.contains(where: { $0.rawValue.hasVariableReference }) {
                need(8, "variable substitution", number)
            }
        default:
            return
        }
    }
}
