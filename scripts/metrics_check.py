#!/usr/bin/env python3
"""Each build's metric set read without knobs, compared with knobs' own.

    scripts/metrics_check.py vllm VLLM_GIT_DIR [TAGS...]
    scripts/metrics_check.py llama.cpp LLAMA_CPP_GIT_DIR [TAGS...]
    scripts/metrics_check.py --embedded llama.cpp LLAMA_CPP_GIT_DIR [TAGS...]

The independent reading (no knobs code; git and Python's ast or regular
expressions only):

* vLLM: every ``.py`` file under ``vllm/`` at the tag, parsed with ``ast``.
  A registration is a call whose callee's last name is ``Counter``,
  ``Gauge``, ``Histogram``, ``Summary`` or ``Info`` (or ``_counter_cls`` and
  the like: prometheus_client classes held in attributes) with a ``vllm:``
  name, given as a literal, or as a local name assigned literals in the
  function. prometheus_client appends ``_total`` to a counter and ``_info``
  to an Info. Labels are ``labelnames=`` when a list of literals (also
  through a local name, and ``a + [...]``); ``?`` when only known at run
  time. A call under ``if ...show_hidden_metrics...`` is hidden (a name
  registered twice, by two engines' loggers, only when both calls are).
* llama.cpp: the server's C++ (``tools/server/`` or ``examples/server/``)
  read with regular expressions: the JSON table keyed by type
  (``{"counter", {{ {"name", "prompt_tokens_total"}, ...``), the
  ``std::vector<...> counters = {{"name", "help", value}, ...}`` tables, and
  exposition written by hand (``# TYPE llamacpp:x counter``,
  ``llamacpp:x{label="``).

knobs' reading is ``knobs sync --tag TAG`` (``$KNOBS``, else the debug
binary ``scripts/target-dir.sh`` names); with ``--embedded``, ``knobs
catalog show TAG`` from the history knobs embeds. Prints, per tag, both counts, the
names both read with the same type and labels, and every difference; exit
1 when a tag differs.
"""

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, check=True).stdout


def files(repo, tag, folders, exts):
    out = []
    for folder in folders:
        try:
            listing = git(repo, "ls-tree", "-r", "--name-only", tag, "--", folder).decode()
        except subprocess.CalledProcessError:
            continue
        out += [p for p in listing.splitlines() if p.endswith(exts)]
    return out


def show(repo, tag, path):
    try:
        return git(repo, "show", f"{tag}:{path}").decode("utf-8", "replace")
    except subprocess.CalledProcessError:
        return ""


# ---------------------------------------------------------------- vLLM

KINDS = {"counter": "counter", "gauge": "gauge", "histogram": "histogram", "summary": "summary", "info": "info"}


def callee_kind(func):
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    name = name.lower().lstrip("_")
    if name.endswith("_cls"):
        name = name[: -len("_cls")]
    return KINDS.get(name)


def local_values(func):
    """Every literal value a local name is assigned in a function."""
    found = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
    return found


def literal(node, local, depth=0):
    if depth > 8 or node is None:
        return None
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List) or isinstance(node, ast.Tuple):
        vals = [literal(e, local, depth + 1) for e in node.elts]
        return None if any(v is None for v in vals) else list(vals)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = literal(node.left, local, depth + 1), literal(node.right, local, depth + 1)
        if type(a) is type(b) and a is not None:
            return a + b
        return None
    if isinstance(node, ast.Name):
        vals = [literal(v, local, depth + 1) for v in local.get(node.id, [])]
        vals = [v for v in vals if v is not None]
        return vals[0] if len(vals) == 1 else None
    return None


