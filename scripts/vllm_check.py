#!/usr/bin/env python3
"""An independent reading of one vLLM tag, to check a knobs catalogue.

Reads the tag's Python (`git cat-file` of every `vllm/**.py` at TAG, never a
work tree) with Python's own `ast` module — not with knobs, and sharing no
code with knobs' extractor — and prints, for this reading and for the
catalogue side by side: options, long spellings, `--no-` twins, short
aliases, enums with members, env keys and metrics; then every option both
know, with its kind, `nargs` and members compared, and every name one side
has and the other has not. The binaries are read as the tag runs them: the
`vllm` console script's `serve` subcommand (setup.py / pyproject.toml), the
OpenAI server module (`python -m vllm.entrypoints.openai.api_server`, its
`__main__` block), `run-batch` and the benchmarks; each is compared with
the catalogue's scope. Last, the image: the `vllm-openai` stage's
ENTRYPOINT in the tag's Dockerfile against the image variant the profile
gives that tag (the command, and how a positional model word is taken).

    vllm_check.py VLLM_GIT_DIR TAG CATALOGUE.toml PROFILE.toml

The last line is `FIGURES tag=… compared=… missing=… extra=… kinds=…
nargs=… members=… entrypoint=same|DIFFERS|no-image`, read by scripts/vllm.sh.
Exit status: 0 when everything matches, 1 when something differs.
"""

import ast
import json
import re
import subprocess
import sys
import tomllib

# Which function builds each binary's parser (the profile says the same in
# its own words; these are read from vLLM's entrypoints).
ENTRIES = [
    ("run-batch", "vllm/entrypoints/openai/run_batch.py", ["make_arg_parser", "parse_args"]),
    ("bench-latency", "vllm/benchmarks/latency.py", ["add_cli_args"]),
    ("bench-throughput", "vllm/benchmarks/throughput.py", ["add_cli_args"]),
]
FOLLOW = {"add_cli_args", "make_arg_parser", "parse_args"}
SWITCH_ACTIONS = {"store_true", "store_false", "store_const", "count", "help", "version", "append_const"}
BUILTIN_SCALARS = {"bool", "int", "float", "str", "dict", "Dict"}
COLLECTIONS = {"list", "List", "tuple", "Tuple", "set", "Set", "Sequence", "frozenset"}


def git_texts(repo, tag):
    """The text of every `vllm/**.py` at TAG, and of its packaging and Docker files."""
    def git(*args, data=None):
        return subprocess.run(["git", f"--git-dir={repo}", *args], input=data, check=True,
                              capture_output=True).stdout
    names = git("ls-tree", "-r", "--name-only", tag).decode().splitlines()
    wanted = [n for n in names if (n.startswith("vllm/") and n.endswith(".py"))
              or n in ("setup.py", "pyproject.toml", "Dockerfile", "docker/Dockerfile")]
    data = git("cat-file", "--batch", data="".join(f"{tag}:{n}\n" for n in wanted).encode())
    out, pos = {}, 0
    for n in wanted:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        if len(header) < 3 or header[1] != b"blob":
            pos = nl + 1
            continue
        size = int(header[2])
        out[n] = data[nl + 1:nl + 1 + size].decode("utf-8", "replace")
        pos = nl + 1 + size + 1
    return out


class Tree:
    """Every module of the tag, parsed, and its top-level names."""

    def __init__(self, texts):
        self.texts = texts
        self.modules = {}
        for rel, text in sorted(texts.items()):
            if not (rel.startswith("vllm/") and rel.endswith(".py")):
                continue
            try:
                self.modules[rel] = ast.parse(text)
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
            # argparse's nargs as the builder gives it: a tuple of N (no
            # `...`) takes N words, any other collection one or more.
            fixed = head in ("tuple", "Tuple") and not any(
                isinstance(a, ast.Constant) and a.value is Ellipsis for a in args)
            out.append(("coll", inner, str(len(args)) if fixed else "+"))
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
        out.append(("coll", ["other"], "+"))
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


def from_field(tree, rel, item, str_opens, special=None, coll_nargs=True):
    """(kind, members, closed, negatable, nargs) as vLLM's get_kwargs makes them."""
    kind, members, closed, neg, nargs = _from_field(tree, rel, item, str_opens)
    if kind == "int" and special:
        kind = special.get(item.target.id, "int")
    return kind, members, closed, neg, nargs if coll_nargs else None


