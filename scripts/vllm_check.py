#!/usr/bin/env python3
"""An independent reading of one vLLM tag, to check a knobs catalogue.

Reads the tag's Python (a folder holding its `vllm/` tree) with Python's own
`ast` module — not with knobs, and sharing no code with knobs' extractor —
and prints, for this reading and for the catalogue side by side: options,
long spellings, `--no-` twins, short aliases, enums with members, env keys
and metrics; then every option both know, with its kind and members
compared, and every name one side has and the other has not.

    vllm_check.py SRC_DIR CATALOGUE.toml

Exit status: 0 when everything matches, 1 when something differs.
"""

import ast
import pathlib
import re
import sys
import tomllib

# Which function builds each binary's parser (the profile says the same in
# its own words; these are read from vLLM's entrypoints).
ENTRIES = [
    ("serve", "vllm/entrypoints/openai/cli_args.py", ["make_arg_parser"]),
    ("run-batch", "vllm/entrypoints/openai/run_batch.py", ["make_arg_parser", "parse_args"]),
    ("bench-latency", "vllm/benchmarks/latency.py", ["add_cli_args"]),
    ("bench-throughput", "vllm/benchmarks/throughput.py", ["add_cli_args"]),
]
FOLLOW = {"add_cli_args", "make_arg_parser"}
SWITCH_ACTIONS = {"store_true", "store_false", "store_const", "count", "help", "version", "append_const"}
BUILTIN_SCALARS = {"bool", "int", "float", "str", "dict", "Dict"}
COLLECTIONS = {"list", "List", "tuple", "Tuple", "set", "Set", "Sequence", "frozenset"}


