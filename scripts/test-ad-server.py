#!/usr/bin/env python3
"""A VAST 4.3 / VMAP 1.0.1 ad decision server for tests and the demo (docs/campaign-format.md "Ad decision servers"), standard library
only. Every answer is built from the request path and query, so a test names the shape it wants;
every request is recorded (with its query and its X-Device-* headers) for tests to read back.

Creatives are HLS multivariant playlists under --media-base (the ads of a campaign served by an
origin), each ad by its id: <media-base>/<id>/master.m3u8, its UniversalAdId "UAID-<id>". Every
inline ad has a pause tracker and an Open Measurement verification in <AdVerifications> (VAST
4.1+); every wrapper one of its own in <Extensions><Extension type="AdVerifications"> (VAST 3).

  /vast/inline?ad=ID&dur=SECONDS            one inline ad
  /vast/pod?ads=ID,ID,…&dur=S,S,…           a pod, sequence 1…n in the order given
                 [&standalone=ID&sdur=S]     and one stand-alone ad after it
  /vast/wrapper?depth=N&to=PATH             N wrappers (each its own request) leading to PATH
                 [&multiple=true|false]      (PATH: another path of this server, query included,
                 [&follow=true|false]        percent-encoded); allowMultipleAds and
                                             followAdditionalWrappers of every wrapper
  /vast/loop                                a wrapper whose VASTAdTagURI is itself
  /vast/empty                               <VAST version="4.3"/> with a root <Error>
  /vast/malformed                           not well-formed XML
  /vast/error500                            HTTP 500
  /vast/slow?ms=MS&to=PATH                  answers PATH's answer after MS milliseconds
  /vast/mp4?ad=ID&dur=S                     an inline ad whose only MediaFile is an MP4
  /vmap?pre=PATH&mid=SECONDS:PATH&post=PATH a VMAP: a pre-roll, a mid-roll at SECONDS, a post-roll,
                                            each an AdTagURI to PATH on this server

Hostile answers (docs/reliability.md "Ad server faults"), each a shape a stranger's server sends:
  /vast/duration?value=TEXT[&ad=ID]         an inline ad whose <Duration> is TEXT as written
  /vmap/offset?offset=TEXT&to=PATH          a VMAP of one break at timeOffset TEXT (50%, a huge clock…)
  /vast/fanout?width=W&depth=D              W wrappers (allowMultipleAds), each to a fan-out one level
                                            shallower (its own URL: no loop), inline ads at depth 0
  /vast/many?count=N[&ad=ID]                N stand-alone inline ads, each its own creative identity
  /vast/wrap?uri=URL                        a wrapper whose VASTAdTagURI is URL (any host)
  /vast/creative?uri=URL[&dur=S][&tracker=URL]
                                            an inline ad whose HLS media file is URL (any host), its
                                            impression tracker URL
  /vast/source?uri=URL[&dur=S][&ad=ID]      an inline ad whose only MediaFile is the MP4 at URL
  /redirect?to=URL                          302 to URL
  /track/EVENT?…                            a tracker (an ad's: bp=[BREAKPOSITION]&ap=[ADPLAYHEAD]&
                                            cp=[CONTENTPLAYHEAD]&ad=ID): 204; [&fail=N|always] 500 to the first N requests
                                            of this path and query (or all); [&ms=M] after M ms
  /requests                                 every request so far, as JSON (not recorded itself)
  /reset                                    forgets the requests

Usage: test-ad-server.py [--port N] [--media-base URL]
       binds 127.0.0.1 on a free port (or --port) and prints "Serving HTTP on 127.0.0.1 port N".
"""
import argparse
import html
import http.server
import json
import threading
import time
import urllib.parse

REQUESTS = []
FAILED = {}
LOCK = threading.Lock()


