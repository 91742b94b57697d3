#!/usr/bin/env python3
"""An independent reading of text-generation-inference's launcher options,
to check knobs' catalogues of it.

Reads `launcher/src/main.rs` at each tag straight from a git repository
(`git show TAG:launcher/src/main.rs`) with regular expressions and a small
attribute tokenizer — not with knobs, and sharing no code with its Rust
reader — and compares, per option of `struct Args`: the long name, the
kind (switch, int, float, string, enum), the members of an enum (a
`ValueEnum` enum's variants kebab-cased or renamed by `name = ".."`,
`true`/`false` for an `Option<bool>`), the env key, the short alias and the
default. Prints one line per tag (and every difference under it).

Where the tag has `docs/source/reference/launcher.md` (clap's own `--help`
rendered into the docs, v2.3.0 on), the catalogue is compared with it too:
per option, whether it takes a value, its possible values, env key, short
alias and default (the column `docs`).

    tgi_check.py GIT_DIR CATALOG_DIR TAG [TAG ...]

CATALOG_DIR holds `tgi/TAG.toml`, as `knobs sync --engine tgi --repo
GIT_DIR --tag TAG --out CATALOG_DIR` writes it. Exit status: 0 when every
tag matches, 1 when something differs.
"""

import re
import subprocess
import sys
import tomllib

PATH = "launcher/src/main.rs"
INTS = {"u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize"}
FLOATS = {"f32", "f64"}


def show(git_dir, tag, path):
    out = subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:{path}"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def split_top(text):
    """Splits attribute arguments at commas outside quotes and brackets."""
    parts, depth, cur, quote, i = [], 0, "", None, 0
    while i < len(text):
        c = text[i]
        if quote:
            cur += c
            if c == "\\":
                cur += text[i + 1]
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            cur += c
        elif c in "([{":
            depth += 1
            cur += c
        elif c in ")]}":
            depth -= 1
            cur += c
        elif c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        parts.append(cur.strip())
    return parts


def attr_args(attrs):
    """`long, env = "X", short = 'p'` → {"long": None, "env": '"X"', ...} over all attributes."""
    out = {}
    for body in attrs:
        for part in split_top(body):
            m = re.match(r"([A-Za-z_][\w:]*)\s*(?:=\s*(.*))?$", part, re.S)
            if m:
                out.setdefault(m.group(1), m.group(2))
    return out


def unquote(v):
    if v is None:
        return None
    v = v.strip()
    m = re.match(r'^"((?:[^"\\]|\\.)*)"$', v, re.S)
    return m.group(1).replace('\\"', '"') if m else None


def kebab(name):
    """clap's kebab-case of a variant: a word starts at a capital that
    follows a lower-case letter or digit, and at the last capital of a run
    followed by a lower-case letter."""
    s = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "-", name)
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", s)
    return s.replace("_", "-").lower()


def items(text):
    """Yields (keyword, name, leading attribute bodies, body lines) for every
    top-level struct or enum."""
    lines = text.split("\n")
    attrs, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#["):
            body, i = collect_attr(lines, i)
            attrs.append(body)
            continue
        m = re.match(r"(?:pub(?:\([^)]*\))?\s+)?(struct|enum)\s+(\w+)\s*\{", line)
        if m:
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("}"):
                body.append(lines[i])
                i += 1
            yield m.group(1), m.group(2), attrs, body
        if not line.startswith("///") and not line.startswith("//") and line.strip():
            attrs = []
        i += 1


def collect_attr(lines, i):
    """The text of an attribute starting at lines[i] (may span lines), and the next line's index."""
    text = lines[i].strip()
    while text.count("[") > text.count("]") and i + 1 < len(lines):
        i += 1
        text += " " + lines[i].strip()
    m = re.match(r"#\[(.*)\]$", text, re.S)
    return (m.group(1) if m else text), i + 1