def _from_field(tree, rel, item, str_opens):
    hs = []
    hints(tree, rel, item.annotation, hs)
    lits = [h for h in hs if isinstance(h, tuple) and h[0] == "lit"]
    colls = [h for h in hs if isinstance(h, tuple) and h[0] == "coll"]
    members, closed, kind = None, None, "string"
    nargs = None
    if "config" in hs:
        kind = "string"
    elif "bool" in hs:
        return "switch", None, None, True, None
    elif lits:
        kind, members = "enum", [str(v) for v in lits[0][1]]
        closed = not ("str" in hs and str_opens)
    elif colls:
        inner, nargs = colls[0][1], colls[0][2]
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
    return kind, members, closed, False, nargs


def type_kind(node):
    text = ast.unparse(node)
    inner = text.rsplit("(", 1)[-1].rstrip(")").strip().rsplit(".", 1)[-1]
    return {"int": "int", "float": "float"}.get(inner, "string")


class Reader:
    """Options of the entry functions, read from the ast."""

    def __init__(self, tree, bool_actions=("StoreBoolean",)):
        self.tree = tree
        self.positionals = []
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
                    if isinstance(comp, ast.Name):
                        # `if name in human_readable_ints:` with the set bound in the function.
                        bound = [a.value for a in ast.walk(fn) if isinstance(a, ast.Assign)
                                 and any(getattr(t, "id", None) == comp.id for t in a.targets)]
                        comp = bound[0] if len(bound) == 1 else comp
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
        # Whether the tag's kwargs builder gives a collection field `nargs`.
        builder = "".join(ast.unparse(n) for f in ("get_kwargs", "_compute_kwargs", "collection_to_kwargs")
                          for _, n in tree.functions.get(f, []))
        self.coll_nargs = "nargs" in builder

    def function(self, rel, fn, cls, stack, receivers=None):
        """The options a function (or a block) declares. `receivers`: only
        `X.add_argument` calls on these names, and only calls handing one of
        them on, are read (a function that builds several parsers)."""
        if id(fn) in stack or len(stack) > 20:
            return []
        stack = stack | {id(fn)}
        opts, kwdicts, done = [], {}, set()
        args = getattr(fn, "args", None)
        params = {a.arg for a in args.args + args.kwonlyargs} - {"self", "cls"} if args else set()
        params |= {"parser"}
        if receivers is not None:
            params = set(receivers)
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
                        kind, members, closed, neg, nargs = from_field(
                            self.tree, fr, item, self.str_opens, self.special, self.coll_nargs)
                        kind = self.apply(ov, name, kind)
                        nargs = self.apply_nargs(ov, name, nargs)
                        act = ov.get((name, "action"))
                        if isinstance(act, ast.Constant) and act.value in SWITCH_ACTIONS:
                            kind, members, closed, neg = "switch", None, None, False
                        names = ["--" + name.replace("_", "-")] + ov.get((name, "flags"), [])
                        opts.append(self.opt(names, kind, members, closed, neg, nargs))
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
            if receivers is not None:
                on = getattr(f.value, "id", None) if isinstance(f, ast.Attribute) else None
                hands_on = any(isinstance(a, ast.Name) and a.id in params for a in node.args)
                if (fname == "add_argument" and on not in receivers) or (fname != "add_argument" and not hands_on):
                    continue
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
            # `del kw["f"]["nargs"]`: the key is gone.
            if isinstance(node, ast.Delete):
                for t in node.targets:
                    if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Subscript)
                            and isinstance(t.value.value, ast.Name)
                            and (kwdicts is None or t.value.value.id in kwdicts)
                            and isinstance(t.value.slice, ast.Constant) and isinstance(t.slice, ast.Constant)):
                        out[(t.value.slice.value, t.slice.value)] = None
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
        if ov.get((name, "type")) is not None and kind not in ("switch", "enum"):
            kind = type_kind(ov[(name, "type")])
        return kind

    @staticmethod
    def apply_nargs(ov, name, nargs):
        if (name, "nargs") in ov:
            v = ov[(name, "nargs")]
            return None if v is None else (literal_str(v) or nargs)
        return nargs

    def opt(self, names, kind, members, closed, neg, nargs=None):
        longs = [n for n in names if n.startswith("--")]
        if kind == "switch" or nargs in ("1", "None"):
            nargs = None
        return {
            "names": names,
            "nargs": nargs,
            "kind": kind,
            "members": members,
            "closed": closed,
            "negated": ["--no-" + n[2:] for n in longs] if neg else [],
        }

    def add_argument(self, rel, call, kwdicts, overrides, local):
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if names and not any(n.startswith("-") for n in names):
            # A positional word (`model_tag`): counted, not an option.
            nk = next((k.value for k in call.keywords if k.arg == "nargs"), None)
            self.positionals.append((names[0], literal_str(nk) if nk is not None else None))
            return None
        if not names:
            return None
        kws = {k.arg: k.value for k in call.keywords if k.arg}
        kind, members, closed, neg, nargs = "string", None, None, False, None
        for k in call.keywords:
            if k.arg is None:
                v = k.value
                if isinstance(v, ast.Dict):
                    v = next((x for x, key in zip(v.values, v.keys) if key is None), v)
                if isinstance(v, ast.Subscript) and getattr(v.value, "id", None) in kwdicts:
                    field = v.slice.value if isinstance(v.slice, ast.Constant) else None
                    fr, item = self.tree.fields(*kwdicts[v.value.id]).get(field, (None, None))
                    if item is not None:
                        kind, members, closed, neg, nargs = from_field(
                            self.tree, fr, item, self.str_opens, self.special, self.coll_nargs)
                        kind = self.apply(overrides, field, kind)
                        nargs = self.apply_nargs(overrides, field, nargs)
                elif isinstance(v, ast.Name) and v.id in local:
                    # `x = kw["field"]` earlier in the function.
                    c, field = local[v.id]
                    fr, item = self.tree.fields(*c).get(field, (None, None))
                    if item is not None:
                        kind, members, closed, neg, nargs = from_field(
                            self.tree, fr, item, self.str_opens, self.special, self.coll_nargs)
                        kind = self.apply(overrides, field, kind)
                        nargs = self.apply_nargs(overrides, field, nargs)
        action = kws.get("action")
        aname = None
        if action is not None:
            aname = action.value if isinstance(action, ast.Constant) else ast.unparse(action).rsplit(".", 1)[-1]
        if "type" in kws:
            kind, neg = type_kind(kws["type"]), False
        if "nargs" in kws:
            nargs = literal_str(kws["nargs"])
        if "choices" in kws:
            val = literal(self.tree, rel, kws["choices"])
            if isinstance(val, (list, tuple)):
                # argparse compares the converted word: a None choice admits none.
                kind, members, closed = "enum", [str(x) for x in val if x is not None], True
            else:
                kind, members, closed = "string", None, None
        if aname in SWITCH_ACTIONS:
            kind, members, closed, neg = "switch", None, None, False
        elif aname == "BooleanOptionalAction":
            kind, members, closed, neg = "switch", None, None, True
        elif aname in self.bool_actions:
            kind, members, closed, neg = "enum", ["false", "true"], True, False
        if aname in ("store_true", "store_false", "store_const", "count", "help", "version", "append_const"):
            nargs = None
        return self.opt(names, kind, members, closed, neg, nargs)


