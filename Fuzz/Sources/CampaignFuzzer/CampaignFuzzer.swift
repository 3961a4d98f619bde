// libFuzzer target over the whole pipeline a replica runs on a campaign: load (YAML, playlists,
// limits, validation), lay out, plan for several viewers, and render every file of each session.
// An input is a small campaign folder: its files in a fixed order, separated by lines `#~~~`
// (campaign.yaml, then the programme's and the ad's multivariant and media playlists, then the
// slate's); a missing part takes the seed's. Any input may be refused with a CampaignError or a
// StitchError; none may crash, hang, or render a playlist that does not parse.
import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist

/// The files of the folder, in input order.
let names = ["campaign.yaml", "p/master.m3u8", "p/v.m3u8", "a/master.m3u8", "a/v.m3u8", "s/master.m3u8", "s/v.m3u8"]

/// A valid folder: what each missing part of an input falls back to.
let seed = [
    """
    version: 1
    id: fuzz
    program:
      islands:
        - { id: act-1, playlist: p/master.m3u8 }
    breaks:
      - { id: pre, before: act-1, duration: 10, pools: [prime] }
      - { id: mid, after: act-1, duration: 10, pools: [prime], restrict: [skip] }
    slate: { playlist: s/master.m3u8 }
    pools:
      prime:
        - { id: alpha, playlist: a/master.m3u8, weight: 2 }
    rules:
      - { name: es, when: { attributes: { locale: '^es' } }, then: { boost: { alpha: 3 } } }
    startup:
      - { when: { attributes: { bandwidth: '^[0-9]+$' } }, pick: { bandwidth_hint: 0.8 } }
    markers: [daterange, cue]
    """,
    "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360,FRAME-RATE=25.000\nv.m3u8\n",
    "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.000,\nseg0.ts\n#EXTINF:4.000,\nseg1.ts\n#EXT-X-ENDLIST\n",
    "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=700000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360,FRAME-RATE=25.000\nv.m3u8\n",
    "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.000,\nad0.ts\n#EXTINF:2.000,\nad1.ts\n#EXT-X-ENDLIST\n",
    "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360,FRAME-RATE=25.000\nv.m3u8\n",
    "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.000,\nslate.ts\n#EXT-X-ENDLIST\n",
]

/// A folder of this process's own in memory-backed storage where it exists.
let folder: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("adstitch-fuzz-\(getpid())")
    for directory in ["p", "a", "s"] {
        try? FileManager.default.createDirectory(at: url.appendingPathComponent(directory), withIntermediateDirectories: true)
    }
    return url
}()

/// Viewers whose plans exercise rules, startup picks and the bandwidth hint.
let viewers = [
    ViewerContext(session: "f-1", at: Date(timeIntervalSince1970: 1_795_807_800), attributes: ["locale": "es-ES", "bandwidth": "9007199254740991"]),
    ViewerContext(session: "f-2", at: Date(timeIntervalSince1970: 0), attributes: ["seen": "alpha", "device": "tv"]),
    ViewerContext(session: "f 3/é", at: Date(timeIntervalSince1970: 1_795_807_800), attributes: ["market": "eu"]),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func campaignFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.components(separatedBy: "\n#~~~\n")
    for (index, name) in names.enumerated() {
        let content = index < parts.count ? parts[index] : seed[index]
        try? Data(content.utf8).write(to: folder.appendingPathComponent(name))
    }
    guard let campaign = try? CampaignLoader.load(folder.appendingPathComponent("campaign.yaml")),
        let layout = try? StitchLayout(campaign: campaign, uris: .absolute)
    else { return 0 }
    let renderer = SessionRenderer(layout: layout)
    for viewer in viewers {
        let plan = Planner().plan(campaign, for: viewer)
        let report = PlanReport(plan) { layout.appliedRewrites($0, rewrites: plan.rewrites) }
        _ = report.json.text()
        _ = report.text
        _ = BoundaryManifest(plan).json.text()
        guard let master = try? renderer.multivariant(plan, playlistURI: { "\($0.id).m3u8" }, boundariesURI: "boundaries.json") else { continue }
        precondition((try? PlaylistParser().parseMultivariantPlaylist(master)) != nil, "the multivariant playlist does not parse:\n\(master)")
        for rendition in layout.renditions {
            guard let playlist = try? renderer.mediaPlaylist(plan, rendition: rendition) else { continue }
            guard let parsed = try? PlaylistParser().parseMediaPlaylist(playlist) else {
                fatalError("stitched \(rendition.id).m3u8 does not parse:\n\(playlist)")
            }
            precondition(parsed.hasEndList, "a stitched VOD playlist without EXT-X-ENDLIST")
        }
    }
    return 0
}
