#!/usr/bin/python3
"""`plan --html` and `inspect --html` in headless Chromium (Debian's
`chromium`): each page is loaded from a file with the network cut off, its
DOM as Chromium built it is checked for the chart and for the numbers the
JSON output gives, and a screenshot is taken and checked to hold a drawn
chart (not a blank page).

    /usr/bin/python3 tests/html/check_pages.py --tool build/h5ad-sizer --data data --out DIR
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib


def run(command, **kw):
    return subprocess.run(command, capture_output=True, text=True, timeout=120, **kw)


def chromium(*args):
    # As root Chromium needs --no-sandbox; no GPU in CI; a proxy that points
    # nowhere, so that a page that tried to fetch anything would show it.
    base = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--window-size=960,760"]
    result = run(base + list(args))
    if result.returncode != 0:
        sys.exit(f"chromium failed ({result.returncode}): {result.stderr[-2000:]}")
    return result.stdout


def png_colours(path):
    """The number of distinct colours in a PNG (8-bit RGB or RGBA, as
    Chromium writes), sampled every 4th pixel of every 4th row."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, width, height, kind = 8, b"", 0, 0, 0
    while at < len(data):
        length, tag = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if tag == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and kind in (2, 6), f"PNG depth {depth} colour type {kind}"
        elif tag == b"IDAT":
            idat += body
        at += 12 + length
    channels = 3 if kind == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for row in range(height):
        start = row * (stride + 1)
        kind_of_filter, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):  # undo the row's PNG filter
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind_of_filter == 1:
                line[i] = (line[i] + a) & 255
            elif kind_of_filter == 2:
                line[i] = (line[i] + b) & 255
            elif kind_of_filter == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind_of_filter == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if row % 4 == 0:
            for x in range(0, width, 4):
                colours.add(bytes(line[x * channels:x * channels + 3]))
        previous = line
    return len(colours)


def check(condition, what):
    if not condition:
        sys.exit(f"check_pages: {what}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if shutil.which("chromium") is None:
        sys.exit("check_pages: chromium is not installed (apt-get install chromium)")
    os.makedirs(a.out, exist_ok=True)

    # plan: the page's numbers against plan --json's.
    plan_html = os.path.join(a.out, "plan.html")
    result = run([a.tool, "plan", a.data, "--json", "--html", plan_html, "-j", "2"])
    check(result.returncode == 0, f"plan failed: {result.stderr}")
    summary = json.loads(result.stdout)
    dom = chromium("--dump-dom", "file://" + os.path.abspath(plan_html))
    check('<svg id="histogram"' in dom, "plan: no histogram in the DOM")
    bars = sum(int(n) for n in re.findall(r'class="bar" data-count="(\d+)"', dom))
    check(bars == summary["sized"], f"plan: the bars hold {bars} datasets, plan --json sized {summary['sized']}")
    limits = re.findall(r'class="limit" data-bucket="([^"]+)"', dom)
    check(limits == [b["name"] for b in summary["buckets"]], f"plan: bucket limits {limits}")
    check(f"{summary['sized']} sized;" in dom, "plan: the sized count is missing")
    largest = dom[dom.index('<table id="largest">'):]
    largest = largest[:largest.index("</table>")]
    check(largest.count("<tr><td>") == min(20, summary["sized"]), "plan: the largest table's rows")
    failures = dom[dom.index('<table id="failures">'):]
    failures = failures[:failures.index("</table>")]
    check(failures.count("<tr><td>") == len(summary["failed"]), "plan: the failures table's rows")
    for failed in summary["failed"]:
        check(failed["source"] in failures, f"plan: failure {failed['source']} is missing")
    plan_png = os.path.join(a.out, "plan.png")
    chromium("--screenshot=" + plan_png, "file://" + os.path.abspath(plan_html))
    colours = png_colours(plan_png)
    check(colours >= 5, f"plan: the screenshot has {colours} colours: blank?")

    # inspect: the page's peak against inspect --json's.
    inspect_html = os.path.join(a.out, "inspect.html")
    example = os.path.join(a.data, "example.h5ad")
    result = run([a.tool, "inspect", example, "--json", "--html", inspect_html])
    check(result.returncode == 0, f"inspect failed: {result.stderr}")
    tree = json.loads(result.stdout)
    dom = chromium("--dump-dom", "file://" + os.path.abspath(inspect_html))
    check('<svg id="treemap"' in dom, "inspect: no treemap in the DOM")
    tiles = [int(n) for n in re.findall(r'data-bytes="(\d+)"', dom)]
    check(len(tiles) >= len(tree["elements"]), f"inspect: {len(tiles)} boxes for {len(tree['elements'])} elements")
    for element in tree["elements"]:
        check(f"<title>{element['path']}:" in dom, f"inspect: no box for {element['path']}")
    peak = re.search(r'<b id="peak">([^<]+)</b>', dom)
    check(peak is not None, "inspect: no peak")
    loaded = tree["memory"]["loaded_bytes"]
    check(run([a.tool, "inspect", example]).stdout.find(peak.group(1)) >= 0,
          f"inspect: the page's peak {peak.group(1)} is not the table's ({loaded} bytes)")
    inspect_png = os.path.join(a.out, "inspect.png")
    chromium("--screenshot=" + inspect_png, "file://" + os.path.abspath(inspect_html))
    colours = png_colours(inspect_png)
    check(colours >= 5, f"inspect: the screenshot has {colours} colours: blank?")
    print(f"check_pages: plan ({summary['sized']} sized, {len(limits)} limits) and inspect ({len(tiles)} boxes) "
          f"rendered; screenshots {plan_png}, {inspect_png}")


if __name__ == "__main__":
    main()
