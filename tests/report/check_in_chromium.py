#!/usr/bin/env python3
"""Opens an ndsearch HTML report in headless Chromium and checks that it drew.

usage: check_in_chromium.py CHROMIUM REPORT.html SCREENSHOT.png [CHART_ID...]

Fails (exit 1, saying why) when the page logs anything to the console (an
error, a warning or a log line: the page logs nothing when it works), when its
script records an error or does not finish, when a chart named is not drawn,
or when a chart's box in the screenshot holds fewer coloured pixels than
MIN_COLOURED of its area: the data's bars, points and lines are coloured,
while a blank canvas, axes, grid lines and text are white, grey or black.
Prints each chart's share of coloured pixels and the page's drawing time.
Reads the screenshot with Pillow (Debian's python3-pil, for /usr/bin/python3).
"""
import html
import json
import re
import subprocess
import sys

from PIL import Image

WIDTH = 1280  # the window's width; the height is the page's
MIN_COLOURED = 0.01  # of a chart's box: a legend alone is under 0.3 %
SATURATED = 90  # HSV saturation (of 255) at or above which a pixel is a colour, not a grey


def chromium(binary, args, url):
    command = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--force-device-scale-factor=1", "--enable-logging=stderr", "--v=0"] + args + [url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done, console


def html_attributes(dom):
    tag = re.search(r"<html\b([^>]*)>", dom)
    if not tag:
        return {}
    return {name: html.unescape(value) for name, value in re.findall(r'([\w-]+)="([^"]*)"', tag.group(1))}


def coloured_share(image, box):
    """The share of the box's pixels that are a colour, not white, grey or black."""
    x0, y0 = max(0, box["x"]), max(0, box["y"])
    x1, y1 = min(image.width, box["x"] + box["w"]), min(image.height, box["y"] + box["h"])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    saturation = image.crop((x0, y0, x1, y1)).convert("HSV").getchannel("S")
    coloured = sum(saturation.point(lambda s: 255 if s >= SATURATED else 0).histogram()[255:])
    return coloured / ((x1 - x0) * (y1 - y0))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, report, screenshot, expected = argv[0], argv[1], argv[2], argv[3:]
    url = "file://" + report
    problems = []
    done, console = chromium(binary, [f"--window-size={WIDTH},1000", "--dump-dom"], url)
    attributes = html_attributes(done.stdout)
    problems += [f"console: {line.split(':CONSOLE', 1)[1]}" for line in console]
    if attributes.get("data-report-ready") != "1":
        problems.append(f"the page's script did not finish (chromium exit {done.returncode}; "
                        f"stderr ends: {done.stderr[-400:]!r})")
        return report_problems(problems)
    problems += [f"the page's script: {e}" for e in json.loads(attributes["data-report-errors"])]
    boxes = {box["id"]: box for box in json.loads(attributes["data-report-charts"])}
    problems += [f"{chart} was not drawn (drawn: {', '.join(boxes) or 'none'})"
                 for chart in expected if chart not in boxes]
    height = int(attributes["data-report-height"])
    done, console = chromium(binary, [f"--window-size={WIDTH},{height}", f"--screenshot={screenshot}"], url)
    problems += [f"console (screenshot): {line.split(':CONSOLE', 1)[1]}" for line in console]
    image = Image.open(screenshot).convert("RGB")
    for chart, box in boxes.items():
        share = coloured_share(image, box)
        print(f"{chart}: {box['w']}x{box['h']} px at ({box['x']}, {box['y']}), {100 * share:.1f} % coloured")
        if share < MIN_COLOURED:
            problems.append(f"{chart}: {100 * share:.2f} % of its box is coloured, under "
                            f"{100 * MIN_COLOURED:.0f} %: it drew no data")
    print(f"drawn in {attributes.get('data-report-ms')} ms by the page's script; page {height} px high")
    return report_problems(problems)


def report_problems(problems):
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
