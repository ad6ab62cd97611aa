"""Every picture the project generates, looked at in a real browser (Debian's chromium through
Selenium), as a person would see it: no text runs past the picture's edge, no two texts overlap, and
every wire of the wiring diagram starts and ends on a part or on another wire."""
import shutil
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not CHROMIUM.exists() or not Path(CHROMEDRIVER).exists():
    pytest.skip("chromium and chromium-driver are not installed (scripts/system-packages.sh installs them)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra)")

ROOT = Path(__file__).resolve().parents[1]
PICTURES = [ROOT / "docs" / "led-legend.svg", ROOT / "docs" / "wiring" / "wiring.svg",
            *sorted((ROOT / "hardware" / "docs").glob("*.svg"))]
TOUCH = 1.5   # px: how near a wire's end must come to a part's edge or another wire


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def text_boxes(browser, picture: Path) -> tuple[list[dict], dict]:
    browser.get(picture.as_uri())
    return browser.execute_script("""
        const svg = document.documentElement, view = svg.viewBox.baseVal;
        const boxes = [...document.querySelectorAll('text')].map(t => {
            const b = t.getBBox(); return {x: b.x, y: b.y, w: b.width, h: b.height, text: t.textContent};
        }).filter(b => b.text.trim() !== '');
        return [boxes, {w: view.width || svg.width.baseVal.value, h: view.height || svg.height.baseVal.value}];
    """)


@pytest.mark.parametrize("picture", PICTURES, ids=lambda picture: picture.name)
def test_no_text_runs_past_the_edge_or_over_another(browser, picture):
    boxes, size = text_boxes(browser, picture)
    assert boxes, f"{picture.name} shows no text"
    for box in boxes:
        assert box["x"] >= 0 and box["x"] + box["w"] <= size["w"] + 0.5, f"{box['text']!r} runs past the edge"
        assert box["y"] + box["h"] <= size["h"] + 0.5, f"{box['text']!r} runs past the bottom"
    for index, one in enumerate(boxes):
        for other in boxes[index + 1:]:
            across = min(one["x"] + one["w"], other["x"] + other["w"]) - max(one["x"], other["x"])
            down = min(one["y"] + one["h"], other["y"] + other["h"]) - max(one["y"], other["y"])
            assert across <= 1 or down <= 1, f"{one['text']!r} and {other['text']!r} overlap in {picture.name}"


def test_every_wire_of_the_wiring_diagram_starts_and_ends_on_something(browser):
    browser.get((ROOT / "docs" / "wiring" / "wiring.svg").as_uri())
    loose = browser.execute_script("""
        const near = %s;
        const parts = [...document.querySelectorAll('rect')].slice(1).map(r => r.getBBox());
        const wires = [...document.querySelectorAll('polyline')].map(p => [...p.points].map(q => [q.x, q.y]));
        const onEdge = ([x, y], b) => x >= b.x - near && x <= b.x + b.width + near && y >= b.y - near &&
            y <= b.y + b.height + near && (Math.abs(x - b.x) <= near || Math.abs(x - b.x - b.width) <= near ||
            Math.abs(y - b.y) <= near || Math.abs(y - b.y - b.height) <= near);
        const onSegment = ([x, y], [a, b], [c, d]) => Math.min(a, c) - near <= x && x <= Math.max(a, c) + near &&
            Math.min(b, d) - near <= y && y <= Math.max(b, d) + near &&
            Math.abs((c - a) * (y - b) - (d - b) * (x - a)) <= near * Math.hypot(c - a, d - b);
        const loose = [];
        wires.forEach((wire, index) => [wire[0], wire[wire.length - 1]].forEach(end => {
            const onPart = parts.some(b => onEdge(end, b));
            const onWire = wires.some((other, j) => j !== index &&
                other.slice(1).some((q, k) => onSegment(end, other[k], q)));
            if (!onPart && !onWire) loose.push(end);
        }));
        return loose;
    """ % TOUCH)
    assert loose == [], f"wires end in empty space at {loose}"
