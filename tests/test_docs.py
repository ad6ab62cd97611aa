"""The project carries its own user documentation: README and docs/ link only to files a clone has."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_of_a_page_is_a_file_of_the_project(page):
    text = page.read_text()
    assert "shared/spec" not in text, f"{page.name} points outside the project"
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if "://" in target:
            continue
        resolved = (page.parent / target).resolve()
        assert resolved.is_relative_to(ROOT) and resolved.exists(), f"{page.name} links to {target}"


@pytest.mark.parametrize("name", ["rules.md", "position-format.md", "architecture.md", "leds.md"])
def test_the_user_documentation_is_in_docs(name):
    assert (ROOT / "docs" / name).is_file()
