"""The yardstick does not move with the product: scoring and reporting import no product code.

Walks the import statements (every `import`/`from … import`, at any depth, `TYPE_CHECKING` ones too)
of the scoring and report modules and of every anchorgate module they reach, without executing
them, and fails on any module outside `ALLOWED`: the answer stage, text helpers, agents, the gate
and the support measure (and the rest of the product) are out of reach.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.fakes import imports_in

ROOTS = (
    "anchorgate.eval.scoring.metrics", "anchorgate.eval.scoring.keys", "anchorgate.eval.scoring.refusal",
    "anchorgate.eval.scoring.text", "anchorgate.eval.scoring.long_form", "anchorgate.eval.scoring.records",
    "anchorgate.eval.scoring.paired", "anchorgate.eval.scoring.risk_coverage", "anchorgate.eval.aggregate",
    "anchorgate.eval.comparisons", "anchorgate.eval.report", "anchorgate.eval.plots", "anchorgate.eval.risk_plot",
)  # fmt: skip
ALLOWED_PREFIXES = ("anchorgate.eval.scoring",)
ALLOWED = frozenset({
    "anchorgate", "anchorgate.eval", "anchorgate.eval.aggregate", "anchorgate.eval.comparisons",
    "anchorgate.eval.report", "anchorgate.eval.plots", "anchorgate.eval.risk_plot", "anchorgate.eval.store",
    "anchorgate.eval.errors", "anchorgate.tools", "anchorgate.tools.errors",
})  # fmt: skip


def allowed(module: str) -> bool:
    return module in ALLOWED or any(module == p or module.startswith(p + ".") for p in ALLOWED_PREFIXES)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every anchorgate module named by the import statements of `source` (relative ones resolved)."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for base, names in imports_in(source, package):
        found.add(base)
        found.update(f"{base}.{name}" for name in names if _is_module(f"{base}.{name}"))
    return {name for name in found if name == "anchorgate" or name.startswith("anchorgate.")}


def _is_module(name: str) -> bool:
    """Whether `name` is a module (from pkg import module), found without importing it."""
    parent = name.rpartition(".")[0]
    if not allowed(parent):
        return False  # never import a parent outside the allowed set just to ask
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def violations(roots: tuple[str, ...]) -> dict[str, str]:
    """Forbidden module → the allowed module that imports it, over the closure of `roots`."""
    seen: set[str] = set()
    todo = list(roots)
    bad: dict[str, str] = {}
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin, module
        source = Path(spec.origin).read_text(encoding="utf-8")
        for name in imported_modules(source, module, spec.submodule_search_locations is not None):
            if not allowed(name):
                bad.setdefault(name, module)
            elif name not in seen:
                todo.append(name)
    return bad


def test_scoring_and_reports_reach_no_product_module() -> None:
    assert violations(ROOTS) == {}


@pytest.mark.parametrize(
    "statement",
    [
        "from anchorgate.tools.answer.text import is_idk",
        "import anchorgate.agents.generator",
        "from anchorgate.graph import gate",
        "def f():\n    from anchorgate.tools.answer.support import support_report",
        "from ...tools.text.suffixes import fold_suffix",
    ],
)
def test_the_check_sees_a_product_import_however_it_is_written(statement: str) -> None:
    names = imported_modules(statement, "anchorgate.eval.scoring.example")
    assert names and not all(allowed(n) for n in names)


def test_relative_imports_inside_the_package_are_allowed() -> None:
    names = imported_modules("from .text import key_tokens\nfrom . import keys", "anchorgate.eval.scoring.example")
    assert names and all(allowed(n) for n in names)
