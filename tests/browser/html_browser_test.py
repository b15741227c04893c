#!/usr/bin/env python3
"""Opens graphprof's HTML reports in a real headless browser (Debian's chromium) and checks them.

From committed H200 reports (tests/data/h200, tests/data/profile/gate) and a comparison made from the committed compare
fixtures, it writes the HTML report of a run (with the comparison and the graphs' pictures), of a
sweep, of a traced run (heat maps from the trace records, the trace table) and of a profile (the
profile page of `graphprof profile --repeat 5` of the serving test application), then for each page:
  - the page is self-contained: no <script>, <link>, @import, url() or external src/href;
  - in chromium, a copy of the page with a probe script (the report itself has none) records
    uncaught errors, console.error/warn, failed resources and every fetched resource: none allowed;
  - the charts (svg.gp-chart with the ids the report defines) and tables are in the DOM;
  - a screenshot is taken and is not blank (many colours, a fair share of non-white pixels);
  - on the comparison pages (the synthetic fixtures and the H200 gate runs A against S10), at a
    window of 1280 px the comparison table fits the page and no chart label is cut.
The probe is first run on a deliberately broken page, which must be caught, so that a silent probe
cannot pass a broken report.

Without chromium the test fails, unless GRAPHPROF_SKIP_BROWSER_TEST=1 says that skipping is
intended; then it exits 77 (ctest: skipped). CI installs chromium (scripts/setup.sh).
Usage: html_browser_test.py GRAPHPROF_BINARY TEST_DATA_DIR WORK_DIR
"""
import html
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77

PROBE = """<script id="gp-test-probe">
(function () {
  var errors = [];
  function note(kind, text) { errors.push(kind + ": " + text); }
  window.addEventListener("error", function (e) {
    if (e.target && e.target !== window) note("resource", e.target.src || e.target.href || e.target.tagName);
    else note("uncaught", e.message);
  }, true);
  window.addEventListener("unhandledrejection", function (e) { note("unhandled rejection", String(e.reason)); });
  ["error", "warn"].forEach(function (level) {
    var orig = console[level];
    console[level] = function () {
      note("console." + level, Array.prototype.join.call(arguments, " "));
      return orig.apply(console, arguments);
    };
  });
  window.addEventListener("load", function () {
    performance.getEntriesByType("resource").forEach(function (r) { note("fetched", r.name); });
    var pre = document.createElement("pre");
    pre.id = "gp-test-errors";
    pre.textContent = errors.join("\\n");
    document.body.appendChild(pre);
    var done = document.createElement("div");
    done.id = "gp-test-loaded";
    document.body.appendChild(done);
  });
})();
</script>"""

# On the comparison pages: the table's width against the room it has, and the chart labels.
LAYOUT_PROBE = """<script id="gp-test-layout-probe">
window.addEventListener("load", function () {
  var out = {};
  var table = document.getElementById("table-compare");
  if (table) { out.table_width = table.scrollWidth; out.room = table.parentElement.clientWidth; }
  var chart = document.getElementById("chart-compare-changes");
  if (chart) {
    var left = 1e9, cut = 0;
    chart.querySelectorAll("text.gp-bar-label").forEach(function (t) {
      left = Math.min(left, t.getBBox().x);
      if (t.textContent.indexOf("\u2026") >= 0) cut += 1;
    });
    out.label_left = left;
    out.cut_labels = cut;
  }
  var pre = document.createElement("pre");
  pre.id = "gp-test-layout";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""

BROKEN_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p>broken</p>
<script>console.error("deliberate"); notDefined();</script><img src="http://example.invalid/x.png"></body></html>"""

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_args(chromium, user_dir):
    # The flags the machines' notes recommend for a closed network, plus a resolver that resolves
    # nothing, so a page that tries to fetch anything fails loudly instead of waiting.
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", "--user-data-dir=" + user_dir, "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=5000"]


def run_chromium(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180, check=False)


def with_probe(page_text, layout=False):
    return page_text.replace("<head>", "<head>" + PROBE + (LAYOUT_PROBE if layout else ""), 1)


