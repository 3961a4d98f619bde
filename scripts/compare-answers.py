#!/usr/bin/env python3
"""Compare two running `adstitch serve` replicas answer for answer, byte for byte (but `Date`).

Both must serve the demo campaigns (Campaigns/) with the same secret (ADSTITCH_SECRET), so one's
tokens play on the other. Sessions of four demos are started on the first; then raw requests
go to both, each on its own connection (251 with the demos as they are): every session file (asset lists included) as GET twice
(stitched, then cached), HEAD, gzip, HTTP/1.0, a range, a range past the end, OPTIONS, POST with a
body and PUT; a tampered and a foreign token, an unknown file and campaign, `%2E`, `//`, a body
on a GET, chunked, `If-None-Match: *`. Prints the first differences and a count; exits 1 if any.

Used to check the session file door against the router it replaced (docs/performance.md "One
front door: the only door"):

    ADSTITCH_SECRET=ab OLD_BINARY serve --campaigns Campaigns --port 18991 &
    ADSTITCH_SECRET=ab .build/debug/adstitch serve --campaigns Campaigns --port 18992 &
    scripts/compare-answers.py 18991 18992
"""
import re
import socket
import sys
import urllib.request

old, new = int(sys.argv[1]), int(sys.argv[2])
def raw(port, head):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10)
    s.sendall((head + "\r\n").encode())
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            data += b"<TIMEOUT>"; break
        if not chunk: break
        data += chunk
    s.close()
    return re.sub(rb"\r\n[Dd]ate: [^\r]*", b"\r\nDATE", data)
def get(port, path):
    return urllib.request.urlopen(f"http://127.0.0.1:{port}{path}").read().decode()
files = []
for campaign, query in [("evening-news", "session=d1&locale=en-GB"), ("feature-fmp4", "session=d2"), ("single-asset", "session=d3"), ("evening-news", "session=d4&insertion=interstitials")]:
    master = get(old, f"/v1/campaigns/{campaign}/master.m3u8?{query}")
    paths = sorted(set(re.findall(r"sessions/[A-Za-z0-9_\-.~]+/[A-Za-z0-9_\-.]+", master)))
    files += [f"/v1/campaigns/{campaign}/{p}" for p in paths]
    files.append(f"/v1/campaigns/{campaign}/" + "/".join(paths[0].split("/")[:2]) + "/boundaries.json")
lists = []
for f in files:
    if f.endswith(".m3u8"):
        body = get(old, f)
        for m in re.findall(r'X-ASSET-LIST="([^"]+)"', body):
            lists.append("/".join(f.split("/")[:-1]) + "/" + m)
token = files[0].split("/")[4]
t = list(token); t[len(t)//2] = "B" if t[len(t)//2] == "A" else "A"; tampered = "".join(t)
host = "Host: 127.0.0.1\r\n"
reqs = []
for f in files + sorted(set(lists))[:3]:
    reqs += [f"GET {f} HTTP/1.1\r\n{host}Connection: close\r\n", f"GET {f} HTTP/1.1\r\n{host}Connection: close\r\n",
             f"HEAD {f} HTTP/1.1\r\n{host}Connection: close\r\n",
             f"GET {f} HTTP/1.1\r\n{host}Accept-Encoding: gzip, deflate, br\r\nConnection: close\r\n",
             f"GET {f}?from=cdn HTTP/1.0\r\n{host}", f"GET {f} HTTP/1.1\r\n{host}Range: bytes=0-9\r\nConnection: close\r\n",
             f"GET {f} HTTP/1.1\r\n{host}Range: bytes=99999999-\r\nConnection: close\r\n",
             f"OPTIONS {f} HTTP/1.1\r\n{host}Connection: close\r\n",
             f"POST {f} HTTP/1.1\r\n{host}Content-Length: 2\r\nConnection: close\r\n\r\n{{}}",
             f"PUT {f} HTTP/1.1\r\n{host}Connection: close\r\n"]
first = files[0]
reqs += [f"GET {first.replace(token, tampered)} HTTP/1.1\r\n{host}Connection: close\r\n",
         f"HEAD {first.replace(token, tampered)} HTTP/1.1\r\n{host}Connection: close\r\n",
         f"GET /v1/campaigns/evening-news/sessions/{token}/nope.m3u8 HTTP/1.1\r\n{host}Connection: close\r\n",
         f"GET /v1/campaigns/nope/sessions/{token}/v1.m3u8 HTTP/1.1\r\n{host}Connection: close\r\n",
         f"GET /v1/campaigns/single-asset/sessions/{token}/v1.m3u8 HTTP/1.1\r\n{host}Connection: close\r\n",
         f"GET {first.replace('.m3u8', '%2Em3u8')} HTTP/1.1\r\n{host}Connection: close\r\n",
         f"GET {first.replace('/sessions/', '/sessions//')} HTTP/1.1\r\n{host}Connection: close\r\n",
         f"GET {first} HTTP/1.1\r\n{host}Content-Length: 4\r\nConnection: close\r\n\r\nab",
         f"GET {first} HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n",
         f"GET {first} HTTP/1.1\r\n{host}If-None-Match: *\r\nConnection: close\r\n",
         f"OPTIONS {first.replace(token, tampered)} HTTP/1.1\r\n{host}Connection: close\r\n"]
same = differ = 0
for r in reqs:
    a, b = raw(old, r), raw(new, r)
    if a == b: same += 1
    else:
        differ += 1
        print("DIFF", r.split("\r\n")[0][:30], r.split("\r\n")[0][-60:])
        if differ <= 3:
            print("DIFF", r.split("\r\n")[0][:120]); print(" old:", a[:400]); print(" new:", b[:400])
print(f"{same} same, {differ} differ of {len(reqs)}")
sys.exit(1 if differ else 0)
