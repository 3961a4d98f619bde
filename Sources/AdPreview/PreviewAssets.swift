/// The preview tool's stylesheet and script, served by the app (`/preview/assets/…`): the
/// machines it runs on may be offline, so nothing comes from elsewhere. Kept in Swift rather
/// than as package resources so the `adstitch` binary is self-contained.
package enum PreviewAssets {
    package static let stylesheet = #"""
        :root { --ink: #1d2330; --muted: #5b6475; --line: #d8dce4; --island: #b8c0cc; --slate: #8d96a5; --now: #e8590c; }
        body { font: 15px/1.45 system-ui, sans-serif; color: var(--ink); margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; }
        h1 small, h2 small { color: var(--muted); font-weight: normal; font-size: 60%; }
        a { color: #1c5fd4; }
        code { font-size: 90%; }
        table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
        th, td { border-bottom: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
        td.file { color: var(--muted); font-size: 85%; }
        .ok { color: #2b8a3e; } .failed { color: #c92a2a; font-weight: bold; }
        .error-row pre, pre.json { background: #f6f7f9; padding: .5rem; overflow: auto; max-height: 24rem; font-size: 85%; }
        form.context { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; background: #f6f7f9; padding: .75rem; border-radius: 6px; }
        form.context label { display: flex; flex-direction: column; font-size: 85%; color: var(--muted); }
        form.context label.wide { flex: 1 1 16rem; }
        form.context input, form.context textarea { font: inherit; color: var(--ink); padding: .2rem .35rem; width: 9rem; }
        form.context textarea { width: 100%; box-sizing: border-box; }
        form.context input[name=at] { width: 13rem; }
        .errors { background: #fff0f0; border: 1px solid #c92a2a; padding: .25rem 1rem; margin: 1rem 0; }
        section.player { position: sticky; top: 0; background: #fff; padding: .5rem 0; z-index: 1; border-bottom: 1px solid var(--line); }
        section.player h2 { margin: .25rem 0; }
        video { display: block; width: 100%; height: 16rem; background: #000; }
        .now { min-height: 1.5em; font-weight: 600; }
        #notice { color: var(--now); margin-left: 1rem; }
        .hint { color: var(--muted); font-size: 85%; }
        svg.timeline { width: 100%; height: 4.5rem; display: block; }
        svg.timeline .piece rect { stroke: #fff; stroke-width: 1; vector-effect: non-scaling-stroke; }
        svg.timeline .island rect { fill: var(--island); }
        svg.timeline .slate rect { fill: var(--slate); }
        svg.timeline .ad-0 rect { fill: #4263eb; } svg.timeline .ad-1 rect { fill: #0ca678; } svg.timeline .ad-2 rect { fill: #ae3ec9; }
        svg.timeline .ad-3 rect { fill: #f08c00; } svg.timeline .ad-4 rect { fill: #1098ad; } svg.timeline .ad-5 rect { fill: #d6336c; }
        svg.timeline .break rect { fill: #ced4da; }
        svg.timeline .break.restricted rect { fill: #fa5252; }
        svg.timeline text { font-size: 11px; fill: #fff; text-anchor: middle; pointer-events: none; }
        svg.timeline text.tick { fill: var(--muted); text-anchor: start; } svg.timeline text.tick.end { text-anchor: end; }
        svg.timeline .current rect { stroke: var(--now); stroke-width: 3; }
        svg.timeline #playhead { stroke: var(--now); stroke-width: 2; vector-effect: non-scaling-stroke; }
        tr.current, .break-reasons.current { background: #fff4e6; }
        tr.current td:first-child { box-shadow: inset 4px 0 var(--now); }
        .restrict { color: #c92a2a; font-size: 80%; font-weight: normal; margin-left: .5rem; }
        tr.excluded { color: var(--muted); }
        ol.variants li.startup { font-weight: bold; }
        table.compare svg.timeline { height: 2.5rem; }
        svg.chart { width: 100%; height: 14rem; display: block; }
        svg.chart text.tick { font-size: 12px; fill: var(--muted); text-anchor: middle; }
        svg.chart text.tick.top { text-anchor: start; }
        svg.chart .s0 rect, .legend.s0 { fill: #4263eb; color: #4263eb; } svg.chart .s1 rect, .legend.s1 { fill: #0ca678; color: #0ca678; }
        svg.chart .s2 rect, .legend.s2 { fill: #ae3ec9; color: #ae3ec9; } svg.chart .s3 rect, .legend.s3 { fill: #f08c00; color: #f08c00; }
        svg.chart .s4 rect, .legend.s4 { fill: #1098ad; color: #1098ad; } svg.chart .s5 rect, .legend.s5 { fill: #d6336c; color: #d6336c; }
        svg.timeline.stalls .break rect { fill: #ced4da; }
        svg.timeline.stalls line.stall { stroke: #c92a2a; stroke-width: 2; vector-effect: non-scaling-stroke; opacity: .6; }
        """#

    /// The reference client of the boundary manifest (the seeds' boundary-time observer, in the
    /// browser): highlights the piece and break that play, and snaps seeks back to the start of a
    /// break whose `restrict` holds `skip` or `jump`, unless that break has played through.
    package static let script = #"""
        "use strict";
        // Players that need hls.js (fMP4 in Chromium; interstitial sessions): data-hls names the master.
        function attach(video) {
          if (!video || !video.dataset.hls || !window.Hls) return null;
          const hls = new window.Hls();
          hls.loadSource(video.dataset.hls);
          hls.attachMedia(video);
          video.hls = hls;  // for the console (and the end-to-end tests)
          return hls;
        }
        // hls.js before 1.7 can resume the programme after a break that played apart from it
        // (X-RESUME-OFFSET=0) without seeking to the resume point: when the break resumes into the
        // programme's final segment, the seek is dropped with that segment's reload ("finished
        // buffering, but was aborted"), and the element waits at 0 with [resume, end] buffered
        // (bufferStalledError), so the rest and the post-roll never play (fixed in 1.7.0, hls.js
        // PRs #7908 and #7913; docs/real-clients.md). When the programme plays, is not seeking and
        // stands before what is buffered, seek forward to the schedule item's start or the buffer's.
        function resumeWhereBuffered(hls, video) {
          const version = String(window.Hls.version || "").split(".").map(Number);
          if (version[0] > 1 || (version[0] === 1 && version[1] >= 7)) return;
          function nudge() {
            const manager = hls.interstitialsManager;
            const item = manager && manager.playingItem;
            if (hls.media !== video || (item && item.event) || video.seeking || video.buffered.length === 0) return;
            const t = video.currentTime;
            for (let i = 0; i < video.buffered.length; i++) {
              if (t >= video.buffered.start(i) && t <= video.buffered.end(i)) return;
            }
            const target = Math.max(item ? item.start : 0, video.buffered.start(0));
            if (t < target && target < video.buffered.end(video.buffered.length - 1)) video.currentTime = target;
          }
          hls.on("hlsBufferAppended", nudge);
          hls.on("hlsError", function (e, d) { if (d.details === "bufferStalledError") nudge(); });
        }
        (function () {
          const video = document.getElementById("video-interstitials");
          const hls = attach(video);
          const status = document.getElementById("interstitial-now");
          if (!hls || !status) return;
          resumeWhereBuffered(hls, video);
          // hls.js 1.6 starts a post-roll paused when the programme's own end, which pauses the
          // element, comes before it switches to the break (its pause handler forgets it was
          // playing): a viewer who played the programme to its end plays on into the post-roll.
          let playedToEnd = false;
          video.addEventListener("ended", function () { playedToEnd = hls.media === video; });
          video.addEventListener("loadedmetadata", function () {
            const item = hls.interstitialsManager && hls.interstitialsManager.playingItem;
            if (playedToEnd && item && item.event && item.event.cue.post && video.paused) video.play().catch(function () {});
            playedToEnd = false;
          });
          hls.on("hlsInterstitialAssetStarted", function (e, d) {
            const restricted = d.event.restrictions.skip || d.event.restrictions.jump;
            status.textContent = "Break " + d.event.identifier + ": asset " + (d.assetListIndex + 1) + " of " + d.event.assetList.length
              + (restricted ? " (restricted: no skipping)" : "");
          });
          hls.on("hlsInterstitialsPrimaryResumed", function () { status.textContent = "Programme"; });
          hls.on("hlsError", function (e, d) { if (d.fatal) status.textContent = "hls.js: " + d.type + ": " + d.details; });
        })();
        (function () {
          const video = document.getElementById("video");
          attach(video);
          const manifestNode = document.getElementById("boundary-manifest");
          if (!video || !manifestNode) return;
          const manifest = JSON.parse(manifestNode.textContent);
          const duration = Number(manifest.duration);
          const breaks = manifest.breaks.map(function (b) {
            return { id: b.id, start: Number(b.start), end: Number(b.end), restrict: b.restrict, watched: false };
          });
          const timed = Array.from(document.querySelectorAll("[data-start][data-end]"));
          const playhead = document.getElementById("playhead");
          const now = document.getElementById("now");
          const notice = document.getElementById("notice");
          // The last position reached by playing (or an allowed seek): where a seek starts from.
          let position = 0;

          function restricted(b) {
            return !b.watched && (b.restrict.indexOf("skip") >= 0 || b.restrict.indexOf("jump") >= 0);
          }

          function show(t) {
            let ad = null;
            for (const node of timed) {
              const on = t >= Number(node.dataset.start) && t < Number(node.dataset.end);
              node.classList.toggle("current", on);
              if (on && node.dataset.kind === "ad") ad = node.dataset.id;
            }
            // The playing ad's row in its break's reasons.
            for (const row of document.querySelectorAll(".break-reasons tr[data-ad]")) {
              row.classList.toggle("current", ad !== null && row.dataset.ad === ad && row.closest(".break-reasons").classList.contains("current"));
            }
            if (playhead && duration > 0) {
              const x = String(Math.min(t / duration, 1) * 1000);
              playhead.setAttribute("x1", x);
              playhead.setAttribute("x2", x);
            }
            const current = breaks.find(function (b) { return t >= b.start && t < b.end; });
            now.textContent = current
              ? "Break " + current.id + ": " + (current.end - t).toFixed(1) + " s left" + (current.restrict.length ? " (restrict: " + current.restrict.join(", ") + ")" : "")
              : "Programme at " + t.toFixed(1) + " s";
          }

          // A seek forward that enters or crosses a restricted break that has not played through
          // goes back to the break's start (or, from inside the break, to where the viewer was).
          video.addEventListener("seeking", function () {
            const target = video.currentTime;
            if (target <= position) return;
            const blocking = breaks.find(function (b) {
              return restricted(b) && target > b.start + 0.001 && position < b.end;
            });
            if (!blocking) return;
            const back = position >= blocking.start ? position : blocking.start;
            notice.textContent = "Break " + blocking.id + " cannot be skipped (restrict: " + blocking.restrict.join(", ") + ")";
            video.currentTime = back;
          });

          video.addEventListener("seeked", function () {
            position = video.currentTime;
            show(position);
          });

          video.addEventListener("timeupdate", function () {
            if (video.seeking) return;
            const t = video.currentTime;
            // Played (not sought) across a break's end: that break has been watched.
            for (const b of breaks) {
              if (position < b.end && t >= b.end - 0.05 && t - position < 3 * Math.max(1, video.playbackRate)) b.watched = true;
            }
            position = t;
            show(t);
          });

          video.addEventListener("ended", function () {
            for (const b of breaks) if (b.end >= duration - 0.05) b.watched = true;
          });

          show(0);
        })();
        """#
}