class DomIndex(html.parser.HTMLParser):
    """Elements by tag, with their id and class attributes, and the probe's error text."""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.errors_text = None
        self._in_errors = False
        self.layout_text = None  # what the layout probe wrote (JSON)
        self._in_layout = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a.get("id", ""), a.get("class", "")))
        if a.get("id") == "gp-test-errors":
            self._in_errors = True
            self.errors_text = ""
        if a.get("id") == "gp-test-layout":
            self._in_layout = True
            self.layout_text = ""

    def handle_endtag(self, tag):
        if tag == "pre":
            self._in_errors = False
            self._in_layout = False

    def handle_data(self, data):
        if self._in_errors:
            self.errors_text += data
        if self._in_layout:
            self.layout_text += data

    def ids(self, tag=None):
        return {i for t, i, _ in self.elements if i and (tag is None or t == tag)}

    def count(self, tag, cls=None):
        return sum(1 for t, _, c in self.elements if t == tag and (cls is None or cls in c.split()))


def probe(chromium, page_path, work, layout=False, png_path=None):
    """Loads a copy of the page with the probe (and the layout probe) in one chromium: its DOM after
    loading, and a screenshot of the window (1280 x 1800) into png_path when given."""
    probed = page_path + ".probe.html"
    with open(page_path, encoding="utf-8") as f:
        text = f.read()
    with open(probed, "w", encoding="utf-8") as f:
        f.write(with_probe(text, layout))
    shot = ["--window-size=1280,1800", "--screenshot=" + png_path] if png_path else []
    r = run_chromium(chromium_args(chromium, os.path.join(work, "profile-dom")) + shot +
                     ["--dump-dom", "file://" + os.path.abspath(probed)])
    dom = DomIndex()
    dom.feed(r.stdout.decode("utf-8", "replace"))
    return r, dom


def add_bytes_mod256(a, b):
    """The bytes of a and b added pairwise mod 256, as big integers (no carry crosses a byte)."""
    n = len(a)
    low, high = int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    return (((x & low) + (y & low)) ^ ((x ^ y) & high)).to_bytes(n, "big")