def names_of(node, local):
    """The literal names a `name=` argument may hold."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return [v.value for v in local.get(node.id, []) if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    v = literal(node, local)
    return [v] if isinstance(v, str) else []


def vllm_metrics(repo, tag):
    out = {}
    for path in files(repo, tag, ["vllm/"], (".py",)):
        text = show(repo, tag, path)
        if "vllm:" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        # Each call with the function it sits in and the `if` tests above it.
        stack = [(tree, None, ())]
        while stack:
            node, func, tests = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                func = node
            if isinstance(node, ast.Call):
                kind = callee_kind(node.func)
                if kind:
                    local = local_values(func) if func else {}
                    kw = {k.arg: k.value for k in node.keywords if k.arg}
                    name_node = kw.get("name", node.args[0] if node.args else None)
                    labels = kw.get("labelnames")
                    labels = [] if labels is None else literal(labels, local)
                    for name in names_of(name_node, local) if name_node is not None else []:
                        if not name.startswith("vllm:"):
                            continue
                        if kind == "counter" and not name.endswith("_total"):
                            name += "_total"
                        if kind == "info" and not name.endswith("_info"):
                            name += "_info"
                        hidden = any("show_hidden_metrics" in ast.unparse(t) for t in tests)
                        labels_out = "?" if labels is None else ",".join(map(str, labels))
                        # Registered twice (two engines' loggers): the
                        # first is kept, hidden only if both are.
                        if name in out:
                            k, l, h, p = out[name]
                            out[name] = (k, l, h and hidden, p)
                        else:
                            out[name] = (kind, labels_out, hidden, path)
            for child in ast.iter_child_nodes(node):
                child_tests = tests
                if isinstance(node, ast.If) and child in node.body:
                    child_tests = tests + (node.test,)
                stack.append((child, func, child_tests))
    return out


# ---------------------------------------------------------------- llama.cpp

TYPE_LINE = re.compile(r"# TYPE (llamacpp:[A-Za-z0-9_:]+) (counter|gauge|histogram|summary)")
LABELLED = re.compile(r'"(llamacpp:[A-Za-z0-9_:]+)\{([A-Za-z_][A-Za-z0-9_]*)=')
JSON_TYPE = re.compile(r'\{\s*"(counter|gauge|histogram|summary)"\s*,\s*\{')
JSON_NAME = re.compile(r'\{\s*"name"\s*,\s*"([a-z0-9_]+)"\s*\}')
VECTOR = re.compile(r"std::vector<[^>]*>\s+(\w+)\s*=\s*\{(.*?)\n\s*\};", re.S)
ROW = re.compile(r'\{\s*"([a-z0-9_]+)"\s*,\s*"')


def llama_metrics(repo, tag):
    out = {}
    for path in files(repo, tag, ["tools/server/", "examples/server/"], (".cpp", ".h", ".hpp")):
        text = show(repo, tag, path)
        if "llamacpp:" not in text:
            continue
        # The JSON table: names under the last type key seen.
        start = text.find("all_metrics_def")
        if start >= 0:
            end = text.find("};", start)
            body = text[start:end]
            marks = [(m.start(), m.group(1)) for m in JSON_TYPE.finditer(body)]
            for m in JSON_NAME.finditer(body):
                kind = [k for at, k in marks if at < m.start()]
                if kind:
                    out.setdefault("llamacpp:" + m.group(1), [kind[-1], ""])
        # Vectors named by type.
        for m in VECTOR.finditer(text):
            var = m.group(1).lower()
            kind = next((k for k in ("counter", "gauge", "histogram", "summary") if k in var), None)
            if kind:
                for row in ROW.finditer(m.group(2)):
                    out.setdefault("llamacpp:" + row.group(1), [kind, ""])
        for m in TYPE_LINE.finditer(text):
            out.setdefault(m.group(1), [m.group(2), ""])
        for m in LABELLED.finditer(text):
            entry = out.setdefault(m.group(1), ["untyped", ""])
            entry[1] = m.group(2)
    return {n: (k, labels, False, "") for n, (k, labels) in out.items()}


# ---------------------------------------------------------------- knobs


def knobs_metrics(engine, repo, tag, scratch, embedded):
    knobs = os.environ.get("KNOBS") or os.path.join(
        subprocess.run(["bash", os.path.join(HERE, "scripts/target-dir.sh")], capture_output=True, text=True).stdout.strip(),
        "debug",
        "knobs",
    )
    if embedded:
        # The history knobs embeds, read from an empty folder (no knobs.toml).
        r = subprocess.run(
            [knobs, "catalog", "show", tag, "--engine", engine, "--format", "json"],
            capture_output=True,
            text=True,
            cwd=scratch,
        )
        if r.returncode != 0:
            sys.exit(f"knobs catalog show {tag}: {r.stderr}")
        cat = json.loads(r.stdout)
    else:
        r = subprocess.run(
            [knobs, "sync", "--engine", engine, "--repo", repo, "--tag", tag, "--out", scratch],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            sys.exit(f"knobs sync {tag}: {r.stderr}")
        with open(os.path.join(scratch, engine, f"{tag}.toml"), "rb") as f:
            cat = tomllib.load(f)
    out = {}
    for m in cat.get("metric", []):
        labels = ",".join(m.get("labels", []))
        out[m["name"]] = (m["type"], labels, m.get("shown_by", "").startswith("--show-hidden-metrics"), m.get("location", ""))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    args = sys.argv[1:]
    embedded = "--embedded" in args
    args = [a for a in args if a != "--embedded"]
    engine, repo, tags = args[0], os.path.abspath(args[1]), args[2:]
    read = {"vllm": vllm_metrics, "llama.cpp": llama_metrics}[engine]
    status = 0
    with tempfile.TemporaryDirectory() as scratch:
        print(f"{'tag':<10} {'script':>6} {'knobs':>6} {'same':>5}  differences")
        for tag in tags:
            mine, theirs = read(repo, tag), knobs_metrics(engine, repo, tag, scratch, embedded)
            same = 0
            diffs = []
            for name in sorted(set(mine) | set(theirs)):
                a, b = mine.get(name), theirs.get(name)
                if a is None:
                    diffs.append(f"only knobs: {name} ({b[3]})")
                elif b is None:
                    diffs.append(f"only script: {name} ({a[3]})")
                else:
                    # Labels the script cannot settle (`?`) are not compared;
                    # an untyped C++ name neither.
                    labels_ok = a[1] == "?" or a[1] == b[1]
                    kind_ok = a[0] == b[0] or "untyped" in (a[0], b[0])
                    hidden_ok = engine != "vllm" or a[2] == b[2]
                    if labels_ok and kind_ok and hidden_ok:
                        same += 1
                    else:
                        diffs.append(f"{name}: script {a[:3]} knobs {b[:3]}")
            hidden = sum(1 for v in mine.values() if v[2])
            note = f" ({hidden} hidden)" if hidden else ""
            print(f"{tag:<10} {len(mine):>6} {len(theirs):>6} {same:>5}{note}  {'; '.join(diffs) or '-'}")
            if diffs:
                status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