def literal_str(node):
    try:
        v = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return None
    return None if v is None else str(v)




API_SERVER = "vllm/entrypoints/openai/api_server.py"
API_MODULE = "python3 -m vllm.entrypoints.openai.api_server"


def top_function(tree, rel, names):
    for nm in names:
        fn = next((n for r, n in tree.functions.get(nm, []) if r == rel), None)
        if fn is not None:
            return fn
    return None


def main_block(tree, rel):
    """A module's `if __name__ == "__main__":` body, as a module of its own."""
    mod = tree.modules.get(rel)
    for node in mod.body if mod else []:
        if isinstance(node, ast.If):
            test = ast.unparse(node.test).replace("'", '"')
            if test in ('__name__ == "__main__"', '"__main__" == __name__'):
                return ast.Module(body=node.body, type_ignores=[])
    return None


def console_script(texts):
    """The `vllm` console script's module, from setup.py or pyproject.toml."""
    for f in ("pyproject.toml", "setup.py"):
        m = re.search(r'\bvllm\s*=\s*"?(vllm[\w.]*):(\w+)', texts.get(f, ""))
        if m:
            return m.group(1).replace(".", "/") + ".py"
    return None


def serve_parser_function(tree, texts):
    """(module, function, receivers) where `vllm serve`'s subparser is made:
    `X = subparsers.add_parser("serve", ...)` (or `add_parser(self.name)` in
    the CLI's serve module) in the console script's module or the CLI
    package. None when the tag has no `vllm` console script."""
    script = console_script(texts)
    if script is None:
        return None
    rels = [script] + sorted(r for r in tree.modules if r.startswith("vllm/entrypoints/cli/"))
    for rel in rels:
        mod = tree.modules.get(rel)
        for fn in ast.walk(mod) if mod else []:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            recv = set()
            for node in ast.walk(fn):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                        and getattr(node.value.func, "attr", "") == "add_parser" and node.value.args:
                    first = node.value.args[0]
                    serve = (isinstance(first, ast.Constant) and first.value == "serve") or (
                        rel.endswith("/cli/serve.py") and ast.unparse(first) == "self.name")
                    if serve and isinstance(node.targets[0], ast.Name):
                        recv.add(node.targets[0].id)
            if recv:
                return rel, fn, recv
    return None


