#!/usr/bin/env python3
"""An oracle for llama.cpp's history that shares no code with knobs.

    scripts/llama_cpp_check.py LLAMA_GIT_DIR [TAG,TAG,...|--spread N] [--json OUT]
                               [--synced DIR] [--list]

For each tag it reads the C++ with regular expressions and brace matching
(never knobs, never its profile's eras) and lists, per binary built from
examples/ or tools/ (a `set(TARGET …)` in a CMakeLists.txt):

  * how the binary parses its argv: the common parser with an example
    scope (`common_params_parse(argc, argv, params, LLAMA_EXAMPLE_X, …)`,
    `gpt_params_parse(…)` before examples existed), a parser of its own
    (`server_params_parse`, or comparisons with `"--…"` literals in its own
    files), or none;
  * the options it accepts, each with its kind (switch, or how many words
    it takes) and, where the source lists them in an if-chain whose last
    `else` refuses (`invalid_param = true`, a throw), the member set.

The common options come from the era's shape: the parse chain of
common/common.cpp and common/log.h (`arg == "--x"`; a value when the branch
advances the index: `CHECK_ARG`, `++i`), or the `add_opt(llama_arg(…))` /
`add_opt(common_arg(…))` table (a value when the handler lambda takes one;
scopes from `.set_examples`, `.set_excludes`, the inheritance rule read from
`add_opt`'s own condition).

It then compares each binary's options with what knobs' embedded history
(catalog/llama.cpp/history.json) — or, with `--synced DIR`, the catalogues
`knobs sync --tag TAG --out DIR` wrote — and profile (profiles/llama.cpp.toml,
with its eras) say that binary accepts at that tag, and prints every
mismatch. `--list` prints the tags it would check (48 spread over every
era unless told), comma-separated.
"""
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def git(gitdir, *args):
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True, errors="replace")
    return r.stdout if r.returncode == 0 else None


# ---- reading C++ by text -------------------------------------------------

def blank_comments(src):
    """Comments replaced by spaces (strings kept), offsets unchanged."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1]); i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i); j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        else:
            out.append(c); i += 1
    return "".join(out)


def match(src, i, open_="(", close=")"):
    """The index after the bracket closing the one at `i` (strings skipped)."""
    depth, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            i += 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def split_top(s):
    """Comma-separated parts at bracket depth 0."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(s):
        c = s[i]
        if c == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i:j + 1]); i = j + 1; continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur)); cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return [p.strip() for p in parts]


LIT = r'"((?:[^"\\]|\\.)*)"'
REFUSES = re.compile(r"\bthrow\b|\binvalid_param\s*=\s*true|\bexit\s*\(|\babort\s*\(")


def value_chain(body):
    """Members of the first if/else-if chain in `body` comparing one subject
    with literals, when its last `else` refuses: (members, closed)."""
    for m in re.finditer(r"(?<!else )\bif\s*\(", body):
        words, subject, i = [], None, m.end() - 1
        ok = True
        while True:
            end = match(body, i)
            cond = body[i + 1:end - 1]
            for op in re.split(r"\|\|", cond):
                op = op.strip().strip("()").strip()
                a = re.fullmatch(r"(.+?)\s*==\s*" + LIT, op)
                b = re.fullmatch(r"!?\s*(?:std::)?str(?:case)?cmp\s*\(\s*(.+?)\s*,\s*" + LIT + r"\s*\)(?:\s*==\s*0)?", op)
                got = (a.group(1), a.group(2)) if a else (b.group(1), b.group(2)) if b else None
                if not got or (subject not in (None, got[0])) or (got[1].startswith("-") and len(got[1]) > 1):
                    ok = False
                    break
                subject = got[0]
                words.append(got[1])
            if not ok:
                break
            # the branch's body, then `else if` / `else`
            j = end
            while j < len(body) and body[j].isspace():
                j += 1
            if j < len(body) and body[j] == "{":
                j = match(body, j, "{", "}")
            else:
                j = body.find(";", j) + 1
            rest = body[j:]
            e = re.match(r"\s*else\s+if\s*\(", rest)
            if e:
                i = j + e.end() - 1
                continue
            e = re.match(r"\s*else\s*", rest)
            if e:
                k = j + e.end()
                tail = body[k:match(body, k, "{", "}")] if body[k:k + 1] == "{" else body[k:body.find(";", k) + 1]
                closed = bool(REFUSES.search(tail))
            else:
                closed = False
            uniq = list(dict.fromkeys(words))
            if closed and uniq:
                return uniq, True
            break
    return None


