#!/usr/bin/env python3
"""An independent reading of one SGLang tag, to check a knobs catalogue.

Reads the tag's Python (a folder holding its `python/sglang/` tree) with
Python's own `ast` module — not with knobs, and sharing no code with knobs'
extractor — and compares with the catalogue: options (long names), their
kinds, enum members and `nargs`, then env keys. The options are those the
server's parser declares: `ServerArgs.add_cli_args(parser)`'s
`add_argument` calls, and from v0.5.14 the dataclass fields
`add_cli_args_from_dataclass(parser, ServerArgs)` turns into options (each
field annotated `A[T, "help"]` or `A[T, Arg(...)]`), read the way
arg_groups/arg_utils.py reads them. The env keys are the attributes of
`class Envs` (environ.py) and the literal first argument of every call of
an env reader anywhere under python/sglang/, found by walking every
module's syntax tree (knobs finds them word by word, without parsing).
Deprecated keys (the keys of environ.py's `_DEPRECATED_ENVS`, a
`deprecated_name=` keyword of an `Envs` attribute, the first argument of
`_print_deprecated_env`) are compared with the catalogue's `deprecated`
and `successor`. Metrics: every prometheus_client registration
(`Gauge(name="sglang:…")`, the name first or as `name=`) in srt/metrics/ or
srt/observability/, by exported name (a counter's with `_total`) and type. The looser measure counts every string constant shaped
like an `SGLANG_`/`SGL_` key anywhere under python/sglang/ (modules in a
folder or file named test* left out).

    sglang_check.py SRC_DIR CATALOGUE.toml [--quiet] [--loose]

Prints each figure as `exact/total (percent)`. Exit status: 0 when options
are at least 98 % exact and env keys at least 90 % found, 1 otherwise.
"""

import ast
import pathlib
import re
import sys
import tomllib

SERVER_ARGS = "python/sglang/srt/server_args.py"
HELPER_FILES = [
    "python/sglang/srt/arg_groups/argparse_actions.py",
    "python/sglang/srt/arg_groups/arg_utils.py",
    "python/sglang/srt/utils/common.py",
    "python/sglang/srt/utils.py",
    "python/sglang/srt/model_executor/cuda_graph_config.py",
]
ENVIRON = "python/sglang/srt/environ.py"
ENV_READERS = {
    "getenv",
    "get_bool_env_var",
    "get_int_env_var",
    "get_float_env_var",
    "get_str_env_var",
    "_get_bool_env_var",
    "_get_env",
    "_env_int",
    "_env_float",
    "_env_flag",
    "_optional_env_str",
    "_parse_list_env",
    "_print_deprecated_env",
    "_warn_deprecated_env_to_cli_flag",
    "get_histogram_conf_from_env",
    "_lazy_bool",
    "_lazy_int",
    "_lazy_float",
    "_lazy_path",
    "_lazy_str",
    "_GatedBool",
    "_GatedInt",
}
ENV_PREFIXES = ("SGLANG_", "SGL_")
# Calls that warn a key is deprecated (the key still read): first argument
# the old key, a second literal key its successor.
DEPRECATING = {"_print_deprecated_env", "_warn_deprecated_env_to_cli_flag"}
DEPRECATED_TABLE = "_DEPRECATED_ENVS"
# prometheus_client registrations, in the metrics folders (srt/metrics/ until
# it moved to srt/observability/); a counter is exported as NAME_total.
METRIC_DIRS = [
    "python/sglang/srt/metrics",
    "python/sglang/srt/observability",
    "python/sglang/srt/utils/common.py",
    "python/sglang/srt/disaggregation/encode_server.py",
]
METRIC_TYPES = {"Counter": "counter", "Gauge": "gauge", "Histogram": "histogram", "Summary": "summary", "Info": "info"}
METRIC_PREFIX = "sglang:"
KEY = re.compile(r"^[A-Z_][A-Z0-9_]+$")
SWITCH_ACTIONS = {"store_true", "store_false", "store_const", "count", "help", "version", "append_const"}


