#!/usr/bin/env python3
"""An independent reading of one Ollama tag, to check a knobs catalogue.

Reads the tag's Go files straight from a git repository (`git ls-tree`,
`git show TAG:PATH`) with regular expressions — not with knobs, and
sharing no code with knobs' Go reader — and compares with the catalogue's
env keys: their names, then the kind of each key both sides hold.

What counts as a key the engine reads:
  * in the env configuration package (`envconfig/`, `server/envconfig/`),
    the literal first argument of every call of a reader: `os.Getenv`,
    `os.LookupEnv`, `clean`, `Var`, `Bool`, `BoolWithDefault`, `String`,
    `Uint`, `Uint64`;
  * anywhere else (every non-test `.go` file), the same calls with a key
    starting `OLLAMA_`;
  * a call given a name the same file binds once to a literal
    (`const baseEnv = "OLLAMA_X"` … `Var(baseEnv)`) reads that key.
A key's kind: `bool` for `Bool`/`BoolWithDefault`, `uint` for `Uint`/
`Uint64`; otherwise the parse functions (strconv.ParseBool, Atoi,
ParseInt, ParseUint, ParseFloat, time.ParseDuration) its value is given
to, directly or through the variable it is assigned to, up to the end of
the function; several kinds are joined with `|` (`duration|int`).

Flags: in every non-test `.go` file under `cmd/`, each call
`X.Flags().T("name", …)` or `X.PersistentFlags().T(…)` (T a pflag type
method: `String`, `BoolP`, `IntVar`…), and in a `package main` file
`flag.T("name", …)`; compared by name.

    ollama_check.py GIT_DIR TAG CATALOGUE.toml [--quiet]

Prints the figures on one line: keys found by the script, by knobs, the
same, and kinds that agree; then every difference. Exit status 0 when the
key sets and kinds agree, 1 otherwise.
"""

import re
import subprocess
import sys
import tomllib

READERS = ["os.Getenv", "os.LookupEnv", "clean", "Var", "Bool", "BoolWithDefault", "String", "Uint", "Uint64"]
TYPED = {"Bool": "bool", "BoolWithDefault": "bool", "Uint": "uint", "Uint64": "uint"}
PARSERS = {
    "strconv.ParseBool": "bool",
    "strconv.Atoi": "int",
    "strconv.ParseInt": "int",
    "strconv.ParseUint": "uint",
    "strconv.ParseFloat": "float",
    "time.ParseDuration": "duration",
}
ENV_DIRS = ("envconfig/", "server/envconfig/")

# A reader call: an optional package qualifier, the reader, a literal key.
CALL = re.compile(
    r'(?<![\w.])((?:\w+\.)?(?:' + "|".join(re.escape(r.split(".")[-1]) for r in READERS) + r'))\(\s*"([A-Za-z_][A-Za-z0-9_]*)"'
)


# The same call given a name, and a name bound to a literal.
CALL_NAME = re.compile(
    r'(?<![\w.])((?:\w+\.)?(?:' + "|".join(re.escape(r.split(".")[-1]) for r in READERS) + r'))\(\s*([A-Za-z_]\w*)\s*\)'
)
BIND = re.compile(r'^\s*(?:(?:const|var)\s+)?([A-Za-z_]\w*)\s*(?:string\s*)?=\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*$', re.M)


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True, check=True).stdout


def go_files(repo, tag):
    names = git(repo, "ls-tree", "-r", "--name-only", tag).decode().splitlines()
    return [n for n in names if n.endswith(".go") and not n.endswith("_test.go")]


def reader_of(callee):
    """The reader a written callee is, or None (`envconfig.Bool` is `Bool`;
    `os.Getenv` must be written whole)."""
    for r in READERS:
        if "." in r:
            if callee == r:
                return r
        elif callee == r or callee.endswith("." + r):
            return r
    return None


def function_end(text, at):
    """Where the function holding `at` ends: the next `}` at column 0."""
    m = re.compile(r"^}", re.M).search(text, at)
    return m.start() if m else len(text)