def members_of(body):
    """A ValueEnum's accepted values, in order."""
    out, attrs = [], []
    i = 0
    while i < len(body):
        s = body[i].strip()
        if s.startswith("#["):
            a, i = collect_attr([x.strip() for x in body], i)
            attrs.append(a)
            continue
        m = re.match(r"([A-Z]\w*)\s*(?:,|=|\(|\{|$)", s)
        if m and not s.startswith("//"):
            named = [re.match(r"(?:clap|value)\((.*)\)$", a, re.S) for a in attrs]
            args = attr_args([n.group(1) for n in named if n])
            if "skip" not in args:
                out.append(unquote(args.get("name")) or kebab(m.group(1)))
            attrs = []
        i += 1
    return out


def read(text):
    """{--name: (kind, members, env, short, default)} of `struct Args`."""
    enums, args_body = {}, None
    for kw, name, attrs, body in items(text):
        if kw == "enum" and any("derive(" in a and ("ValueEnum" in a or "ArgEnum" in a) for a in attrs):
            enums[name] = members_of(body)
        if kw == "struct" and name == "Args":
            args_body = body
    if args_body is None:
        return None
    options, attrs, i = {}, [], 0
    lines = [x.strip() for x in args_body]
    while i < len(lines):
        s = lines[i]
        if s.startswith("#["):
            a, i = collect_attr(lines, i)
            m = re.match(r"(?:clap|arg|command)\((.*)\)$", a, re.S)
            if m:
                attrs.append(m.group(1))
            continue
        m = re.match(r"(?:pub\s+)?(\w+)\s*:\s*(.+?),?$", s)
        if m and not s.startswith("//"):
            field, ty = m.group(1), m.group(2).replace(" ", "")
            options.update(option(field, ty, attr_args(attrs), enums))
            attrs = []
        i += 1
    return options


def option(field, ty, a, enums):
    if "skip" in a or "subcommand" in a or "flatten" in a or ("long" not in a and "short" not in a):
        return {}
    name = "--" + (unquote(a["long"]) if a.get("long") else field.replace("_", "-"))
    env = None
    if "env" in a:
        env = unquote(a["env"]) if a["env"] else field.upper()
    short = None
    if "short" in a:
        short = "-" + (a["short"].strip("'") if a["short"] else field[0])
    wrappers = []
    while True:
        m = re.match(r"(Option|Vec)<(.*)>$", ty)
        if not m:
            break
        wrappers.append(m.group(1))
        ty = m.group(2)
    ty = ty.split("::")[-1]
    default = unquote(a.get("default_value")) or ""
    if not default and a.get("default_value_t"):
        default = a["default_value_t"].strip()
    members = []
    if ty == "bool" and not wrappers:
        kind, default = "switch", ""
    elif ty in enums:
        kind, members = "enum", enums[ty]
    elif ty == "bool":
        kind, members = "enum", ["true", "false"]
    elif ty in INTS:
        kind = "int"
    elif ty in FLOATS:
        kind = "float"
    else:
        kind = "string"
    return {name: (kind, tuple(members), env, short, default)}


DOCS = "docs/source/reference/launcher.md"


def docs(text):
    """{--name: (switch, members, env, short, default)} from the rendered help."""
    out = {}
    for block in re.split(r"\n## ", text):
        m = re.search(r"^\s+(?:-(\w), )?--([\w-]+)(?: <(\w+)>)?", block, re.M)
        if not m or m.group(2) in ("help", "version"):
            continue
        members = re.findall(r"^\s+- ([\w-]+):", block, re.M)
        listed = re.search(r"\[possible values: ([^\]]*)\]", block)
        if listed:
            members = [x.strip() for x in listed.group(1).split(",")]
        env = re.search(r"\[env: (\w+)=", block)
        default = re.search(r"\[default: ([^\]]*)\]", block)
        out["--" + m.group(2)] = (
            m.group(3) is None,
            tuple(members),
            env.group(1) if env else None,
            "-" + m.group(1) if m.group(1) else None,
            default.group(1) if default else "",
        )
    return out