def chain_options(src, compare=r"\barg\b|\bparam\b"):
    """`if (arg == "-x" || arg == "--y") { body }` branches: spellings, the
    body, and the enclosing function's name."""
    out = []
    pat = re.compile(r"\bif\s*\(")
    for m in pat.finditer(src):
        end = match(src, m.end() - 1)
        cond = src[m.end():end - 1]
        names = re.findall(r"(?:" + compare + r")\s*==\s*" + LIT, cond)
        if not names or any(not n.startswith("-") for n in names):
            continue
        j = end
        while j < len(src) and src[j].isspace():
            j += 1
        if src[j:j + 1] != "{":
            continue
        body = src[j + 1:match(src, j, "{", "}") - 1]
        fn = [f for f in re.finditer(r"\n(?:inline\s+|static\s+)*(?:bool|void|int)\s+(\w+)\s*\(", src[:m.start()])]
        out.append((names, body, fn[-1].group(1) if fn else ""))
    return out


def chain_kind(body, fn):
    if "pair" in fn:  # log.h: log_param_pair_parse reads the next word
        return 1
    inner = re.split(r"\bif\s*\(\s*arg\s*==", body)[0]
    return 1 if re.search(r"CHECK_ARG|\+\+i\b|\bi\+\+|argv\[\+\+i\]", inner) else 0


def table_options(src):
    """`add_opt(common_arg(...)...)` entries of a table era."""
    out = []
    for m in re.finditer(r"\badd_opt\s*\(\s*(?:common_arg|llama_arg)\s*\(", src):
        end = match(src, m.end() - 1)
        call = src[m.end():end - 1]
        parts = split_top(call)
        lists = [p for p in parts if p.startswith("{")]
        names = re.findall(LIT, lists[0]) if lists else []
        negated = re.findall(LIT, lists[1]) if len(lists) > 1 and "[" not in lists[1] else []
        # the handler: `[](common_params & params, const std::string & value)`
        lam = re.search(r"\[[^\]\"]*\]\s*\(((?:const\s+)?\w+_params\s*&[^)]*)\)", call)
        params = [p for p in split_top(lam.group(1))] if lam else []
        takes = [p for p in params[1:] if p]
        if len(takes) == 1 and re.match(r"bool\b", takes[0]):
            kind = 0
        else:
            kind = len(takes)
        body = call[lam.end():] if lam else ""
        outer_end = match(src, m.start() + src[m.start():].index("("))
        tail = src[end:outer_end]
        ex = re.search(r"\.set_examples\s*\(\s*\{([^}]*)\}", tail)
        named = re.search(r"\.set_examples\s*\(\s*(\w+)\s*\)", tail)
        if not ex and named:  # a list held in a variable (`mmproj_examples`)
            ex = re.search(r"\b" + named.group(1) + r"\s*=\s*\{([^}]*)\}", src)
        exc = re.search(r"\.set_excludes\s*\(\s*\{([^}]*)\}", tail)
        env = re.search(r"\.set_env\s*\(\s*" + LIT, tail)
        out.append({
            "names": [n for n in names if n.startswith("-")], "negated": negated, "kind": kind,
            "examples": re.findall(r"\w+", ex.group(1)) if ex else ["LLAMA_EXAMPLE_COMMON"],
            "excludes": re.findall(r"\w+", exc.group(1)) if exc else [],
            "env": env.group(1) if env else None,
            "members": value_chain(body),
        })
    return out