def read_binary(reader, rel, fn, receivers=None):
    reader.positionals = []
    opts = reader.function(rel, fn, None, frozenset(), receivers)
    return opts, list(reader.positionals)


def binaries(tree, reader, texts):
    """(label, scope, options, positionals, copies the positional to --model)."""
    out = []
    found = serve_parser_function(tree, texts)
    if found:
        rel, fn, recv = found
        opts, pos = read_binary(reader, rel, fn, recv)
        copies = bool(re.search(r"\bmodel\s*=\s*args\.model_tag", texts.get(rel, "")))
        out.append(("vllm serve", "vllm-serve", opts, pos, copies))
    block = main_block(tree, API_SERVER)
    if block is not None:
        opts, pos = read_binary(reader, API_SERVER, block)
        copies = bool(re.search(r"\bmodel\s*=\s*args\.model_tag", texts.get(API_SERVER, "")))
        out.append(("api_server module", "serve", opts, pos, copies))
    for scope, rel, names in ENTRIES:
        fn = top_function(tree, rel, names)
        if fn is not None:
            opts, pos = read_binary(reader, rel, fn)
            out.append((f"vllm {scope}", scope, opts, pos, False))
    return out


def tag_key(t):
    m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?(?:rc(\d+)|\.post(\d+))?", t)
    if not m:
        return None
    a, b, c, d, rc, post = m.groups()
    pre = (-1, int(rc)) if rc else ((1, int(post)) if post else (0, 0))
    return (int(a), int(b), int(c), int(d or 0), pre)


def image_entrypoint(texts):
    """The `vllm-openai` stage's ENTRYPOINT (words), following the stage it is built FROM."""
    text = texts.get("docker/Dockerfile") or texts.get("Dockerfile")
    if text is None:
        return None
    stages, cur = {}, None
    for line in text.replace("\\\n", " ").splitlines():
        m = re.match(r"\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", line, re.I)
        if m:
            cur = (m.group(2) or m.group(1)).lower()
            stages[cur] = {"base": m.group(1).lower(), "entry": None}
            continue
        m = re.match(r"\s*ENTRYPOINT\s+(.*)", line, re.I)
        if m and cur:
            v = m.group(1).strip()
            try:
                stages[cur]["entry"] = json.loads(v) if v.startswith("[") else v.split()
            except ValueError:
                stages[cur]["entry"] = v.split()
    name, seen = "vllm-openai", set()
    while name in stages and name not in seen:
        seen.add(name)
        if stages[name]["entry"] is not None:
            return stages[name]["entry"]
        name = stages[name]["base"]
    return [] if "vllm-openai" in stages else None


def profile_variant(profile, tag):
    key = tag_key(tag)
    for v in profile.get("images", {}).get("variant", []):
        if not re.search(v.get("tag", "."), tag):
            continue
        until = v.get("until")
        if until and key is not None and tag_key(until) is not None and not key < tag_key(until):
            continue
        return v
    return None


