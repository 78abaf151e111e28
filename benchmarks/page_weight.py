"""Per-page weight of a built HTML book: bytes transferred and requests, in headless Chromium.

Usage: ``python benchmarks/page_weight.py _build/html [--out weights.csv]``

Serves the build on 127.0.0.1 (no compression, like a plain static host), opens every page
with an empty cache in Debian's Chromium (the browser of the tests), waits for the network
to go idle (MathJax fonts and the Vega bundle included), and prints one line per page:
requests, kilobytes transferred (response bodies and headers) and the three largest files.
"""

from __future__ import annotations

import argparse
import csv
import functools
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


def pages_of(html: Path) -> list[str]:
    """Every reader page of the build (no ``_static`` templates, no ``_sources``)."""
    return sorted(
        str(p.relative_to(html))
        for p in html.rglob("*.html")
        if not str(p.relative_to(html)).startswith(("_static", "_sources", "_images"))
    )


def measure(html: Path) -> list[dict]:
    """One row per page: ``page``, ``requests``, ``kb`` and ``largest`` (name: kB)."""
    from playwright.sync_api import sync_playwright

    from dadp_book.pdf import CHROMIUM, CHROMIUM_FLAGS

    handler = functools.partial(_Quiet, directory=str(html))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    rows = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            for name in pages_of(html):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                sizes: dict[str, int] = {}

                def done(request, sizes=sizes):
                    try:
                        got = request.sizes()
                    except Exception:  # noqa: BLE001 - the page closed first: not counted
                        return
                    total = got["responseBodySize"] + got["responseHeadersSize"]
                    sizes[request.url.split("?")[0]] = total

                page.on("requestfinished", done)
                page.goto(f"{base}/{name}", wait_until="networkidle")
                page.wait_for_timeout(500)
                context.close()
                largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
                rows.append(
                    {
                        "page": name,
                        "requests": len(sizes),
                        "kb": round(sum(sizes.values()) / 1024),
                        "largest": "; ".join(
                            f"{url.rsplit('/', 1)[-1]} {size / 1024:.0f}" for url, size in largest
                        ),
                    }
                )
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path, help="the built HTML folder (e.g. _build/html)")
    parser.add_argument("--out", type=Path, help="also write the table as CSV")
    args = parser.parse_args(argv)
    rows = measure(args.html)
    print(f"{'page':<48} {'requests':>8} {'kB':>7}  largest (kB)")
    for row in rows:
        print(f"{row['page']:<48} {row['requests']:>8} {row['kb']:>7}  {row['largest']}")
    print(
        f"{'median':<48} {sorted(r['requests'] for r in rows)[len(rows) // 2]:>8} "
        f"{sorted(r['kb'] for r in rows)[len(rows) // 2]:>7}"
    )
    if args.out:
        with args.out.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
