"""The package's modules import each other one way: a run flows inputs -> index -> run -> evaluation -> verdict ->
report -> sinks, and a module that imports one which imports it back (even inside a function) is a knot a reader has
to untie before changing either. This walks every import statement of the package, the lazy ones included, and
fails on any cycle, naming it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_relevance"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, modules: set[str], package: str) -> set[str]:
    """What a module imports at run time: `from a import b` names a.b where b is a module, else a. Imports under
    `if TYPE_CHECKING:` never run, so they are no edge."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in modules:
                    found.add(target)
                elif base in modules:
                    found.add(base)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = _imports(ast.parse(path.read_text(encoding="utf-8")), modules, package)
        # a package that imports its own submodules to register them (queries/__init__ -> full_text) is how the
        # package is assembled, not a dependency of one module on another: the child depends on the package only
        if path.name == "__init__.py":
            edges = {edge for edge in edges if not edge.startswith(name + ".")}
        graph[name] = edges - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module: each is a cycle to break."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in sorted(graph[node]):
            if edge not in index:
                visit(edge)
                low[node] = min(low[node], low[edge])
            elif edge in on_stack:
                low[node] = min(low[node], index[edge])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_the_package_has_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_the_walk_sees_lazy_imports_and_finds_a_cycle() -> None:
    """The check itself could pass by seeing nothing: a two-module cycle made of a function-level import is found."""
    modules = {"p", "p.a", "p.b"}
    a = ast.parse("from p import b\n")
    b = ast.parse("def f():\n    from p.a import x\n")
    graph = {"p": set(), "p.a": _imports(a, modules, "p"), "p.b": _imports(b, modules, "p")}
    assert _cycles(graph) == [["p.a", "p.b"]]
    hidden = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.a import x\n")
    assert _imports(hidden, modules, "p") == set()
