/// The demo player page's script (`/play/assets/player.js`, docs/quality.md "The /play page"):
/// plays the page's session with hls.js when the server has a build (`serve --hls-js`), else with
/// the browser's own HLS, and reports what the player does to the session's own `qoe` URL as an
/// app would (docs/http-api.md "Viewing quality"). The reporter is the part an app's web player
/// copies: `AdStitchQoE.attach(video, hls)`.
package enum PlayerScript {
    package static let text = #"""
        "use strict";
        window.AdStitchQoE = (function () {
          // Reports a <video>'s viewing quality, and hls.js's where it plays through hls.js: the
          // startup time (from `options.since`, a performance.now() time — default the page's
          // navigation, as a page that plays at once wants — to the first "playing"), each stall ("waiting" after playback
          // began, not while seeking, until "playing") at its stream time, each variant switch
          // with its BANDWIDTH, errors (fatal ones, and the first 20 network errors it recovered
          // from: a segment that answered 404), the end. Sent every 5 s, at the end and when the page
          // goes, to `qoe` beside the session's media playlist (hls.js knows its URL).
          function attach(video, hls, options) {
            const started = options && typeof options.since === "number" ? options.since : 0;
            const pending = [];
            const state = { events: [], sent: 0, failed: 0, url: null, stalls: 0 };
            let playing = false;
            let stall = null;
            function now() { return Math.max(0, video.currentTime || 0); }
            function add(event) { pending.push(event); state.events.push(event); }
            video.addEventListener("playing", function () {
              if (!playing) {
                playing = true;
                add({ type: "startup", ms: Math.round(performance.now() - started) });
              }
              if (stall) {
                add({ type: "stall", at: stall.at, duration: (performance.now() - stall.since) / 1000 });
                state.stalls += 1;
                stall = null;
              }
            });
            video.addEventListener("waiting", function () {
              if (playing && !stall && !video.seeking) stall = { at: now(), since: performance.now() };
            });
            video.addEventListener("seeking", function () { stall = null; });
            video.addEventListener("ended", function () { add({ type: "ended", at: now() }); flush(); });
            video.addEventListener("error", function () {
              add({ type: "error", at: now(), fatal: true, code: "MediaError " + (video.error ? video.error.code : "") });
              flush();
            });
            if (hls) {
              const events = window.Hls.Events;
              hls.on(events.LEVEL_LOADED, function (e, data) {
                if (!state.url && data.details && data.details.url) state.url = new URL("qoe", data.details.url).href;
              });
              hls.on(events.LEVEL_SWITCHED, function (e, data) {
                const level = hls.levels[data.level];
                if (level && level.bitrate) add({ type: "level", at: now(), bandwidth: level.bitrate });
              });
              let recovered = 0;
              hls.on(events.ERROR, function (e, data) {
                const status = data.response && data.response.code ? " " + data.response.code : "";
                if (data.fatal) {
                  add({ type: "error", at: now(), fatal: true, code: data.type + ": " + data.details + status });
                  flush();
                } else if (data.type === window.Hls.ErrorTypes.NETWORK_ERROR && recovered < 20) {
                  recovered += 1;
                  add({ type: "error", at: now(), fatal: false, code: data.type + ": " + data.details + status });
                }
              });
            }
            function flush() {
              if (!state.url || pending.length === 0) return;
              const batch = pending.splice(0, 200);
              fetch(state.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ events: batch }), keepalive: true })
                .then(function (response) { if (response.ok) state.sent += batch.length; else state.failed += batch.length; })
                .catch(function () { state.failed += batch.length; });
            }
            setInterval(flush, 5000);
            window.addEventListener("pagehide", function () {
              if (state.url && pending.length > 0) navigator.sendBeacon(state.url, JSON.stringify({ events: pending.splice(0, 200) }));
            });
            state.flush = flush;
            return state;
          }
          return { attach: attach };
        })();
        (function () {
          const video = document.getElementById("video");
          if (!video || !video.dataset.master) return;
          let hls = null;
          if (window.Hls && window.Hls.isSupported()) {
            hls = new window.Hls();
            hls.loadSource(video.dataset.master);
            hls.attachMedia(video);
            video.hls = hls;
          } else {
            video.src = video.dataset.master;
          }
          // What the page reports (for the console and the end-to-end tests).
          window.qoe = window.AdStitchQoE.attach(video, hls);
          video.play().catch(function () {});
        })();
        """#
}
