"""Every citation in the book names an entry of references.bib (a misspelt key would otherwise
render as a warning, or as nothing, in the built page)."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")


def bib_keys() -> set[str]:
    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    return set(re.findall(r"^@\w+\{([^,\s]+),", text, flags=re.M))


def cited() -> dict[str, set[str]]:
    """Citation keys per file: markdown cells of the notebooks and the .md pages."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "chapters").rglob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        found[str(path.relative_to(ROOT))] = _keys(text)
    for path in [ROOT / "index.md", *sorted((ROOT / "chapters").rglob("*.md"))]:
        if path.exists():
            found[str(path.relative_to(ROOT))] = _keys(path.read_text(encoding="utf-8"))
    return found


def _keys(text: str) -> set[str]:
    return {k.strip() for group in CITE.findall(text) for k in group.split(",")}


def test_every_cited_key_is_in_references_bib():
    known = bib_keys()
    unknown = {f: keys - known for f, keys in cited().items() if keys - known}
    assert not unknown, f"citations of keys not in references.bib: {unknown}"


def test_the_pattern_sees_a_citation():
    assert _keys("앞 {cite}`a, b` 와 {cite:p}`c`") == {"a", "b", "c"}
    assert {"dao2022flashattention", "milakov2018online"} <= bib_keys()


def test_part3_cites_its_sources():
    keys = set().union(*(k for f, k in cited().items() if "part3" in f))
    assert {"milakov2018online", "rabe2021selfattention", "dao2022flashattention",
            "dao2023flashattention2", "higham2002accuracy",
            "article_attention_grad", "ieee754"} <= keys