def check_image(tag, texts, profile, bins):
    """Prints the image's entrypoint against the profile; 'same', 'DIFFERS' or 'no-image'."""
    words = image_entrypoint(texts)
    if words is None:
        print(f"image: no vllm-openai stage in the tag's Dockerfile")
        return "no-image"
    cmd = " ".join(words)
    variant = profile_variant(profile, tag)
    if variant is None:
        print(f"image: ENTRYPOINT `{cmd}`; the profile has no variant for {tag}: DIFFER")
        return "DIFFERS"
    want = variant.get("command", "")
    ok = cmd == want
    # How the entrypoint takes a positional word: refused, parsed and
    # ignored, or the model.
    label = "api_server module" if cmd == API_MODULE else "vllm serve"
    b = next((x for x in bins if x[0] == label), None)
    src = "refused"
    if b and b[3]:
        src = "the model" if b[4] else "ignored"
    limits = profile.get("argv", {}).get("positional_limits", {})
    n = variant.get("positionals", limits.get(want, limits.get(want.split()[-1], 1)))
    prof = "the model" if n else ("ignored" if variant.get("ignored_positional") else "refused")
    ok &= src == prof
    print(f"image: ENTRYPOINT `{cmd}`, a positional word {src}; the profile's variant: `{want}`, "
          f"a positional word {prof}: {'match' if ok else 'DIFFER'}")
    return "same" if ok else "DIFFERS"


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