def png_pixels(path):
    """Width, height and rows (row[x]: the (r, g, b) of pixel x) of an 8-bit RGB/RGBA, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width, height, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if filt == 2:  # Up, most rows of a page: every byte plus the one above, mod 256, at once
            line = bytearray(add_bytes_mod256(bytes(line), bytes(prev)))
            filt = 0
        for i in range(stride if filt else 0):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if filt == 1:
                line[i] = (line[i] + a) & 0xFF
            elif filt == 2:
                line[i] = (line[i] + b) & 0xFF
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, [PixelRow(row, bpp) for row in rows]


class PixelRow:
    """One decoded row: row[x] is the (r, g, b) of pixel x."""

    def __init__(self, data, bpp):
        self.data, self.bpp = data, bpp

    def __getitem__(self, x):
        return tuple(self.data[x * self.bpp:x * self.bpp + 3])


def check_screenshot(r, page_path, png_path):
    if not os.path.isfile(png_path):
        fail("%s: chromium wrote no screenshot (exit %d): %s" % (page_path, r.returncode, r.stderr.decode()[-500:]))
        return
    width, height, rows = png_pixels(png_path)
    colours, non_white, total = set(), 0, 0
    for y in range(0, height, 3):
        for x in range(0, width, 3):
            p = rows[y][x]
            colours.add(p)
            total += 1
            non_white += p != (255, 255, 255)
    share = non_white / max(total, 1)
    print("  screenshot %s: %dx%d, %d colours, %.1f%% not white" % (png_path, width, height, len(colours), 100 * share))
    if len(colours) < 16:
        fail("%s: screenshot has only %d colours: blank?" % (page_path, len(colours)))
    if share < 0.03:
        fail("%s: screenshot is %.1f%% non-white: blank?" % (page_path, 100 * share))


def check_self_contained(page_path):
    with open(page_path, encoding="utf-8") as f:
        text = f.read()
    for pattern, what in ((r"<script", "a script"), (r"<link\b", "a <link>"), (r"@import", "an @import"),
                          (r"url\(", "a CSS url()"), (r"<iframe", "an iframe"),
                          (r"\b(?:src|href)\s*=\s*[\"']?(?:https?:|//)", "an external src/href")):
        if re.search(pattern, text, re.IGNORECASE):
            fail("%s: not self-contained: %s" % (page_path, what))


def check_page(chromium, page_path, want_ids, want_tables, min_charts, work, layout=False):
    print("checking " + page_path)
    check_self_contained(page_path)
    png_path = page_path[:-5] + ".png"
    if os.path.exists(png_path):
        os.remove(png_path)
    r, dom = probe(chromium, page_path, work, layout, png_path)
    if "gp-test-loaded" not in dom.ids():
        fail("%s: the page did not finish loading in chromium (exit %d): %s"
             % (page_path, r.returncode, r.stderr.decode()[-800:]))
        return
    if dom.errors_text:
        fail("%s: browser errors:\n%s" % (page_path, dom.errors_text))
    charts = dom.count("svg", "gp-chart")
    print("  %d charts, %d tables, %d svg elements" % (charts, dom.count("table"), dom.count("svg")))
    if charts < min_charts:
        fail("%s: %d charts (svg.gp-chart) in the DOM, expected at least %d" % (page_path, charts, min_charts))
    ids = dom.ids()
    for i in want_ids:
        if i not in ids:
            fail("%s: no element with id %s in the DOM" % (page_path, i))
    for i in want_tables:
        if i not in dom.ids("table"):
            fail("%s: no table with id %s in the DOM" % (page_path, i))
    check_screenshot(r, page_path, png_path)
    if layout:
        check_compare_layout(page_path, dom, r)


def check_heat_maps(page_path, figure_ids):
    # Each figure holds a drawn picture coloured by traced time (not a "cannot draw" note).
    with open(page_path, encoding="utf-8") as f:
        page = f.read()
    for ident in figure_ids:
        start = page.find('id="%s"' % ident)
        end = page.find("</figure>", start)
        figure = page[start:end]
        if start < 0 or "<svg" not in figure or "Colour: traced time per node" not in figure:
            fail("%s: figure %s is not a heat map of traced time" % (page_path, ident))


def check_compare_layout(page_path, dom, r):
    # In a 1280 px window the comparison table fits the page (it was wider, benchmark names having
    # no space to wrap at), and the chart labels are whole and start inside the chart (they were
    # cut, the workload's name lost).
    if dom.layout_text is None:
        fail("%s: the layout probe did not run (exit %d)" % (page_path, r.returncode))
        return
    layout = json.loads(dom.layout_text)
    print("  comparison layout at 1280 px: %s" % layout)
    if layout.get("table_width", 0) > layout.get("room", 0):
        fail("%s: the comparison table is %s px wide in %s px" % (page_path, layout.get("table_width"), layout.get("room")))
    if layout.get("label_left", 0) < 0:
        fail("%s: a chart label starts %s px left of the chart" % (page_path, layout.get("label_left")))
    if layout.get("cut_labels", 0) > 0:
        fail("%s: %s chart labels are cut" % (page_path, layout.get("cut_labels")))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    binary, data, work = sys.argv[1:4]
    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("GRAPHPROF_SKIP_BROWSER_TEST") == "1":
            print("chromium not found; skipped (GRAPHPROF_SKIP_BROWSER_TEST=1)")
            return SKIP
        print("FAIL: chromium not found: install it (apt-get install chromium; scripts/setup.sh does), "
              "or set GRAPHPROF_SKIP_BROWSER_TEST=1 to skip this test on purpose")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "dot"))

    # The probe must catch a broken page, or a clean result below means nothing.
    broken = os.path.join(work, "broken.html")
    with open(broken, "w", encoding="utf-8") as f:
        f.write(BROKEN_PAGE)
    _, dom = probe(chromium, broken, work)
    caught = dom.errors_text or ""
    for expected in ("console.error: deliberate", "uncaught:", "example.invalid"):
        if expected not in caught:
            fail("the probe missed '%s' on a broken page (it saw: %r)" % (expected, caught))
    if failures:
        return 1

    # The run report names its DOT dumps by the GPU machine's paths; the same dumps are committed
    # under tests/data/dot with shorter names.
    for mode in ("capture", "graph"):
        shutil.copy(os.path.join(data, "dot", "chain100_%s.dot" % mode),
                    os.path.join(work, "dot", "chain_elements-4096_kernels-100_sync_inside-0_%s.dot" % mode))
    compare_json = os.path.join(work, "compare.json")
    subprocess.run([binary, "compare", os.path.join(data, "reports", "base.json"),
                    os.path.join(data, "reports", "regression.json"), "--json", compare_json],
                   stdout=subprocess.DEVNULL, check=False)  # exit 1: the fixture has regressions
    run_html = os.path.join(work, "run.html")
    sweep_html = os.path.join(work, "sweep.html")
    subprocess.run([binary, "report", os.path.join(data, "h200", "chain_run1.json"), "--compare", compare_json,
                    "--dot-dir", os.path.join(work, "dot"), "-o", run_html], check=True)
    subprocess.run([binary, "report", os.path.join(data, "h200", "sweep_chain.json"), "-o", sweep_html], check=True)
    # A real traced H200 run (chain, fork-join, while with the trace pass; tools/html-fixtures.sh, trimmed
    # with tools/trim-report.py): graphs as heat maps from the trace records, the trace table.
    traced_html = os.path.join(work, "traced.html")
    subprocess.run([binary, "report", os.path.join(data, "h200", "traced_run.json"), "--dot-dir",
                    os.path.join(data, "h200", "traced_dot"), "-o", traced_html], check=True)

    # A real profile of the serving test application on the H200 (five runs pooled, trimmed with
    # scripts/trim-report.py; tests/data/profile/gate/README.md): the profile page. Its graphprof
    # predates the timeline, so the page says there is none (the unit tests check the strip).
    gate = os.path.join(data, "profile", "gate")
    profile_html = os.path.join(work, "profile.html")
    subprocess.run([binary, "report", os.path.join(gate, "asis.json"), "--dot-dir", os.path.join(gate, "dot"),
                    "-o", profile_html], check=True)

    check_page(chromium, profile_html,
               ["strip-p1", "stat-coverage-p1", "stat-eager-p1", "chart-eager-p1", "graph-svg-0",
                "graph-svg-1", "runs", "application", "environment"],
               ["table-graphs-p1", "table-nodes-0", "table-copies-p1", "table-syncs-p1", "table-runs"], 1, work)
    with open(profile_html, encoding="utf-8") as f:
        hot = re.findall(r'id="(graph-p1-exec\d+)"', f.read())
    if len(hot) < 2:
        fail("%s: %d hot graphs drawn, expected at least 2" % (profile_html, len(hot)))
    check_heat_maps(profile_html, hot)
    check_page(chromium, run_html,
               ["chart-gpu-chain", "chart-submit-chain", "chart-launch-chain", "chart-compare-changes",
                "graph-svg-0", "graph-svg-1", "compare-headline", "environment"],
               ["table-summary", "table-compare", "table-metrics-chain"], 4, work, layout=True)
    # The H200 gate runs (7 a side, the chain kernels slowed by 10 %): the comparison of the
    # default suite, long benchmark names and all.
    gate_json = os.path.join(work, "gate-compare.json")
    gate_html = os.path.join(work, "gate-compare.html")
    subprocess.run([binary, "compare", os.path.join(data, "gate", "A"), os.path.join(data, "gate", "S10"),
                    "--ignore-param", "spin_cycles", "--json", gate_json], stdout=subprocess.DEVNULL, check=False)
    subprocess.run([binary, "report", os.path.join(data, "gate", "S10", "run1.json"), "--compare", gate_json,
                    "-o", gate_html], check=True)
    check_page(chromium, gate_html, ["chart-compare-changes", "compare-headline"], ["table-compare"], 1, work, layout=True)
    check_page(chromium, sweep_html,
               ["chart-sweep-gpu-chain", "chart-sweep-submit-chain", "chart-sweep-per-node-chain",
                "chart-sweep-break-even-chain", "environment"],
               ["table-summary", "table-sweep-chain"], 4, work)
    check_page(chromium, traced_html,
               ["chart-gpu-fork-join", "chart-gpu-while", "chart-suite-speedup", "graph-fork-join-capture",
                "graph-fork-join-graph", "graph-while-capture", "graph-while-graph", "trace", "environment"],
               ["table-summary", "table-trace"], 9, work)
    check_heat_maps(traced_html, ["graph-fork-join-capture", "graph-fork-join-graph", "graph-while-capture"])
    if failures:
        print("%d problem(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
