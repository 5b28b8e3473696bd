"""The modules around the engine import one another without cycles, counting imports inside
functions too: entry points -> load -> models -> scenario, innodb, engine."""

import ast

from conftest import ROOT

PACKAGE = ROOT / "ndbsim"


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph():
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}

    def owner(name):
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = {m: set() for m in modules}
    for m, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ndbsim"):
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("ndbsim")]
            graph[m] |= {owner(n) for n in names} - {m, ""}
    return graph


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_finder_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_cycle_outside_the_engine():
    graph = import_graph()
    assert "ndbsim.studies.calibration.cases" not in graph["ndbsim.innodb.fit"]
    outside = [c for c in cycles(graph) if any(not m.startswith("ndbsim.engine") for m in c)]
    assert outside == []


def test_only_the_registry_reads_the_model_kind():
    readers = [
        module_name(p)
        for p in PACKAGE.rglob("*.py")
        if any(s in p.read_text(encoding="utf-8") for s in ('"kind") == "innodb"', "is_innodb("))
    ]
    assert readers == []
    assert 'raw.get("kind")' in (PACKAGE / "models" / "registry.py").read_text(encoding="utf-8")


def test_only_the_registry_branches_on_the_model():
    """Code outside models.py asks the model (its levers, whether it solves, ...) rather than
    comparing its name."""
    branches = [
        module_name(p)
        for p in PACKAGE.rglob("*.py")
        if p.name != "registry.py"
        and any(s in p.read_text(encoding="utf-8") for s in ("product ==", "product !=", "label ==", "label !="))
    ]
    assert branches == []


LAYERS = (
    ("ndbsim.errors", "ndbsim.extras", "ndbsim.paths", "ndbsim.signals"),
    ("ndbsim.input",),
    ("ndbsim.engine",),
    ("ndbsim.output",),
    ("ndbsim.innodb",),
    ("ndbsim.models",),
    ("ndbsim.studies",),
    ("ndbsim.cli", "ndbsim.__main__"),
    ("ndbsim",),
)
"""The package's layers, lowest first: a module imports only from its own layer or those below
(the data flows input -> engine -> output, the models put them behind one interface, the studies
run many models, the command line prints them). ``ndbsim`` itself, the package, is the API on top:
its names resolve lazily to the modules below."""


def layer_of(module):
    """The rank of the layer whose longest prefix names ``module`` (None: no layer does)."""
    best = None
    for rank, prefixes in enumerate(LAYERS):
        for p in prefixes:
            covers = module == p or (p != "ndbsim" and module.startswith(p + "."))
            if covers and (best is None or len(p) > len(best[1])):
                best = (rank, p)
    return None if best is None else best[0]


def test_every_module_has_a_layer():
    assert all(layer_of(m) is not None for m in import_graph())


def test_the_layer_finder_ranks_by_the_longest_prefix():
    assert layer_of("ndbsim.errors") == 0
    assert layer_of("ndbsim.input.scenario") == 1
    assert layer_of("ndbsim.cli.app") == len(LAYERS) - 2
    assert layer_of("ndbsim") == len(LAYERS) - 1
    assert layer_of("ndbsim.unplaced") is None


def test_nothing_imports_upward():
    upward = sorted(f"{m} -> {d}" for m, deps in import_graph().items() for d in deps if layer_of(d) > layer_of(m))
    assert upward == []