def env_and_metrics(tree):
    env = set()
    envs = tree.modules.get("vllm/envs.py")
    if envs:
        for node in envs.body:
            target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
            if getattr(target, "id", None) == "environment_variables" and isinstance(node.value, ast.Dict):
                env = {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    metrics = {}
    for rel in sorted(r for r, t in tree.texts.items() if r.startswith("vllm/") and r.endswith(".py") and "vllm:" in t):
        mod = tree.modules.get(rel)
        if not mod:
            continue
        # `name = "vllm:x"` then `Gauge(name=name, ...)`: a name bound once in the module.
        bound = {}
        for a in ast.walk(mod):
            if isinstance(a, ast.Assign) and isinstance(a.value, ast.Constant) and isinstance(a.value.value, str):
                for t in a.targets:
                    if isinstance(t, ast.Name):
                        bound.setdefault(t.id, []).append(a.value)
        for node in ast.walk(mod):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            fname = (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")).lower().strip("_")
            m = re.fullmatch(r"(counter|gauge|histogram|summary|info)(_cls)?", fname)
            if not m:
                continue
            nm = next((k.value for k in node.keywords if k.arg == "name"), node.args[0] if node.args else None)
            if isinstance(nm, ast.Name) and len(bound.get(nm.id, [])) == 1:
                nm = bound[nm.id][0]
            if isinstance(nm, ast.Constant) and isinstance(nm.value, str) and nm.value.startswith("vllm:"):
                name = nm.value
                if m.group(1) == "counter" and not name.endswith("_total"):
                    name += "_total"
                # prometheus_client exports an Info as NAME_info.
                if m.group(1) == "info":
                    name += "_info"
                metrics.setdefault(name, m.group(1))
    return env, metrics


def knobs_nargs(t):
    if t.get("kind") == "switch":
        return None
    if t.get("nargs"):
        return t["nargs"]
    return str(t["arity"]) if t.get("arity") else None


def main():
    repo, tag, catalogue, profile_path = sys.argv[1:5]
    texts = git_texts(repo, tag)
    tree = Tree(texts)
    reader = Reader(tree)
    profile = tomllib.loads(open(profile_path, encoding="utf-8").read())
    argv_config = profile.get("argv", {}).get("config")
    bins = binaries(tree, reader, texts)
    mine, scopes = {}, {}
    per_bin = []
    for label, scope, opts, _, _ in bins:
        names = {}
        for o in opts:
            name = next((n for n in o["names"] if n.startswith("--")), o["names"][0])
            names.setdefault(name, o)
            mine.setdefault(name, {"aliases": [n for n in o["names"] if n != name], "kind": o["kind"],
                                   "members": o["members"], "closed": o["closed"],
                                   "negated": o["negated"], "nargs": o["nargs"]})
            scopes.setdefault(name, set()).add(scope)
        per_bin.append((label, scope, names))
    cat = tomllib.loads(open(catalogue, encoding="utf-8").read())
    theirs = {f["name"]: f for f in cat.get("flag", [])}
    # `--config FILE`: read where a binary declares it, and by every binary
    # where FlexibleArgumentParser.parse_args pulls it out of argv (`if
    # '--config' in args:`), which every parser of those tags is. knobs
    # accepts it only as a catalogue option, like any other.
    if argv_config:
        flexible = any(argv_config in ast.unparse(fn) for _, c in tree.classes.get("FlexibleArgumentParser", [])
                       for fn in c.body if isinstance(fn, ast.FunctionDef) and fn.name == "parse_args")
        declared = [l for l, _, n in per_bin if argv_config in n]
        where = "FlexibleArgumentParser.parse_args, for every binary" if flexible else (", ".join(declared) or "no parser")
        print(f"argv: {argv_config} FILE read by {where}")
        if flexible:
            opt = {"aliases": [], "kind": "string", "members": None, "closed": None, "negated": [], "nargs": None}
            for label, scope, n in per_bin:
                n.setdefault(argv_config, opt)
                scopes.setdefault(argv_config, set()).add(scope)
            mine.setdefault(argv_config, opt)
    env, metrics = env_and_metrics(tree)
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
    # Each binary against the options its scope accepts in the catalogue:
    # those scoped to it, or to a scope the profile says it includes.
    includes = profile.get("scopes", {}).get("includes", {})

    def accepted(f, scope):
        return any(s == scope or s in includes.get(scope, []) for s in f.get("scopes", []))

    missing, extra = 0, 0
    for label, scope, names in per_bin:
        k = {n for n, f in theirs.items() if accepted(f, scope)}
        miss, ext = sorted(set(names) - k), sorted(k - set(names))
        missing += len(miss)
        extra += len(ext)
        print(f"binary {label} (scope {scope}): {len(names)} options, {len(miss)} missing from knobs, "
              f"{len(ext)} only in knobs")
        if miss:
            print(f"  missing: {' '.join(miss)}")
        if ext:
            print(f"  only in knobs: {' '.join(ext)}")
    checked = kinds = memb = closed = scope_diff = nargs = 0
    for name in sorted(set(mine) & set(theirs)):
        m, t = mine[name], theirs[name]
        checked += 1
        if m["kind"] != t["kind"]:
            kinds += 1
            print(f"  kind of {name}: ast {m['kind']}, knobs {t['kind']}")
        if m["nargs"] != knobs_nargs(t):
            nargs += 1
            print(f"  nargs of {name}: ast {m['nargs']}, knobs {knobs_nargs(t)}")
        tm = t.get("members") or None
        if sorted(set(m["members"] or [])) != sorted(set(tm or [])):
            memb += 1
            print(f"  members of {name}: ast {m['members']}, knobs {tm}")
        tc = t.get("members_from", {}).get("closed") if tm else None
        if m["members"] and tm and m["closed"] != tc:
            closed += 1
            print(f"  closed of {name}: ast {m['closed']}, knobs {tc}")
        # The binaries that take it, by each side's reading.
        theirs_in = sorted({sc for _, sc, _ in per_bin if accepted(t, sc)})
        if sorted(scopes.get(name, [])) != theirs_in:
            scope_diff += 1
            print(f"  scopes of {name}: ast {sorted(scopes.get(name, []))}, knobs {theirs_in}")
        for tw in m["negated"]:
            if tw not in t.get("negated", []):
                print(f"  twin {tw} only in the ast reading")
    ok &= not (kinds or memb or closed or scope_diff or nargs or missing or extra)
    for k in set(metrics) & set(knobs_metrics):
        if metrics[k] != knobs_metrics[k]:
            ok = False
            print(f"  type of {k}: ast {metrics[k]}, knobs {knobs_metrics[k]}")
    print(f"checked {checked} options: {kinds} kinds, {nargs} nargs, {memb} member lists, {closed} closed flags, "
          f"{scope_diff} scope lists differ")
    image = check_image(tag, texts, profile, bins)
    ok &= image != "DIFFERS"
    print(f"FIGURES tag={tag} compared={checked} missing={missing} extra={extra} kinds={kinds} nargs={nargs} "
          f"members={memb + closed} entrypoint={image}")
    sys.exit(0 if ok and along == blong and env == knobs_env and set(metrics) == set(knobs_metrics) else 1)


if __name__ == "__main__":
    main()