def parse(path):
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return None


class Names:
    """Module-level assignments and classes of the files the parser uses."""

    def __init__(self, root):
        self.assigns, self.classes = {}, {}
        for rel in [SERVER_ARGS] + HELPER_FILES:
            mod = parse(root / rel) if (root / rel).exists() else None
            if mod is None:
                continue
            for node in ast.walk(mod):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, node)
            for node in mod.body:
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            self.assigns.setdefault(t.id, node.value)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                    self.assigns.setdefault(node.target.id, node.value)

    def value(self, node, depth=0, cls=None):
        """A literal value, with names and `+` followed (in a class body, a
        bare name is first an attribute of the class); None when unknown."""
        if depth > 20 or node is None:
            return None
        if cls is not None and isinstance(node, ast.Name):
            for s in cls.body:
                if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in s.targets):
                    return self.value(s.value, depth + 1, cls)
        if cls is not None and isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = [self.value(e, depth + 1, cls) for e in node.elts]
            return None if any(v is None for v in out) else out
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = [self.value(e, depth + 1) for e in node.elts]
            return None if any(v is None and not isinstance(e, ast.Constant) for v, e in zip(out, node.elts)) else out
        if isinstance(node, ast.Name):
            return self.value(self.assigns.get(node.id), depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
            if isinstance(a, list) and isinstance(b, list):
                return a + b
            if isinstance(a, str) and isinstance(b, str):
                return a + b
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            cls = self.classes.get(node.value.id)
            if cls is not None:
                for s in cls.body:
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == node.attr:
                        return default_of(self, s.value, depth + 1)
                    if isinstance(s, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == node.attr for t in s.targets
                    ):
                        return self.value(s.value, depth + 1, cls)
        return None

    def action_takes_no_value(self, name):
        cls = self.classes.get(name)
        if cls is None:
            return False
        for f in cls.body:
            if isinstance(f, ast.FunctionDef) and f.name == "__init__":
                args = f.args
                names = [a.arg for a in args.args]
                defaults = dict(zip(names[len(names) - len(args.defaults):], args.defaults))
                d = defaults.get("nargs")
                return isinstance(d, ast.Constant) and d.value == 0
        return False


def default_of(names, node, depth=0):
    if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "field":
        for k in node.keywords:
            if k.arg == "default":
                return names.value(k.value, depth)
        return None
    return names.value(node, depth)


def kind_of_type(node):
    name = ast.unparse(node) if node is not None else ""
    name = name.split(".")[-1]
    return {"int": "int", "float": "float"}.get(name, "string")


def option(names, args, kw):
    """(name, kind, members, nargs) of one add_argument call."""
    strings = [a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    longs = [s for s in strings if s.startswith("--")] or [s for s in strings if s.startswith("-")]
    if not longs:
        return None
    action = kw.get("action")
    action_name = None
    if isinstance(action, ast.Constant):
        action_name = action.value
    elif action is not None:
        action_name = ast.unparse(action).split(".")[-1]
    nargs = names.value(kw.get("nargs")) if "nargs" in kw else None
    if action_name in SWITCH_ACTIONS or action_name == "BooleanOptionalAction":
        return longs[0], "switch", [], None
    if action_name and "nargs" not in kw and names.action_takes_no_value(action_name):
        return longs[0], "switch", [], None
    if nargs == 0:
        return longs[0], "switch", [], None
    choices = names.value(kw.get("choices")) if "choices" in kw else None
    if isinstance(choices, list) and all(isinstance(c, (str, int, float)) and not isinstance(c, bool) for c in choices):
        return longs[0], "enum", [str(c) for c in choices], nargs
    return longs[0], kind_of_type(kw.get("type")), [], nargs


def unwrap_annotation(names, ann):
    """(inner, meta) of `A[T, meta...]`: meta a dict of the Arg keywords, or a help string."""
    if not isinstance(ann, ast.Subscript):
        return None
    head = ast.unparse(ann.value).split(".")[-1]
    alias = names.assigns.get(head)
    if head != "Annotated" and not (isinstance(alias, ast.Name) and alias.id == "Annotated"):
        return None
    parts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    inner, rest = parts[0], parts[1:]
    for r in rest:
        if isinstance(r, ast.Constant) and isinstance(r.value, str) or isinstance(r, ast.JoinedStr):
            return inner, {}
        if isinstance(r, ast.Call) and ast.unparse(r.func).split(".")[-1] == "Arg":
            return inner, {k.arg: k.value for k in r.keywords}
    return None


def split_union(node):
    """The members of an annotation's union, None dropped."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return split_union(node.left) + split_union(node.right)
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).split(".")[-1]
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return split_union(parts[0])
        if head == "Union":
            return [p for part in parts for p in split_union(part)]
    if isinstance(node, ast.Constant) and node.value is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return split_union(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return [node]
    return [node]


def literal_members(names, node, depth=0):
    """Literal[...] (through aliases) → its values; None when not a Literal."""
    if depth > 10:
        return None
    if isinstance(node, ast.Name) and node.id in names.assigns:
        return literal_members(names, names.assigns[node.id], depth + 1)
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1] == "Literal":
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        out = []
        for p in parts:
            v = names.value(p)
            if v is None:
                return None
            out.append(v)
        return out
    return None


def field_option(names, target, ann, value):
    got = unwrap_annotation(names, ann)
    if got is None:
        return None
    inner, meta = got
    if "no_cli" in meta and names.value(meta["no_cli"]) is True:
        return None
    cli = names.value(meta["cli_name"]) if "cli_name" in meta else None
    name = cli or "--" + target.replace("_", "-")
    nargs = names.value(meta["nargs"]) if "nargs" in meta else None
    choices = names.value(meta["choices"]) if "choices" in meta else None
    if "action" in meta:
        action = ast.unparse(meta["action"]).strip("'\"").split(".")[-1]
        extra = meta.get("action_kwargs")
        extra_nargs = None
        if isinstance(extra, ast.Dict):
            for k, v in zip(extra.keys, extra.values):
                if isinstance(k, ast.Constant) and k.value == "nargs":
                    extra_nargs = names.value(v)
        if action in SWITCH_ACTIONS or action == "BooleanOptionalAction" or extra_nargs == 0:
            return name, "switch", [], None
        if extra_nargs is None and names.action_takes_no_value(action):
            return name, "switch", [], None
        return name, "string", [], extra_nargs
    union = split_union(inner)
    if len(union) == 1:
        lit = literal_members(names, union[0])
        if lit is not None:
            members = choices if isinstance(choices, list) else lit
            return name, "enum", [str(m) for m in members], None
        head = ast.unparse(union[0]).split("[")[0].split(".")[-1]
        if head in ("list", "List") and "type_parser" not in meta:
            elem = union[0].slice if isinstance(union[0], ast.Subscript) else None
            kind = kind_of_type(elem) if elem is not None else "string"
            if isinstance(choices, list):
                return name, "enum", [str(c) for c in choices], nargs or "+"
            return name, kind, [], nargs or "+"
        if head == "bool":
            return name, "switch", [], None
    if isinstance(choices, list):
        return name, "enum", [str(c) for c in choices], nargs
    if "type_parser" in meta:
        return name, kind_of_type(meta["type_parser"]), [], nargs
    kind = kind_of_type(union[0]) if len(union) == 1 else "string"
    return name, kind, [], nargs


def options(root):
    names = Names(root)
    mod = parse(root / SERVER_ARGS)
    cls = next(n for n in mod.body if isinstance(n, ast.ClassDef) and n.name == "ServerArgs")
    fields = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    add = next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "add_cli_args")
    out = {}
    for node in ast.walk(add):
        if not isinstance(node, ast.Call):
            continue
        fname = ast.unparse(node.func).split(".")[-1]
        if fname == "add_argument":
            got = option(names, node.args, {k.arg: k.value for k in node.keywords if k.arg})
            if got:
                out.setdefault(got[0], got)
        elif fname == "add_cli_args_from_dataclass":
            for f in fields:
                got = field_option(names, f.target.id, f.annotation, f.value)
                if got:
                    out.setdefault(got[0], got)
    return out


def literal_key(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and KEY.match(node.value):
        return node.value
    return None


def env_keys(root, deprecated=None):
    """The keys read; `deprecated` (a dict) is filled with old key → successor ("" for none)."""
    keys = set()
    deprecated = {} if deprecated is None else deprecated
    environ = root / ENVIRON
    if environ.exists():
        mod = parse(environ)
        for cls in (n for n in mod.body if isinstance(n, ast.ClassDef) and n.name == "Envs"):
            for s in cls.body:
                if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call):
                    for t in s.targets:
                        if isinstance(t, ast.Name) and KEY.match(t.id):
                            keys.add(t.id)
                    for k in s.value.keywords:
                        if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str) and KEY.match(k.value.value):
                            keys.add(k.value.value)
                            if k.arg == "deprecated_name" and isinstance(s.targets[0], ast.Name):
                                deprecated.setdefault(k.value.value, s.targets[0].id)
        for n in mod.body:
            target = n.target if isinstance(n, ast.AnnAssign) else (n.targets[0] if isinstance(n, ast.Assign) else None)
            if not (isinstance(target, ast.Name) and target.id == DEPRECATED_TABLE and isinstance(n.value, ast.Dict)):
                continue
            for k, v in zip(n.value.keys, n.value.values):
                old = literal_key(k)
                if not old:
                    continue
                keys.add(old)
                new = literal_key(v)
                if isinstance(v, ast.Call):
                    new = next((literal_key(kw.value) for kw in v.keywords if kw.arg == "replacement"), None)
                deprecated[old] = new or ""
    for p in sorted(root.joinpath("python/sglang").rglob("*.py")):
        text = p.read_text(encoding="utf-8", errors="replace")
        if "env" not in text:
            continue
        mod = parse(p)
        if mod is None:
            continue
        for node in ast.walk(mod):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and ast.unparse(node.value).endswith("os.environ")
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                k = node.slice.value
                if KEY.match(k) and k.startswith(ENV_PREFIXES):
                    keys.add(k)
                continue
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = ast.unparse(node.func)
            last = func.split(".")[-1]
            reader = last in ENV_READERS or func.endswith("environ.get")
            first = node.args[0]
            if reader and isinstance(first, ast.Constant) and isinstance(first.value, str):
                k = first.value
                if KEY.match(k) and k.startswith(ENV_PREFIXES):
                    keys.add(k)
                    if last in DEPRECATING:
                        second = literal_key(node.args[1]) if len(node.args) > 1 else None
                        deprecated.setdefault(k, second or "")
    return keys


def loose_keys(root):
    """Every string constant shaped like a prefixed key, tests left out."""
    keys = set()
    base = root.joinpath("python/sglang")
    for p in sorted(base.rglob("*.py")):
        if any(part.startswith("test") for part in p.relative_to(base).parts):
            continue
        mod = parse(p)
        if mod is None:
            continue
        for node in ast.walk(mod):
            k = literal_key(node)
            if k and k.startswith(ENV_PREFIXES):
                keys.add(k)
    return keys


def metrics(root):
    """name → type of every `Counter(name="sglang:…")`-shaped registration."""
    out = {}
    for d in METRIC_DIRS:
        base = root.joinpath(d)
        for p in [base] if base.is_file() else sorted(base.rglob("*.py")):
            mod = parse(p)
            if mod is None:
                continue
            for node in ast.walk(mod):
                if not isinstance(node, ast.Call):
                    continue
                kind = METRIC_TYPES.get(ast.unparse(node.func).split(".")[-1])
                if kind is None:
                    continue
                first = node.args[0] if node.args else None
                name = next((k.value for k in node.keywords if k.arg == "name"), first)
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    continue
                name = name.value
                if not name.startswith(METRIC_PREFIX):
                    continue
                if kind == "counter" and not name.endswith("_total"):
                    name += "_total"
                out.setdefault(name, kind)
    return out


def pct(a, b):
    return f"{a}/{b} ({100.0 * a / b:.1f} %)" if b else f"{a}/{b}"


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, cat_path = pathlib.Path(sys.argv[1]), sys.argv[2]
    quiet = "--quiet" in sys.argv
    cat = tomllib.load(open(cat_path, "rb"))
    theirs = options(root)
    ours = {f["name"]: f for f in cat.get("flag", [])}
    exact = 0
    diffs = []
    for name, (_, kind, members, nargs) in sorted(theirs.items()):
        f = ours.get(name)
        if f is None:
            diffs.append(f"missing {name}")
            continue
        got = (f.get("kind"), f.get("members", []) if kind == "enum" else [], f.get("nargs") or arity(f))
        want = (kind, members if kind == "enum" else [], norm_nargs(nargs))
        if got == want:
            exact += 1
        else:
            diffs.append(f"differs {name}: source {want}, catalogue {got}")
    extra = sorted(set(ours) - set(theirs))
    dep_theirs = {}
    env_theirs = env_keys(root, dep_theirs)
    env_ours = {k["name"] for k in cat.get("env_key", [])}
    env_found = len(env_theirs & env_ours)
    dep_ours = {k["name"]: k.get("successor", "") for k in cat.get("env_key", []) if k.get("deprecated")}
    dep_same = sum(1 for k, v in dep_theirs.items() if dep_ours.get(k) == v)
    print(f"options exact: {pct(exact, len(theirs))}; catalogue-only options: {len(extra)}")
    print(f"env keys found: {pct(env_found, len(env_theirs))}; catalogue-only keys: {len(env_ours - env_theirs)}")
    print(f"deprecated env keys with their successor: {pct(dep_same, len(dep_theirs))}; catalogue-only: {len(set(dep_ours) - set(dep_theirs))}")
    m_theirs = metrics(root)
    m_ours = {m["name"]: m.get("type") for m in cat.get("metric", [])}
    m_same = sum(1 for n, t in m_theirs.items() if m_ours.get(n) == t)
    print(f"metrics exact (name and type): {pct(m_same, len(m_theirs))}; catalogue-only metrics: {len(set(m_ours) - set(m_theirs))}")
    if "--loose" in sys.argv:
        loose = loose_keys(root)
        print(f"looser env keys (every prefixed string constant): {pct(len(loose & env_ours), len(loose))}")
    if not quiet:
        for d in diffs:
            print("  " + d)
        for e in extra:
            print(f"  catalogue-only {e}")
        for k in sorted(env_theirs - env_ours):
            print(f"  env key missing {k}")
        for k in sorted(env_ours - env_theirs):
            print(f"  env key catalogue-only {k}")
        for n in sorted(set(m_theirs) | set(m_ours)):
            if m_theirs.get(n) != m_ours.get(n):
                print(f"  metric {n}: source {m_theirs.get(n)}, catalogue {m_ours.get(n)}")
        for k in sorted(set(dep_theirs) | set(dep_ours)):
            if dep_theirs.get(k) != dep_ours.get(k):
                print(f"  deprecated {k}: source {dep_theirs.get(k)!r}, catalogue {dep_ours.get(k)!r}")
    ok = len(theirs) and exact / len(theirs) >= 0.98 and (not env_theirs or env_found / len(env_theirs) >= 0.90)
    return 0 if ok else 1


def norm_nargs(n):
    if n in (None, 1, "1"):
        return None
    return str(n)


def arity(f):
    a = f.get("arity")
    return str(a) if a else None


if __name__ == "__main__":
    sys.exit(main())
