#!/usr/bin/env python3
"""A deterministic runbook vault for benchmarks, in the shape of a real one.

    benches/vault.py FILES OUT_DIR        (FILES: e.g. 6000)

80% runbooks (prose, fenced bash blocks running radiance, PromQL blocks,
inline metric names and env lines), 10% env files and 10% serve scripts in
one service folder per 62 files (96 for 6000), averaging ~4.7 KB a file
(28.0 MB for 6000). The same FILES always writes the same bytes. A few lines
carry planted mistakes, as a real vault does, so findings are exercised.
"""

import os
import random
import sys

FLAGS = [
    ("--prefill-interleave", ["0", "1", "2", "4"]),
    ("--busy-prefill-chunk", ["auto", "512", "1024", "2048"]),
    ("--checkpoint-policy", ["geometric-backoff", "tip-only", "keep-all"]),
    ("--checkpoint-interval", ["2048", "4096", "1024"]),
    ("--checkpoint-slots", ["auto", "20", "32"]),
    ("--max-num-batched-tokens", ["8192", "16384", "4096"]),
    ("--max-num-seqs", ["2", "4", "8"]),
    ("--log-level", ["info", "warn", "debug"]),
    ("--stats-port", ["7770"]),
    ("--port", ["8000", "8080"]),
    ("--kv-cache-gib", ["24", "31.5", "40"]),
]
METRICS = [
    "radiance:engine_steps_total",
    "radiance:engine_steps_decode_total",
    "radiance:engine_steps_held_total",
    "radiance:engine_prefill_chunks_capped_total",
    "radiance:prefix_hit_cut_tokens_total",
    "radiance:decode_tokens_per_second",
    "radiance:num_requests_preempted",
    "vllm:num_preemptions_total",
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:time_to_first_token_seconds_bucket",
]
WORDS = (
    "the step budget queue decode prefill chunk held window operator rollback arm "
    "measure census ledger boot scrape replica service payload checkpoint prefix "
    "snapshot latency cadence throughput interval minutes before after while we "
    "confirm compare watch record restart deploy pin image trio env script argv "
    "value member default rung dial knob engine build tag commit verify"
).split()
# Planted mistakes, one in every ~200 lines that carry a name.
MISTAKES = [
    ("flag", "--prefill-interleaving 1"),
    ("flag", "--checkpoint-policy floor"),
    ("metric", "radiance:num_preemptions_total"),
    ("metric", "radiance:engine_steps_hold_total"),
]


def sentence(r):
    n = r.randint(8, 22)
    words = [r.choice(WORDS) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def paragraph(r):
    out = []
    for _ in range(r.randint(3, 7)):
        s = sentence(r)
        roll = r.random()
        if roll < 0.25:
            s += f" Watch `{r.choice(METRICS)}` move."
        elif roll < 0.32:
            name, values = r.choice(FLAGS)
            s += f" Set `{name} {r.choice(values)}` first."
        elif roll < 0.36:
            name, values = r.choice(FLAGS)
            key = name.lstrip("-").replace("-", "_").upper()
            s += f" The trio line is `{key}={r.choice(values)}`."
        out.append(s)
    return " ".join(out)


def bash_block(r):
    lines = ["```bash"]
    parts = ["radiance --model /models/payload"]
    for name, values in r.sample(FLAGS, r.randint(3, 7)):
        parts.append(f"{name} {r.choice(values)}")
    if r.random() < 0.02:
        parts.append(r.choice([m for k, m in MISTAKES if k == "flag"]))
    lines.append(" \\\n  ".join(parts))
    lines.append("curl -s localhost:7770/stats | jq .prefill_tps")
    lines.append("kubectl -n serving logs deploy/frank --since 10m | grep -c held")
    lines.append("```")
    return "\n".join(lines)


# Gauges are not rated (KNB012 would rightly flag every `rate` over one):
# a panel takes their peak over the window instead.
GAUGES = {
    "radiance:decode_tokens_per_second",
    "radiance:num_requests_preempted",
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
}


def promql_block(r):
    m = r.choice(METRICS)
    if r.random() < 0.02:
        m = r.choice([x for k, x in MISTAKES if k == "metric"])
    over = "max_over_time" if m in GAUGES else "rate"
    return f"```promql\nsum by (instance) ({over}({m}[5m]))\n```"


def runbook(r, i):
    out = [f"# Runbook {i}: {sentence(r)[:-1]}", ""]
    target = r.randint(2500, 6000)
    size = 0
    while size < target:
        roll = r.random()
        if roll < 0.55:
            block = paragraph(r)
        elif roll < 0.8:
            block = bash_block(r)
        else:
            block = promql_block(r)
        out.append(block)
        out.append("")
        size += len(block) + 1
    return "\n".join(out) + "\n"


def env_file(r, svc):
    pin = r.random() < 0.3
    lines = [f"# {svc} knobs", "IMAGE=registry.example/radiance:1.8.1" if pin else "MODEL=/models/payload"]
    for name, values in r.sample(FLAGS, r.randint(3, 8)):
        key = name.lstrip("-").replace("-", "_").upper()
        prefix = svc.upper().replace("-", "_") + "_" if r.random() < 0.4 else ""
        lines.append(f"{prefix}{key}={r.choice(values)}")
    lines.append("MAX_SEQS=2")
    filler = [f"# {sentence(r)}" for _ in range(r.randint(20, 50))]
    return "\n".join(lines + filler) + "\n"


def serve_script(r, svc):
    lines = [
        "#!/usr/bin/env bash",
        f"# serve {svc}",
        "set -euo pipefail",
        "args=(--model \"$MODEL\" --max-num-seqs \"${MAX_SEQS:-2}\")",
        'if [ "${PREFILL_INTERLEAVE:-0}" -gt 0 ]; then',
        '  args+=(--prefill-interleave "$PREFILL_INTERLEAVE")',
        "fi",
    ]
    for name, values in r.sample(FLAGS, r.randint(2, 5)):
        var = name.lstrip("-").replace("-", "_").upper()
        lines.append(f'args+=({name} "${{{var}:-{r.choice(values)}}}")')
    lines += [f"# {sentence(r)}" for _ in range(r.randint(30, 70))]
    lines.append('exec radiance "${args[@]}"')
    return "\n".join(lines) + "\n"


def main():
    files = int(sys.argv[1])
    out = sys.argv[2]
    r = random.Random(files)
    services = max(1, files // 62)
    n_env = files // 10
    n_script = files // 10
    n_book = files - n_env - n_script
    areas = ["arm", "census", "rollback", "incident", "capacity", "verify", "boot", "scrape"]
    for i in range(n_book):
        path = os.path.join(out, "runbooks", areas[i % len(areas)], f"{i:05d}.md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(runbook(r, i))
    for i in range(n_env):
        svc = f"svc-{i % services:03d}"
        path = os.path.join(out, "services", svc, f"knobs-{i // services}.env")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(env_file(r, svc))
    for i in range(n_script):
        svc = f"svc-{i % services:03d}"
        path = os.path.join(out, "services", svc, f"serve-{i // services}.sh")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(serve_script(r, svc))


if __name__ == "__main__":
    main()
