"""The product's modules import each other without a cycle.

Builds the import graph of the product packages — `anchorgate.graph`, `anchorgate.studio`, `anchorgate.agents`,
`anchorgate.tools` (every sub-package), `anchorgate.prompts` and the top-level `anchorgate/*.py`
modules — from the source with `ast`, without importing anything, and fails on any cycle, naming
its modules in order.

Every import statement counts, wherever it stands: at module level, inside a function (a lazy
import only postpones a cycle to the first call, it does not remove the dependency) and under
`if TYPE_CHECKING:` (a type one module needs from another is a dependency of its own; moving the
shared type to a module both can import is the fix, not hiding the import). An import of
`a.b.c` is an edge to `a.b.c` only, not to the packages above it; `from pkg import name` is an edge
to `pkg.name` when that is a module, otherwise to `pkg` itself.
"""

from __future__ import annotations

from pathlib import Path

from tests.fakes import imports_in

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"graph": "anchorgate.graph", "studio": "anchorgate.studio", "agents": "anchorgate.agents",
            "tools": "anchorgate.tools", "prompts": "anchorgate.prompts"}  # fmt: skip


def product_modules() -> dict[str, Path]:
    """Dotted module name → source file, for every product module (package `__init__`s included)."""
    modules = {f"anchorgate.{path.stem}": path for path in (ROOT / "anchorgate").glob("*.py")}
    modules.pop("anchorgate.__init__", None)
    modules["anchorgate"] = ROOT / "anchorgate" / "__init__.py"
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The product modules that `module`'s import statements name (relative imports resolved)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for base, names in imports_in(path.read_text(encoding="utf-8"), package):
        found.update([base] if not names else (f"{base}.{n}" if f"{base}.{n}" in known else base for n in names))
    return {name for name in found if name in known and name != module}


def import_graph() -> dict[str, set[str]]:
    modules = product_modules()
    known = set(modules)
    return {module: imports_of(module, path, known) for module, path in modules.items()}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan), each as a path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_cycle_in(graph, component) for component in components]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module, found breadth-first inside it."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph[node] & component):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    raise AssertionError(f"no cycle through {start}")  # a component of more than one node always has one


def test_the_graph_covers_the_product() -> None:
    graph = import_graph()
    assert {"anchorgate.cli", "anchorgate.graph.gate", "anchorgate.agents.generator",
            "anchorgate.tools.retrieval.hybrid", "anchorgate.tools.text.cjk"} <= set(graph)  # fmt: skip
    assert "anchorgate.tools.index.build" in graph["anchorgate.tools.retrieval.hybrid"]


def test_a_cycle_is_found_and_named() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)