def kinds_of(text, start, end, reader):
    """The kinds the read at text[start:end] is parsed as."""
    if reader in TYPED:
        return {TYPED[reader]}
    kinds = set()
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    # Direct: PARSER(READ or PARSER(wrapper(READ.
    for p, k in PARSERS.items():
        if re.search(re.escape(p) + r"\(\s*(?:[\w.]+\(\s*)*$", before):
            kinds.add(k)
    if kinds:
        return kinds
    # Through a variable: `name := ...READ`, `name = ...READ`, `var name = ...READ`.
    m = re.search(r"(?:var\s+)?(\w+)(?:\s*,\s*\w+)?\s*:?=\s*(?:[\w.]+\(\s*)*$", before)
    if not m or m.group(1) == "_":
        return kinds
    name = m.group(1)
    rest = text[end:function_end(text, end)]
    for p, k in PARSERS.items():
        if re.search(re.escape(p) + r"\(\s*" + re.escape(name) + r"\b", rest):
            kinds.add(k)
    return kinds


def read_tag(repo, tag):
    keys = {}
    for path in go_files(repo, tag):
        in_env = path.startswith(ENV_DIRS)
        text = git(repo, "show", f"{tag}:{path}").decode("utf-8", "replace")
        if not in_env and "OLLAMA_" not in text:
            continue
        bound = {}
        for b in BIND.finditer(text):
            bound[b.group(1)] = None if b.group(1) in bound else b.group(2)
        found = [(m, m.group(2)) for m in CALL.finditer(text)]
        found += [(m, bound.get(m.group(2))) for m in CALL_NAME.finditer(text)]
        for m, key in found:
            reader = reader_of(m.group(1))
            if key is None:
                continue
            if reader is None or (not in_env and not key.startswith("OLLAMA_")):
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1
            if "//" in text[line_start:m.start()]:
                continue
            keys.setdefault(key, set()).update(kinds_of(text, m.start(), m.end(), reader))
    return {k: "|".join(sorted(v)) for k, v in keys.items()}


TYPES = r"(?:Bool|Int|Int8|Int16|Int32|Int64|Uint|Uint8|Uint16|Uint32|Uint64|Count|Float32|Float64|String|Duration|StringSlice|StringArray|IntSlice|StringToString|IP|BytesHex)"
COBRA = re.compile(r"\.(?:Persistent)?Flags\(\)\." + TYPES + r"(Var)?P?\(\s*(?:&?[\w.]+\s*,\s*)?\"([A-Za-z][\w.-]+)\"")
STD = re.compile(r"(?<![\w.])flag\." + TYPES + r"(Var)?\(\s*(?:&?[\w.]+\s*,\s*)?\"([A-Za-z][\w.-]+)\"")


def read_flags(repo, tag):
    names = set()
    for path in go_files(repo, tag):
        if not path.startswith("cmd/"):
            continue
        text = git(repo, "show", f"{tag}:{path}").decode("utf-8", "replace")
        for m in COBRA.finditer(text):
            names.add("--" + m.group(2))
        if re.search(r"^package main\b", text, re.M):
            for m in STD.finditer(text):
                names.add("--" + m.group(2))
    return names


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quiet = "--quiet" in sys.argv
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    repo, tag, catalogue = args
    mine = read_tag(repo, tag)
    with open(catalogue, "rb") as f:
        cat = tomllib.load(f)
    theirs = {k["name"]: k.get("kind", "") for k in cat.get("env_key", [])}
    same = sorted(set(mine) & set(theirs))
    kinds = [k for k in same if mine[k] == theirs[k]]
    print(f"{tag}: script {len(mine)} keys, knobs {len(theirs)}, same {len(same)}, kinds agree {len(kinds)}/{len(same)}")
    if not quiet:
        for k in sorted(set(mine) - set(theirs)):
            print(f"  only the script: {k} ({mine[k] or 'no kind'})")
        for k in sorted(set(theirs) - set(mine)):
            print(f"  only knobs: {k} ({theirs[k] or 'no kind'})")
        for k in same:
            if mine[k] != theirs[k]:
                print(f"  kind of {k}: script {mine[k] or 'none'}, knobs {theirs[k] or 'none'}")
    my_flags = read_flags(repo, tag)
    their_flags = {f["name"] for f in cat.get("flag", [])}
    print(f"{tag}: flags: script {len(my_flags)}, knobs {len(their_flags)}, same {len(my_flags & their_flags)}")
    if not quiet:
        for f in sorted(my_flags - their_flags):
            print(f"  flag only the script: {f}")
        for f in sorted(their_flags - my_flags):
            print(f"  flag only knobs: {f}")
    ok = set(mine) == set(theirs) and len(kinds) == len(same) and my_flags == their_flags
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