class Tag:
    def __init__(self, gitdir, tag):
        self.gitdir, self.tag = gitdir, tag
        self.files = (git(gitdir, "ls-tree", "-r", "--name-only", tag) or "").split("\n")

    def show(self, path):
        t = git(self.gitdir, "show", f"{self.tag}:{path}")
        return blank_comments(t) if t is not None else None

    def binaries(self):
        """name → (parser, scope or None, own files)."""
        out = {}
        for f in self.files:
            if not re.match(r"(examples|tools)/.*CMakeLists\.txt$", f):
                continue
            d = f.rsplit("/", 1)[0]
            m = re.search(r"set\s*\(\s*TARGET\s+([\w-]+)", self.show(f) or "")
            if not m:
                continue
            cpps = [c for c in self.files if c.startswith(d + "/") and c.endswith(".cpp") and c.count("/") == d.count("/") + 1]
            texts = {c: self.show(c) or "" for c in cpps}
            parser = ("none", None)
            for c, t in texts.items():
                # b3687-b3715 passed the example to `gpt_params_parser_init`.
                p = re.search(r"\b(?:gpt|common)_params_parser_init\s*\(", t) or re.search(r"\b(?:gpt|common)_params_parse\s*\(", t)
                if p and not re.search(r"\bbool\s+(?:gpt|common)_params_parse", t):
                    args = split_top(t[p.end():match(t, p.end() - 1) - 1])
                    ex = [a for a in args if re.fullmatch(r"LLAMA_EXAMPLE_\w+", a)]
                    parser = ("common", ex[0] if ex else "LLAMA_EXAMPLE_COMMON")
                    break
                if re.search(r"\bserver_params_parse\s*\(", t):
                    parser = ("own", c)
                    break
            if parser[0] == "none":
                for c, t in texts.items():
                    if re.search(r"(?:==\s*|cmp\s*\([^,]*,\s*)\"--?[a-zA-Z]", t):
                        parser = ("own", c)
                        break
            out[m.group(1)] = parser
        return out

    def common(self):
        """The common options: spelling → (kind, members), with scopes."""
        arg = self.show("common/arg.cpp")
        src = arg if arg is not None else self.show("common/common.cpp") or ""
        opts = {}
        if re.search(r"add_opt\s*\(\s*(?:common_arg|llama_arg)\s*\(", src):
            inherit = re.search(r"inherit_common\s*=\s*ex\s*!=\s*(LLAMA_EXAMPLE_\w+)", src)
            for o in table_options(src):
                for s in o["names"] + o["negated"]:
                    kind = 0 if s in o["negated"] else o["kind"]
                    opts.setdefault(s, {"kind": kind, "members": o["members"], "examples": set(), "excludes": set()})
                    opts[s]["examples"] |= set(o["examples"])
                    opts[s]["excludes"] |= set(o["excludes"])
            return "table", opts, (inherit.group(1) if inherit else None)
        for path in ["common/common.cpp", "common/log.h"]:
            for names, body, fn in chain_options(self.show(path) or ""):
                for s in names:
                    opts.setdefault(s, {"kind": chain_kind(body, fn), "members": value_chain(body) if chain_kind(body, fn) else None,
                                        "examples": {"LLAMA_EXAMPLE_COMMON"}, "excludes": set()})
        return "chain", opts, None

    def own(self, path):
        src = self.show(path) or ""
        opts = {}
        for names, body, fn in chain_options(src, r"\barg\b"):
            for s in names:
                k = chain_kind(body, fn)
                opts.setdefault(s, {"kind": k, "members": value_chain(body) if k else None})
        for s in re.findall(r"(?:str(?:case)?cmp\s*\(\s*argv\[i\]\s*,\s*)" + LIT, src):
            if s.startswith("-"):
                opts.setdefault(s, {"kind": None, "members": None})
        return opts

    def accepted(self):
        """binary → {spelling: {kind, members}} as the source parses it."""
        shape, common, no_inherit = self.common()
        out = {}
        for b, (parser, how) in self.binaries().items():
            if parser == "common":
                acc = {}
                for s, o in common.items():
                    inherit = how != no_inherit
                    if (how in o["examples"] or (inherit and "LLAMA_EXAMPLE_COMMON" in o["examples"])) and how not in o["excludes"]:
                        acc[s] = o
                out[b] = ("common", how, acc)
            elif parser == "own":
                own = self.own(how)
                # A parser of its own that hands the words it does not know
                # to the common chain (`./retrieval`: `gpt_params_find_arg(argc,
                # argv, argv[i], …)`) also takes every common option.
                if shape == "chain" and re.search(r"\bgpt_params_find_arg\s*\(", self.show(how) or ""):
                    own = {**{s: o for s, o in common.items() if "LLAMA_EXAMPLE_COMMON" in o["examples"]}, **own}
                out[b] = ("own", how, own)
        return shape, out