class Tree:
    """Every module of the tag, parsed, and its top-level names."""

    def __init__(self, root):
        self.root = pathlib.Path(root)
        self.modules = {}
        for p in sorted(self.root.joinpath("vllm").rglob("*.py")):
            rel = p.relative_to(self.root).as_posix()
            try:
                self.modules[rel] = ast.parse(p.read_text(encoding="utf-8", errors="replace"))
            except SyntaxError:
                continue
        self.classes, self.functions, self.assigns = {}, {}, {}
        for rel, mod in self.modules.items():
            for node in self._top(mod.body):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append((rel, node))
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.setdefault(node.name, []).append((rel, node))
                elif isinstance(node, ast.Assign):
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            self.assigns.setdefault(t.id, []).append((rel, node.value))
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                    self.assigns.setdefault(node.target.id, []).append((rel, node.value))
                elif type(node).__name__ == "TypeAlias":
                    self.assigns.setdefault(node.name.id, []).append((rel, node.value))

    def _top(self, body):
        for node in body:
            yield node
            if isinstance(node, (ast.If, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    yield from self._top(getattr(node, part, []))
                for h in getattr(node, "handlers", []):
                    yield from self._top(h.body)

    @staticmethod
    def _pick(table, name, rel):
        found = table.get(name, [])
        for r, n in found:
            if r == rel:
                return r, n
        return found[0] if found else (None, None)

    def cls(self, name, rel):
        return self._pick(self.classes, name, rel)

    def assign(self, name, rel):
        return self._pick(self.assigns, name, rel)

    def mro(self, rel, node):
        out, todo = [], [(rel, node)]
        while todo and len(out) < 64:
            r, c = todo.pop(0)
            if any(c is o[1] for o in out):
                continue
            out.append((r, c))
            for b in c.bases:
                name = b.value if isinstance(b, ast.Subscript) else b
                name = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", None)
                br, bc = self.cls(name, r) if name else (None, None)
                if bc is not None:
                    todo.append((br, bc))
        return out

    def method(self, rel, node, name):
        for r, c in self.mro(rel, node):
            for item in c.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    return r, item
        return None, None

    def fields(self, rel, node):
        """Annotated class attributes, bases first, as a dataclass orders them."""
        out = {}
        for r, c in reversed(self.mro(rel, node)):
            for item in c.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    text = ast.unparse(item.annotation)
                    if "ClassVar" in text or text.startswith("InitVar"):
                        continue
                    out[item.target.id] = (r, item)
        return out

    def is_config(self, rel, node):
        for d in node.decorator_list:
            d = d.func if isinstance(d, ast.Call) else d
            name = d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")
            if name in ("dataclass", "config"):
                return True
        return False


def literal(tree, rel, node, depth=0):
    """A node's value when it is a literal or a name bound to one; else None."""
    if depth > 10:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        g = node.generators[0]
        it = g.iter.attr if isinstance(g.iter, ast.Attribute) else getattr(g.iter, "id", None)
        r, c = tree.cls(it, rel) if it else (None, None)
        if c is not None and isinstance(g.target, ast.Name) and ast.unparse(node.elt) == f"{g.target.id}.value":
            vals = []
            for item in c.body:
                if isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name):
                    if not item.targets[0].id.startswith("_"):
                        vals.append(literal(tree, r, item.value, depth + 1))
            return vals if vals and all(v is not None for v in vals) else None
        return None
    if isinstance(node, ast.Name):
        r, v = tree.assign(node.id, rel)
        return literal(tree, r, v, depth + 1) if v is not None else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        r, c = tree.cls(node.value.id, rel)
        if c is not None:
            f = tree.fields(r, c).get(node.attr)
            if f and f[1].value is not None:
                return literal(tree, f[0], f[1].value, depth + 1)
    return None


def hints(tree, rel, ann, out, depth=0):
    """Flattens an annotation into atoms: 'bool', 'int', ..., ('lit', values), ('coll', atoms)."""
    if depth > 12 or ann is None:
        out.append("other")
        return
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        hints(tree, rel, ann.left, out, depth + 1)
        hints(tree, rel, ann.right, out, depth + 1)
    elif isinstance(ann, ast.Constant) and ann.value is None:
        out.append("None")
    elif isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            hints(tree, rel, ast.parse(ann.value, mode="eval").body, out, depth + 1)
        except SyntaxError:
            out.append("other")
    elif isinstance(ann, ast.Subscript):
        head = ann.value.attr if isinstance(ann.value, ast.Attribute) else getattr(ann.value, "id", "")
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head == "Optional":
            hints(tree, rel, args[0], out, depth + 1)
            out.append("None")
        elif head == "Union":
            for a in args:
                hints(tree, rel, a, out, depth + 1)
        elif head in ("Annotated", "SkipValidation"):
            hints(tree, rel, args[0], out, depth + 1)
        elif head == "Literal":
            vals = []
            for a in args:
                if isinstance(a, ast.Constant):
                    vals.append(a.value)
                else:
                    inner = []
                    hints(tree, rel, a, inner, depth + 1)
                    for h in inner:
                        if isinstance(h, tuple) and h[0] == "lit":
                            vals.extend(h[1])
            out.append(("lit", vals))
        elif head in COLLECTIONS:
            inner = []
            hints(tree, rel, args[0], inner, depth + 1)
            out.append(("coll", inner))
        elif head in ("dict", "Dict", "Mapping"):
            out.append("dict")
        else:
            name_hint(tree, rel, head, out, depth)
    elif isinstance(ann, (ast.Name, ast.Attribute)):
        name_hint(tree, rel, ann.attr if isinstance(ann, ast.Attribute) else ann.id, out, depth)
    else:
        out.append("other")


def name_hint(tree, rel, name, out, depth):
    if name in BUILTIN_SCALARS:
        out.append("dict" if name in ("dict", "Dict") else name)
    elif name in ("None", "NoneType"):
        out.append("None")
    elif name in COLLECTIONS:
        out.append(("coll", ["other"]))
    else:
        r, c = tree.cls(name, rel)
        if c is not None:
            out.append("config" if tree.is_config(r, c) else "other")
            return
        r, v = tree.assign(name, rel)
        if v is not None:
            hints(tree, r, v, out, depth + 1)
        else:
            out.append("other")


def from_field(tree, rel, item, str_opens, special=None):
    """(kind, members, closed, negatable) as vLLM's get_kwargs makes them."""
    kind, members, closed, neg = _from_field(tree, rel, item, str_opens)
    if kind == "int" and special:
        kind = special.get(item.target.id, "int")
    return kind, members, closed, neg


def _from_field(tree, rel, item, str_opens):
    hs = []
    hints(tree, rel, item.annotation, hs)
    lits = [h for h in hs if isinstance(h, tuple) and h[0] == "lit"]
    colls = [h for h in hs if isinstance(h, tuple) and h[0] == "coll"]
    members, closed, kind = None, None, "string"
    if "config" in hs:
        kind = "string"
    elif "bool" in hs:
        return "switch", None, None, True
    elif lits:
        kind, members = "enum", [str(v) for v in lits[0][1]]
        closed = not ("str" in hs and str_opens)
    elif colls:
        inner = colls[0][1]
        ilits = [h for h in inner if isinstance(h, tuple) and h[0] == "lit"]
        if ilits:
            kind, members = "enum", [str(v) for v in ilits[0][1]]
            closed = not ("str" in inner and str_opens)
        elif "int" in inner:
            kind = "int"
        elif "float" in inner:
            kind = "float"
    elif "int" in hs:
        kind = "int"
    elif "float" in hs:
        kind = "float"
    if members is not None and "None" in hs:
        members.append("None")
    return kind, members, closed, False


def type_kind(node):
    text = ast.unparse(node)
    inner = text.rsplit("(", 1)[-1].rstrip(")").strip().rsplit(".", 1)[-1]
    return {"int": "int", "float": "float"}.get(inner, "string")


class Reader:
    """Options of the entry functions, read from the ast."""

    def __init__(self, tree, bool_actions=("StoreBoolean",)):
        self.tree = tree
        self.bool_actions = set(bool_actions)
        text = "".join(ast.unparse(n) for _, n in tree.functions.get("literal_to_kwargs", []))
        # From the tag where get_kwargs gives `metavar` (not `choices`) to a
        # Literal unioned with str, those members are open.
        self.str_opens = "metavar" in text
        # `if name == "x": kwargs[name]["type"] = parser` in the kwargs builder.
        special = {}
        for fname in ("get_kwargs", "_compute_kwargs"):
            for _, fn in tree.functions.get(fname, []):
                for node in ast.walk(fn):
                    if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)):
                        continue
                    comp = node.test.comparators[0]
                    if isinstance(node.test.ops[0], ast.Eq) and isinstance(comp, ast.Constant):
                        names = [comp.value]
                    elif isinstance(node.test.ops[0], ast.In) and isinstance(comp, (ast.Set, ast.Tuple, ast.List)):
                        names = [e.value for e in comp.elts if isinstance(e, ast.Constant)]
                    else:
                        continue
                    for st in node.body:
                        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Subscript):
                            key = st.targets[0].slice
                            if isinstance(key, ast.Constant) and key.value == "type":
                                for n in names:
                                    special[n] = "int" if ast.unparse(st.value) == "int" else "string"
        self.special = special

    def function(self, rel, fn, cls, stack):
        if id(fn) in stack or len(stack) > 20:
            return []
        stack = stack | {id(fn)}
        opts, kwdicts, done = [], {}, set()
        params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self", "cls"}
        params |= {"parser"}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                f = node.value.func
                fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if fname == "get_kwargs" and node.value.args and isinstance(node.targets[0], ast.Name):
                    a = node.value.args[0]
                    c = cls if isinstance(a, ast.Name) and a.id == "cls" else self.tree.cls(getattr(a, "id", ""), rel)
                    if c and c[1] is not None:
                        kwdicts[node.targets[0].id] = c
        overrides = self.overrides(fn, kwdicts)
        # `x = kw["field"]`: a field's kwargs under a name of their own.
        local = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                v = node.value
                if isinstance(v, ast.Subscript) and getattr(v.value, "id", None) in kwdicts:
                    if isinstance(v.slice, ast.Constant):
                        local[node.targets[0].id] = (kwdicts[v.value.id], v.slice.value)
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
                t = node.targets[0]
                if getattr(t.value, "id", None) in local and isinstance(t.slice, ast.Constant):
                    overrides[(local[t.value.id][1], t.slice.value)] = node.value
        for node in ast.walk(fn):
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
                it = node.iter.func
                if isinstance(it, ast.Attribute) and it.attr == "items" and getattr(it.value, "id", None) in kwdicts:
                    c = kwdicts[it.value.id]
                    ov = dict(overrides)
                    for mr, m in self.tree.mro(*c):
                        for meth in m.body:
                            if isinstance(meth, ast.FunctionDef):
                                for k, v in self.overrides(meth, None).items():
                                    ov.setdefault(k, v)
                    for sub in ast.walk(node):
                        if isinstance(sub, ast.Call):
                            done.add(id(sub))
                    for name, (fr, item) in self.tree.fields(*c).items():
                        kind, members, closed, neg = from_field(self.tree, fr, item, self.str_opens, self.special)
                        kind = self.apply(ov, name, kind)
                        act = ov.get((name, "action"))
                        if isinstance(act, ast.Constant) and act.value in SWITCH_ACTIONS:
                            kind, members, closed, neg = "switch", None, None, False
                        names = ["--" + name.replace("_", "-")] + ov.get((name, "flags"), [])
                        opts.append(self.opt(names, kind, members, closed, neg))
        # `for arg, type in [("--x", str), ...]: add_argument(arg, ...)`.
        for node in ast.walk(fn):
            if isinstance(node, ast.For) and isinstance(node.iter, (ast.List, ast.Tuple)):
                tgt = node.target
                first = tgt.elts[0].id if isinstance(tgt, ast.Tuple) and isinstance(tgt.elts[0], ast.Name) else getattr(tgt, "id", None)
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Call) and getattr(sub.func, "attr", "") == "add_argument":
                        if sub.args and isinstance(sub.args[0], ast.Name) and sub.args[0].id == first:
                            done.add(id(sub))
                            for elt in node.iter.elts:
                                name = elt.elts[0] if isinstance(elt, ast.Tuple) else elt
                                if isinstance(name, ast.Constant):
                                    opts.append(self.opt([name.value], "string", None, None, False))
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call) or id(node) in done:
                continue
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if fname == "add_argument":
                o = self.add_argument(rel, node, kwdicts, overrides, local)
                if o:
                    opts.append(o)
            elif fname in FOLLOW or any(isinstance(a, ast.Name) and a.id in params for a in node.args):
                # The parser handed to another function or method: read it too.
                opts.extend(self.follow(rel, f, fname, cls, stack))
        return opts

    def follow(self, rel, f, fname, cls, stack):
        if isinstance(f, ast.Attribute):
            v = f.value
            if isinstance(v, ast.Name) and v.id in ("cls", "self"):
                target = cls
            elif isinstance(v, ast.Call) and getattr(v.func, "id", "") == "super":
                mro = self.tree.mro(*cls) if cls else []
                for r, c in mro[1:]:
                    mr, m = self.tree.method(r, c, fname)
                    if m is not None:
                        return self.function(mr, m, cls, stack)
                return []
            else:
                target = self.tree.cls(getattr(v, "id", getattr(v, "attr", "")), rel)
            if not target or target[1] is None:
                return []
            mr, m = self.tree.method(target[0], target[1], fname)
            return self.function(mr, m, target, stack) if m is not None else []
        r, fn = Tree._pick(self.tree.functions, fname, rel)
        return self.function(r, fn, None, stack) if fn is not None else []

    @staticmethod
    def overrides(fn, kwdicts):
        """`X["field"]["key"] = value` in a function (any dict, when kwdicts is None)."""
        out = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
                t = node.targets[0]
                if isinstance(t.value, ast.Subscript) and isinstance(t.value.value, ast.Name):
                    if kwdicts is not None and t.value.value.id not in kwdicts:
                        continue
                    field, key = t.value.slice, t.slice
                    if isinstance(field, ast.Constant) and isinstance(key, ast.Constant):
                        if key.value == "flags":
                            try:
                                out[(field.value, "flags")] = list(ast.literal_eval(node.value))
                            except ValueError:
                                pass
                        else:
                            out[(field.value, key.value)] = node.value
        return out

    @staticmethod
    def apply(ov, name, kind):
        # A new type= converts the value; choices still bound it.
        if (name, "type") in ov and kind not in ("switch", "enum"):
            kind = type_kind(ov[(name, "type")])
        return kind

    def opt(self, names, kind, members, closed, neg):
        longs = [n for n in names if n.startswith("--")]
        return {
            "names": names,
            "kind": kind,
            "members": members,
            "closed": closed,
            "negated": ["--no-" + n[2:] for n in longs] if neg else [],
        }

    def add_argument(self, rel, call, kwdicts, overrides, local):
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not any(n.startswith("-") for n in names):
            return None
        kws = {k.arg: k.value for k in call.keywords if k.arg}
        kind, members, closed, neg = "string", None, None, False
        for k in call.keywords:
            if k.arg is None:
                v = k.value
                if isinstance(v, ast.Dict):
                    v = next((x for x, key in zip(v.values, v.keys) if key is None), v)
                if isinstance(v, ast.Subscript) and getattr(v.value, "id", None) in kwdicts:
                    field = v.slice.value if isinstance(v.slice, ast.Constant) else None
                    fr, item = self.tree.fields(*kwdicts[v.value.id]).get(field, (None, None))
                    if item is not None:
                        kind, members, closed, neg = from_field(self.tree, fr, item, self.str_opens, self.special)
                        kind = self.apply(overrides, field, kind)
                elif isinstance(v, ast.Name) and v.id in local:
                    # `x = kw["field"]` earlier in the function.
                    c, field = local[v.id]
                    fr, item = self.tree.fields(*c).get(field, (None, None))
                    if item is not None:
                        kind, members, closed, neg = from_field(self.tree, fr, item, self.str_opens, self.special)
                        kind = self.apply(overrides, field, kind)
        action = kws.get("action")
        aname = None
        if action is not None:
            aname = action.value if isinstance(action, ast.Constant) else ast.unparse(action).rsplit(".", 1)[-1]
        if "type" in kws:
            kind, neg = type_kind(kws["type"]), False
        if "choices" in kws:
            val = literal(self.tree, rel, kws["choices"])
            if isinstance(val, (list, tuple)):
                kind, members, closed = "enum", [str(x) for x in val], True
            else:
                kind, members, closed = "string", None, None
        if aname in SWITCH_ACTIONS:
            kind, members, closed, neg = "switch", None, None, False
        elif aname == "BooleanOptionalAction":
            kind, members, closed, neg = "switch", None, None, True
        elif aname in self.bool_actions:
            kind, members, closed, neg = "enum", ["false", "true"], True, False
        return self.opt(names, kind, members, closed, neg)


