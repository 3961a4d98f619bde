#!/usr/bin/env python3
"""Extracts hls.js for the real-client tests from a pinned PyPI wheel (docs/real-clients.md).

hls.js is not on any registry reachable here as a package of its own, but gradio's wheel carries
its build as one frontend chunk, gradio/templates/frontend/assets/hls-*.js: an ES module that does
not export the Hls class (it is the class with `static get version()`). This script downloads the
pinned wheel (pip download --no-deps), takes that chunk, replaces its `export{...}` with
`window.Hls=<that class>` inside a function scope, checks the version banner and writes
.build-hlsjs/hls.js (not committed; the tests serve it from loopback). Run again, it does nothing
when the file is there with the expected version.

Usage: scripts/hlsjs.py   (prints the path written)
"""
import hashlib
import importlib.util
import pathlib
import re
import subprocess
import sys
import venv
import zipfile

WHEEL = "gradio==6.31.0"
WHEEL_SHA256 = "7b50b9b6a2d23cd02851ad4c8b1c8312c88d8b911d1f29c93f9761c98348a64a"
VERSION = "1.6.15"
root = pathlib.Path(__file__).resolve().parent.parent
out = root / ".build-hlsjs"
target = out / "hls.js"
banner = f"/* hls.js {VERSION}, from the {WHEEL} wheel (scripts/hlsjs.py) */\n"

if target.exists() and target.read_text(encoding="utf-8").startswith(banner):
    print(target)
    sys.exit(0)

out.mkdir(exist_ok=True)
# pip from this Python, or (a Debian python3 without pip) from a venv of its own.
python = sys.executable
if importlib.util.find_spec("pip") is None:
    environment = root / ".build-py" / "hlsjs"
    if not (environment / "bin" / "pip").exists():
        venv.create(environment, with_pip=True)
    python = str(environment / "bin" / "python")
subprocess.run(
    [python, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check", WHEEL, "-d", str(out / "wheel")],
    check=True,
)
wheels = sorted((out / "wheel").glob("gradio-*.whl"))
if not wheels:
    sys.exit(f"hlsjs.py: pip did not download {WHEEL}")
digest = hashlib.sha256(wheels[-1].read_bytes()).hexdigest()
if digest != WHEEL_SHA256:
    sys.exit(f"hlsjs.py: {wheels[-1].name} has SHA-256 {digest}, not the pinned {WHEEL_SHA256}")
with zipfile.ZipFile(wheels[-1]) as wheel:
    chunks = [name for name in wheel.namelist() if re.fullmatch(r"gradio/templates/frontend/assets/hls-[^/]*\.js", name)]
    if len(chunks) != 1:
        sys.exit(f"hlsjs.py: expected one hls-*.js chunk in {wheels[-1].name}, found {chunks}")
    source = wheel.read(chunks[0]).decode("utf-8")

# The Hls class: `NAME=class X{static get version(){return V}…`, V a variable holding the version.
match = re.search(r"([A-Za-z_$][\w$]*)=class [\w$]*\{static get version\(\)\{return ([A-Za-z_$][\w$]*)\}", source)
if not match:
    sys.exit("hlsjs.py: no class with static get version() in the chunk")
name, version_variable = match.groups()
declared = re.search(re.escape(version_variable) + r"=`([^`]*)`", source)
if not declared or declared.group(1) != VERSION:
    sys.exit(f"hlsjs.py: the chunk's hls.js is {declared.group(1) if declared else 'of no version'}, not {VERSION}")
exports = re.search(r"export\{[^}]*\};?\s*$", source)
if not exports:
    sys.exit("hlsjs.py: the chunk does not end in an export list")
script = banner + "(function(){" + source[: exports.start()] + f"window.Hls={name};" + "})();\n"
target.write_text(script, encoding="utf-8")
print(target)