# ---- knobs' side: the embedded history and the profile ------------------

class Knobs:
    def __init__(self, synced=None):
        self.h = json.loads((HERE / "catalog/llama.cpp/history.json").read_text())
        self.tags = {t["tag"]: t for t in self.h["tags"]}
        self.p = tomllib.loads((HERE / "profiles/llama.cpp.toml").read_text())
        self.synced = Path(synced) if synced else None

    def flags(self, tag):
        if self.synced:  # catalogues of `knobs sync --tag TAG --out DIR`
            return tomllib.loads((self.synced / "llama.cpp" / f"{tag}.toml").read_text()).get("flag", [])
        s = self.h["states"][self.tags[tag]["state"]]
        v = [int(x) for x in s["flags"].split(",")] if isinstance(s["flags"], str) else [x for r in s["flags"] for x in r]
        return [self.h["flags"][v[i]] for i in range(0, len(v), 3)]

    def era(self, tag):
        n = int(tag.lstrip("b"))
        for e in self.p.get("era", []):
            if n < int(e["until"].lstrip("b")):
                return e
        return None

    def command(self, name, tag):
        """(foreign, scope) of a binary as knobs runs it at `tag`, or None.
        An old name (`./main`) the era does not name: the binary the build
        calls it, or (older than every rename) every option."""
        e = self.era(tag)
        for c in (e or {}).get("command", []) + self.p["command"]:
            if c["name"] == name:
                return (c.get("foreign", False), c.get("scope"))
        hops = [r for r in self.p.get("renamed", []) if r["name"] == name and int(r["since"][1:]) <= int(tag[1:])]
        if hops:
            return self.command(max(hops, key=lambda r: int(r["since"][1:]))["to"], tag)
        if any(r["name"] == name for r in self.p.get("renamed", [])):
            return (False, None)
        return None

    def accepts(self, flag, scope, tag=None):
        if scope is None:
            return True
        common = self.p["scopes"]["common"]
        sc, ex = flag.get("scopes", []), flag.get("excludes", [])
        if scope in ex:
            return False
        era = self.era(tag) if tag else None
        if not sc and scope in (era or {}).get("not_inheriting", []):
            return True  # knobs: an era's non-inheriting scope refuses only what a catalogue scopes
        if not sc:
            sc = [common]
        if scope in sc:
            return True
        # The profile's scopes that do not inherit the common one, and the era's.
        no = self.p["scopes"].get("not_inheriting", []) + (era or {}).get("not_inheriting", [])
        return scope not in no and common in sc

    def accepted(self, tag, binary):
        c = self.command(binary, tag)
        if c is None:
            return None
        foreign, scope = c
        if foreign:
            return "foreign"
        acc = {}
        for f in self.flags(tag):
            if not self.accepts(f, scope, tag):
                continue
            values = 0 if f["kind"] == "switch" else (f.get("arity") or 1)
            m = f.get("members") or None
            closed = bool(f.get("members_from", {}) and f["members_from"].get("closed"))
            for s in [f["name"]] + f.get("aliases", []):
                acc[s] = {"kind": values, "members": (m, closed) if m else None}
            for s in f.get("negated", []):
                acc[s] = {"kind": 0, "members": None}
        return acc