def clock(seconds):
    """VAST's HH:MM:SS.mmm."""
    milliseconds = int(round(float(seconds) * 1000))
    return "%02d:%02d:%02d.%03d" % (milliseconds // 3600000, milliseconds // 60000 % 60, milliseconds // 1000 % 60, milliseconds % 1000)


def cdata(text):
    return "<![CDATA[%s]]>" % text.replace("]]>", "]]]]><![CDATA[>")


class Answers:
    def __init__(self, base, media_base):
        self.base = base
        self.media_base = media_base.rstrip("/")

    def tracker(self, ad, event):
        # The VAST 4.3 playhead macros a stitcher fills when it fires (bp, ap, cp), before ad=.
        return cdata("%s/track/%s?bp=[BREAKPOSITION]&ap=[ADPLAYHEAD]&cp=[CONTENTPLAYHEAD]&ad=%s"
                     % (self.base, event, urllib.parse.quote(ad)))

    def verification(self, vendor, ad):
        return (
            '<Verification vendor="%s"><JavaScriptResource apiFramework="omid" browserOptional="true">%s</JavaScriptResource>'
            '<VerificationParameters>%s</VerificationParameters>'
            '<TrackingEvents><Tracking event="verificationNotExecuted">%s</Tracking></TrackingEvents></Verification>'
            % (html.escape(vendor), cdata("%s/omid/%s.js" % (self.base, vendor)), cdata(json.dumps({"ad": ad})),
               cdata("%s/track/verificationNotExecuted?ad=%s&reason=[REASON]" % (self.base, urllib.parse.quote(ad))))
        )

    def inline_ad(self, ad, duration, sequence=None, mp4_only=False):
        sequence_attribute = ' sequence="%d"' % sequence if sequence else ""
        files = ['<MediaFile delivery="progressive" type="video/mp4" width="1280" height="720">%s</MediaFile>'
                 % cdata("%s/%s/creative.mp4" % (self.media_base, ad))]
        if not mp4_only:
            files.append('<MediaFile delivery="streaming" type="application/x-mpegURL" width="1280" height="720">%s</MediaFile>'
                         % cdata("%s/%s/master.m3u8" % (self.media_base, ad)))
        events = "".join('<Tracking event="%s">%s</Tracking>' % (event, self.tracker(ad, event))
                         for event in ("start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "pause"))
        return (
            '<Ad id="%s"%s><InLine><AdSystem>AdStitch test ad server</AdSystem><AdTitle>%s</AdTitle>'
            '<Impression>%s</Impression><Error>%s</Error>'
            '<Creatives><Creative id="creative-%s"><UniversalAdId idRegistry="ad-id.org">UAID-%s</UniversalAdId>'
            '<Linear><Duration>%s</Duration><TrackingEvents>%s</TrackingEvents><MediaFiles>%s</MediaFiles></Linear>'
            '</Creative></Creatives><AdVerifications>%s</AdVerifications></InLine></Ad>'
            % (html.escape(ad), sequence_attribute, html.escape(ad), self.tracker(ad, "impression"),
               cdata("%s/track/error?ad=%s&code=[ERRORCODE]" % (self.base, urllib.parse.quote(ad))),
               html.escape(ad), html.escape(ad), clock(duration), events, "".join(files), self.verification("inline.example-omid", ad))
        )

    def wrapper_ad(self, name, uri, multiple=True, follow=True):
        return (
            '<Ad id="%s"><Wrapper followAdditionalWrappers="%s" allowMultipleAds="%s"><AdSystem>AdStitch test wrapper</AdSystem>'
            '<Impression>%s</Impression><Error>%s</Error><VASTAdTagURI>%s</VASTAdTagURI>'
            '<Creatives><Creative><Linear><TrackingEvents><Tracking event="start">%s</Tracking></TrackingEvents></Linear></Creative></Creatives>'
            '<Extensions><Extension type="AdVerifications"><AdVerifications>%s</AdVerifications></Extension></Extensions>'
            '</Wrapper></Ad>'
            % (html.escape(name), "true" if follow else "false", "true" if multiple else "false", self.tracker(name, "impression"),
               cdata("%s/track/error?ad=%s&code=[ERRORCODE]" % (self.base, name)), cdata(uri), self.tracker(name, "start"),
               self.verification("wrapper.example-omid", name))
        )

    @staticmethod
    def vast(body, errors=""):
        return '<?xml version="1.0" encoding="UTF-8"?>\n<VAST version="4.3">%s%s</VAST>\n' % (body, errors)

    def answer(self, path, query):
        """(status, body) for a request, or (status, body, delay in seconds)."""
        one = lambda name, default=None: query.get(name, [default])[0]
        if path == "/vast/inline":
            return 200, self.vast(self.inline_ad(one("ad", "alpha"), one("dur", "15")))
        if path == "/vast/mp4":
            return 200, self.vast(self.inline_ad(one("ad", "alpha"), one("dur", "15"), mp4_only=True))
        if path == "/vast/pod":
            ads = [ad for ad in one("ads", "").split(",") if ad]
            durations = (one("dur", "") or "").split(",")
            body = "".join(self.inline_ad(ad, durations[i] if i < len(durations) and durations[i] else "15", sequence=i + 1)
                           for i, ad in enumerate(ads))
            if one("standalone"):
                body += self.inline_ad(one("standalone"), one("sdur", "15"))
            return 200, self.vast(body)
        if path == "/vast/wrapper":
            depth = int(one("depth", "1"))
            target = one("to", "/vast/inline")
            multiple = one("multiple", "true") == "true"
            follow = one("follow", "true") == "true"
            if depth > 1:
                rest = dict(query)
                rest["depth"] = [str(depth - 1)]
                next_uri = "%s/vast/wrapper?%s" % (self.base, urllib.parse.urlencode({k: v[0] for k, v in rest.items()}))
            else:
                next_uri = self.base + target
            return 200, self.vast(self.wrapper_ad("wrapper-%d" % depth, next_uri, multiple, follow))
        if path == "/vast/loop":
            return 200, self.vast(self.wrapper_ad("loop", self.base + "/vast/loop"))
        if path == "/vast/empty":
            return 200, self.vast("", "<Error>%s</Error>" % cdata(self.base + "/track/error?ad=none&code=[ERRORCODE]"))
        if path == "/vast/malformed":
            return 200, '<?xml version="1.0"?><VAST version="4.3"><Ad id="broken"><InLine>'
        if path == "/vast/error500":
            return 500, "ad server failure\n"
        if path == "/vast/slow":
            target = urllib.parse.urlsplit(one("to", "/vast/inline"))
            inner = self.answer(target.path, urllib.parse.parse_qs(target.query))
            return inner[0], inner[1], int(one("ms", "1000")) / 1000
        if path == "/vmap":
            breaks = []
            if one("pre"):
                breaks.append(("start", "preroll", one("pre")))
            for index, mid in enumerate(query.get("mid", [])):
                seconds, _, target = mid.partition(":")
                breaks.append((clock(seconds), "mid-%d" % (index + 1), target))
            if one("post"):
                breaks.append(("end", "postroll", one("post")))
            body = "".join(
                '<vmap:AdBreak timeOffset="%s" breakType="linear" breakId="%s"><vmap:AdSource id="%s" allowMultipleAds="true" '
                'followRedirects="true"><vmap:AdTagURI templateType="vast4">%s</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>'
                % (offset, name, name, cdata(self.base + target)) for offset, name, target in breaks)
            return 200, ('<?xml version="1.0" encoding="UTF-8"?>\n<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" '
                         'version="1.0">%s</vmap:VMAP>\n' % body)
        if path.startswith("/track/"):
            # A tracker that fails: ?fail=N answers 500 to its first N requests (by path and
            # query less fail's own count), ?fail=always to every one; ?ms=M answers after M ms.
            fail = one("fail")
            if fail is not None:
                key = path + "?" + urllib.parse.urlencode(sorted((k, v[0]) for k, v in query.items()))
                with LOCK:
                    FAILED[key] = FAILED.get(key, 0) + 1
                    count = FAILED[key]
                if fail == "always" or count <= int(fail):
                    return 500, "tracker failure\n"
            if one("ms"):
                return 204, "", int(one("ms")) / 1000
            return 204, ""
        hostile = self.hostile(path, query, one)
        if hostile:
            return hostile
        return 404, "no such answer: %s\n" % path

    def bare_inline(self, ad, duration_text, media_uri, mime="application/x-mpegURL", tracker=None):
        """An inline ad with one media file, written as given (no clock conversion)."""
        impression = "<Impression>%s</Impression>" % cdata(tracker) if tracker else ""
        return (
            '<Ad id="%s"><InLine><AdSystem>hostile</AdSystem><AdTitle>%s</AdTitle>%s'
            '<Creatives><Creative id="c-%s"><UniversalAdId idRegistry="ad-id.org">UAID-%s</UniversalAdId>'
            '<Linear><Duration>%s</Duration><MediaFiles><MediaFile delivery="%s" type="%s" width="1280" height="720">%s</MediaFile>'
            '</MediaFiles></Linear></Creative></Creatives></InLine></Ad>'
            % (html.escape(ad), html.escape(ad), impression, html.escape(ad), html.escape(ad), html.escape(duration_text),
               "streaming" if "mpegurl" in mime.lower() else "progressive", mime, cdata(media_uri))
        )

    def hostile(self, path, query, one):
        if path == "/vast/duration":
            ad = one("ad", "huge")
            return 200, self.vast(self.bare_inline(ad, one("value", "00:00:05"), "%s/%s/master.m3u8" % (self.media_base, ad)))
        if path == "/vmap/offset":
            body = ('<vmap:AdBreak timeOffset="%s" breakType="linear" breakId="hostile"><vmap:AdSource id="a">'
                    '<vmap:AdTagURI templateType="vast4">%s</vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>'
                    % (html.escape(one("offset", "start"), quote=True), cdata(self.base + one("to", "/vast/inline"))))
            return 200, ('<?xml version="1.0" encoding="UTF-8"?>\n<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" '
                         'version="1.0">%s</vmap:VMAP>\n' % body)
        if path == "/vast/fanout":
            width, depth, name = int(one("width", "2")), int(one("depth", "1")), one("id", "f")
            if depth <= 0:
                return 200, self.vast(self.inline_ad("bravo", "1.92"))
            body = "".join(self.wrapper_ad("%s.%d" % (name, i), "%s/vast/fanout?%s" % (self.base, urllib.parse.urlencode(
                {"width": width, "depth": depth - 1, "id": "%s.%d" % (name, i)}))) for i in range(width))
            return 200, self.vast(body)
        if path == "/vast/many":
            ad = one("ad", "bravo")
            body = "".join(self.bare_inline("%s-%d" % (ad, i), "00:00:01.920", "%s/%s/master.m3u8?n=%d" % (self.media_base, ad, i))
                           for i in range(int(one("count", "10"))))
            return 200, self.vast(body)
        if path == "/vast/wrap":
            return 200, self.vast(self.wrapper_ad("wrap", one("uri", self.base + "/vast/inline")))
        if path == "/vast/creative":
            return 200, self.vast(self.bare_inline(one("ad", "far"), clock(one("dur", "3.84")), one("uri", ""), tracker=one("tracker")))
        if path == "/vast/source":
            return 200, self.vast(self.bare_inline(one("ad", "source"), clock(one("dur", "3.84")), one("uri", ""), mime="video/mp4"))
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    # Keep-alive, as ad servers answer: HTTP/1.0 would close every connection after its answer.
    protocol_version = "HTTP/1.1"
    # Headers and body are two writes: without TCP_NODELAY the body waits for the headers' ACK,
    # which a client delays by up to 40 ms on a kept-alive connection (Nagle and delayed ACK).
    disable_nagle_algorithm = True
    answers = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/requests":
            with LOCK:
                body = json.dumps(REQUESTS)
            return self.send(200, body, "application/json")
        if url.path == "/reset":
            with LOCK:
                REQUESTS.clear()
                FAILED.clear()
            return self.send(204, "")
        with LOCK:
            REQUESTS.append({
                "path": url.path,
                "query": url.query,
                "time": time.time(),
                "headers": {k: v for k, v in self.headers.items() if k.lower().startswith("x-device-") or k.lower() == "user-agent"},
            })
        if url.path == "/redirect":
            return self.send(302, "", location=urllib.parse.parse_qs(url.query).get("to", ["/"])[0])
        result = self.answers.answer(url.path, urllib.parse.parse_qs(url.query))
        status, body = result[0], result[1]
        if len(result) > 2:
            time.sleep(result[2])
        self.send(status, body, "application/xml" if body.startswith("<?xml") else "text/plain")

    def send(self, status, body, content_type="text/plain", location=None):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if location:
            self.send_header("Location", location)
        self.end_headers()
        if data:
            self.wfile.write(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--media-base", default="http://127.0.0.1:8080/media/ads")
    arguments = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    port = server.server_address[1]
    Handler.answers = Answers("http://127.0.0.1:%d" % port, arguments.media_base)
    print("Serving HTTP on 127.0.0.1 port %d" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