def knobs_side(cat):
    flags = cat.get("flag", [])
    return {f["name"]: f for f in flags}


def counts(opts):
    names = set(opts)
    longs, twins, shorts, enums = set(), set(), set(), 0
    for name, o in opts.items():
        all_names = [name] + o.get("aliases", [])
        longs.update(n for n in all_names if n.startswith("--"))
        longs.update(o.get("negated", []))
        twins.update(o.get("negated", []))
        shorts.update(n for n in all_names if n.startswith("-") and not n.startswith("--"))
        enums += 1 if o.get("members") else 0
    return {"options": len(names), "long spellings": len(longs), "--no- twins": len(twins),
            "short aliases": len(shorts), "enums with members": enums}, longs


def main():
    src, catalogue = sys.argv[1], sys.argv[2]
    tree = Tree(src)
    reader = Reader(tree)
    mine, scopes = {}, {}
    for scope, rel, names in ENTRIES:
        fn = None
        for nm in names:
            fn = next((n for r, n in tree.functions.get(nm, []) if r == rel), None)
            if fn is not None:
                break
        if fn is None:
            continue
        for o in reader.function(rel, fn, None, frozenset()):
            name = next((n for n in o["names"] if n.startswith("--")), o["names"][0])
            entry = mine.setdefault(name, {"aliases": [n for n in o["names"] if n != name],
                                           "kind": o["kind"], "members": o["members"],
                                           "closed": o["closed"], "negated": o["negated"]})
            scopes.setdefault(name, set()).add(scope)
    cat = tomllib.loads(pathlib.Path(catalogue).read_text())
    theirs = knobs_side(cat)
    # Env keys and metrics, read on their own.
    env = set()
    envs = tree.modules.get("vllm/envs.py")
    if envs:
        for node in envs.body:
            target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
            if getattr(target, "id", None) == "environment_variables" and isinstance(node.value, ast.Dict):
                env = {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    metrics = {}
    for rel in ("vllm/engine/metrics.py", "vllm/v1/metrics/loggers.py"):
        mod = tree.modules.get(rel)
        if not mod:
            continue
        for node in ast.walk(mod):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            fname = (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")).lower().strip("_")
            m = re.fullmatch(r"(counter|gauge|histogram|summary)(_cls)?", fname)
            if not m:
                continue
            nm = next((k.value for k in node.keywords if k.arg == "name"), node.args[0] if node.args else None)
            if isinstance(nm, ast.Constant) and isinstance(nm.value, str) and nm.value.startswith("vllm:"):
                name = nm.value
                if m.group(1) == "counter" and not name.endswith("_total"):
                    name += "_total"
                metrics.setdefault(name, m.group(1))
    knobs_env = {k["name"] for k in cat.get("env_key", [])}
    knobs_metrics = {m["name"]: m["type"] for m in cat.get("metric", [])}
    a, along = counts(mine)
    b, blong = counts(theirs)
    a["env keys"], b["env keys"] = len(env), len(knobs_env)
    a["metrics"], b["metrics"] = len(metrics), len(knobs_metrics)
    ok = True
    print(f"{'':22}{'ast':>8}{'knobs':>8}")
    for k in a:
        same = a[k] == b[k]
        ok &= same
        print(f"{k:22}{a[k]:>8}{b[k]:>8}  {'match' if same else 'DIFFER'}")
    for label, x, y in (("long spellings", along, blong), ("env keys", env, knobs_env),
                        ("metrics", set(metrics), set(knobs_metrics))):
        if x - y:
            print(f"  {label} only in the ast reading: {' '.join(sorted(x - y))}")
        if y - x:
            print(f"  {label} only in knobs: {' '.join(sorted(y - x))}")
    checked = kinds = memb = closed = scope_diff = 0
    for name in sorted(set(mine) & set(theirs)):
        m, t = mine[name], theirs[name]
        checked += 1
        if m["kind"] != t["kind"]:
            kinds += 1
            print(f"  kind of {name}: ast {m['kind']}, knobs {t['kind']}")
        tm = t.get("members") or None
        if sorted(set(m["members"] or [])) != sorted(set(tm or [])):
            memb += 1
            print(f"  members of {name}: ast {m['members']}, knobs {tm}")
        tc = t.get("members_from", {}).get("closed") if tm else None
        if m["members"] and tm and m["closed"] != tc:
            closed += 1
            print(f"  closed of {name}: ast {m['closed']}, knobs {tc}")
        if sorted(scopes.get(name, [])) != sorted(t.get("scopes", [])):
            scope_diff += 1
            print(f"  scopes of {name}: ast {sorted(scopes.get(name, []))}, knobs {t.get('scopes', [])}")
        for tw in m["negated"]:
            if tw not in t.get("negated", []):
                print(f"  twin {tw} only in the ast reading")
    ok &= not (kinds or memb or closed or scope_diff)
    for k in set(metrics) & set(knobs_metrics):
        if metrics[k] != knobs_metrics[k]:
            ok = False
            print(f"  type of {k}: ast {metrics[k]}, knobs {knobs_metrics[k]}")
    print(f"checked {checked} options: {kinds} kinds, {memb} member lists, {closed} closed flags, "
          f"{scope_diff} scope lists differ")
    sys.exit(0 if ok and along == blong and env == knobs_env and set(metrics) == set(knobs_metrics) else 1)


if __name__ == "__main__":
    main()