# Tags on both sides of each change in how binaries parse their argv, found
# with `git log -S` and `git tag --contains` (the mirror's tags are sparse):
# the server's own parser gone (b3183), export-lora onto the common parser
# (b3450), the `llama_arg` table and example scopes (b3687), common/arg.cpp
# (b3716), mtmd-cli's scope (b5458), finetune's (b6173), the new llama-cli
# (b7356), tokenize onto the table (b10015).
EDGES = ["b2002", "b2400", "b2528", "b2710", "b2986", "b3040", "b3183", "b3442", "b3450", "b3687", "b3715",
         "b3716", "b5456", "b5458", "b6152", "b6173", "b7342", "b7356", "b10015"]


def spread(tags, n):
    tags = sorted(tags, key=lambda t: int(t.lstrip("b")))
    step = max(1, len(tags) // n)
    picked = set(tags[::step][:n]) | {tags[-1]} | {t for t in EDGES if t in tags}
    return sorted(picked, key=lambda t: int(t.lstrip("b")))


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    gitdir = args[0]
    knobs = Knobs(args[args.index("--synced") + 1] if "--synced" in args else None)
    all_tags = [t for t in (git(gitdir, "tag") or "").split() if re.fullmatch(r"b\d+", t) and t in knobs.tags]
    if len(args) > 2 and args[1] == "--spread":
        tags = spread(all_tags, int(args[2]))
    elif len(args) > 1 and not args[1].startswith("--"):
        tags = args[1].split(",")
    else:
        tags = spread(all_tags, 48)
    if "--list" in args:  # the tags alone, for a script that syncs them
        print(",".join(tags))
        return
    total = {"tags": 0, "binaries": 0, "options": 0, "missing": 0, "extra": 0, "kind": 0, "members": 0, "unjudged": 0, "judged_own": 0}
    report = []
    for tag in tags:
        t = Tag(gitdir, tag)
        shape, bins = t.accepted()
        total["tags"] += 1
        row = {"tag": tag, "shape": shape, "binaries": {}}
        for b, (parser, how, opts) in sorted(bins.items()):
            k = knobs.accepted(tag, b)
            entry = {"parser": parser, "scope": how, "options": len(opts)}
            if k is None:
                entry["knobs"] = "not a command"
            elif k == "foreign":
                entry["knobs"] = "foreign"
                if parser == "common":
                    entry["wrong"] = "knobs calls it foreign; it runs the common parser"
                total["unjudged"] += parser == "own"
            else:
                if parser == "own":
                    total["judged_own"] += 1
                total["binaries"] += 1
                total["options"] += len(opts)
                missing = sorted(s for s in opts if s not in k)
                extra = sorted(s for s in k if s not in opts)
                kinds = sorted(f"{s} (source {opts[s]['kind']}, knobs {k[s]['kind']})" for s in opts
                               if s in k and opts[s]["kind"] is not None and opts[s]["kind"] != k[s]["kind"])
                members = []
                for s in opts:
                    src_m = opts[s]["members"]
                    if s in k and src_m:
                        km = k[s]["members"]
                        if not km or set(km[0]) != set(src_m[0]) or not km[1]:
                            members.append(f"{s} (source {sorted(src_m[0])}, knobs {km and sorted(km[0])}{'' if km and km[1] else ' open'})")
                entry.update(missing=missing, extra=extra, kinds=kinds, members=sorted(members))
                total["missing"] += len(missing)
                total["extra"] += len(extra)
                total["kind"] += len(kinds)
                total["members"] += len(members)
            row["binaries"][b] = entry
        report.append(row)
        judged = [e for e in row["binaries"].values() if "missing" in e]
        print(f"{tag} [{shape}] binaries judged {len(judged)}, options {sum(e['options'] for e in judged)}, "
              f"missing {sum(len(e['missing']) for e in judged)}, extra {sum(len(e['extra']) for e in judged)}, "
              f"kinds {sum(len(e['kinds']) for e in judged)}, members {sum(len(e['members']) for e in judged)}")
    print("TOTAL", json.dumps(total))
    if "--json" in args:
        Path(args[args.index("--json") + 1]).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