def own_keys(git_dir, tag, options):
    """The keys the launcher's files read with `env::var("KEY")` or
    `env::var_os("KEY")` (outside `//` comments), less its options' own."""
    listed = subprocess.run(
        ["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", tag, "launcher/src/"],
        capture_output=True,
        text=True,
    ).stdout.split()
    option_keys = {v[2] for v in options.values() if v[2]}
    keys = set()
    for path in (p for p in listed if p.endswith(".rs")):
        for line in (show(git_dir, tag, path) or "").split("\n"):
            code = line.split("//")[0]
            keys.update(re.findall(r"env::var(?:_os)?\(\s*\"([A-Z0-9_]+)\"", code))
    return keys - option_keys


def catalogue(path):
    with open(path, "rb") as f:
        c = tomllib.load(f)
    out = {}
    for f in c.get("flag", []):
        short = next((a for a in f.get("aliases", []) if re.match(r"^-[^-]$", a)), None)
        env = (f.get("env") or [None])[0]
        out[f["name"]] = (f["kind"], tuple(f.get("members", [])), env, short, f.get("default", ""))
    return out, {k["name"] for k in c.get("env_key", [])}


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    git_dir, cat_dir, tags = sys.argv[1], sys.argv[2], sys.argv[3:]
    bad = False
    print("| tag | options | exact | kinds | members | env keys | knobs-only | docs | own env keys |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for tag in tags:
        text = show(git_dir, tag, PATH)
        truth = read(text) if text else None
        if truth is None:
            print(f"| {tag} | no struct Args in {PATH} | | | | | |")
            bad = True
            continue
        try:
            got, got_keys = catalogue(f"{cat_dir}/tgi/{tag}.toml")
        except FileNotFoundError:
            print(f"| {tag} | {len(truth)} | no catalogue | | | | |")
            bad = True
            continue
        exact = kinds = members = envs = 0
        enum_count = env_count = 0
        for name, t in truth.items():
            g = got.get(name)
            if t[0] == "enum":
                enum_count += 1
            if t[2]:
                env_count += 1
            if g is None:
                notes.append(f"{tag}: {name} missing from the catalogue")
                continue
            kinds += g[0] == t[0]
            if t[0] == "enum":
                members += g[1] == t[1]
            if t[2]:
                envs += g[2] == t[2]
            if g == t:
                exact += 1
            else:
                notes.append(f"{tag}: {name} checker {t} knobs {g}")
        extra = sorted(set(got) - set(truth))
        notes.extend(f"{tag}: {n} only in the catalogue" for n in extra)
        n = len(truth)
        bad |= exact != n or bool(extra)
        rendered = show(git_dir, tag, DOCS)
        same = "-"
        if rendered:
            help_text = docs(rendered)
            seen = {k: (v[0] == "switch",) + v[1:] for k, v in got.items()}
            agree = sum(seen.get(k) == v for k, v in help_text.items())
            same = f"{agree}/{len(help_text)}"
            bad |= agree != len(help_text) or len(help_text) != len(seen)
            notes.extend(f"{tag}: {k} docs {v} knobs {seen.get(k)}" for k, v in help_text.items() if seen.get(k) != v)
        keys = own_keys(git_dir, tag, truth)
        bad |= keys != got_keys
        notes.extend(f"{tag}: env key {k} missing from the catalogue" for k in sorted(keys - got_keys))
        notes.extend(f"{tag}: env key {k} only in the catalogue" for k in sorted(got_keys - keys))
        print(
            f"| {tag} | {n} | {exact} ({100 * exact / n:.0f} %) | {kinds}/{n} | {members}/{enum_count}"
            f" | {envs}/{env_count} | {len(extra)} | {same} | {len(keys & got_keys)}/{len(keys)}"
            f" (+{len(got_keys - keys)}) |"
        )
    for note in notes:
        print(note)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
