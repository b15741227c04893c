#!/usr/bin/env python3
"""Screenshots of single charts of a graphprof HTML report, for the docs (docs/html.md).

Usage: html-screenshots.py REPORT.html OUT_DIR ID[=NAME] ...
Each ID is the id of an <svg> (a chart) or of a <figure>/<section> in the report. The element is
copied with the report's style sheet into a page of its own and shot with headless chromium at
the chart's size; the PNG is OUT_DIR/NAME.png (NAME defaults to the id).
"""
import os
import re
import subprocess
import sys
import tempfile


def element(page, ident):
    m = re.search(r'<(svg|figure|section|table|div)\b[^>]*\bid="%s"' % re.escape(ident), page)
    if not m:
        raise SystemExit("no element with id %s" % ident)
    tag = m.group(1)
    depth, pos = 0, m.start()
    pattern = re.compile(r"<(/?)%s\b" % tag)
    for t in pattern.finditer(page, m.start()):
        depth += -1 if t.group(1) else 1
        if depth == 0:
            end = page.index(">", t.end()) + 1
            return tag, page[m.start():end]
    raise SystemExit("element %s is not closed" % ident)


def size_of(tag, text):
    if tag == "svg":
        vb = re.search(r'viewBox="[\d.\-]+ [\d.\-]+ ([\d.]+) ([\d.]+)"', text)
        if vb:
            w, h = float(vb.group(1)), float(vb.group(2))
            if w > 1100:  # Graphviz pictures: shown at most 1100 px wide
                h, w = h * 1100 / w, 1100
            return int(w) + 32, int(h) + 32
    return 1180, 900


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    report, out_dir = sys.argv[1], sys.argv[2]
    with open(report, encoding="utf-8") as f:
        page = f.read()
    style = re.search(r"<style>.*?</style>", page, re.S).group(0)
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for arg in sys.argv[3:]:
            ident, _, name = arg.partition("=")
            tag, text = element(page, ident)
            w, h = size_of(tag, text)
            doc = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">%s<style>body{margin:16px;max-width:none;"
                   "padding:0} svg.gp-graph-svg{width:%dpx;height:auto}</style></head><body>%s</body></html>"
                   % (style, w - 32, text))
            src = os.path.join(tmp, ident + ".html")
            with open(src, "w", encoding="utf-8") as f:
                f.write(doc)
            png = os.path.join(out_dir, (name or ident) + ".png")
            subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            "--hide-scrollbars", "--user-data-dir=" + os.path.join(tmp, "profile"),
                            "--force-device-scale-factor=1", "--window-size=%d,%d" % (w, h),
                            "--screenshot=" + png, "file://" + src],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)
            print("wrote %s (%dx%d)" % (png, w, h))
    return 0


if __name__ == "__main__":
    sys.exit(main())
