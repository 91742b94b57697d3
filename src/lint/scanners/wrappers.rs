//! The option grammar of the commands that run another command (`exec`,
//! `sudo`, `env`, `nohup`, `taskset`, `su -c`, `sh -c`, `docker exec`,
//! Slurm's `srun`, …),
//! as the real tools read their argv: short options bundled (`sudo -iu
//! radiance`: `-i`, then `-u` taking `radiance`), a value attached (`stdbuf
//! -oL`, `--user=svc`) or in the next word, `--` ending the options, the
//! positional words some take before the command (`taskset -c 0-7`,
//! `timeout 30`), the `K=V` words `env` reads as the command's environment,
//! and the option whose value is a shell script (`su - svc -c '…'`).
//! `invocation` walks a command line with it to find where the engine's
//! argv starts. No wrapper here is an engine: these are the shell's tools.

use std::ops::Deref;

/// How a wrapper's argv reads.
pub(crate) struct Grammar {
    pub name: &'static str,
    /// Short options that take a value, as letters.
    pub short: &'static str,
    /// Long options that take a value.
    pub long: &'static [&'static str],
    /// Words that are not options before the command (taskset's mask).
    pub positionals: usize,
    /// `K=V` words before the command set its environment (`env`).
    pub assigns: bool,
    /// The option that sets a variable of the command's environment
    /// (`-e K=V`, `--env K=V`), short and long.
    pub env: Option<(char, &'static str)>,
    /// How a shell script is given, if the wrapper runs one.
    pub script: Script,
    /// A command follows the options (`su` without `-c` runs a login shell).
    pub command: bool,
}

/// How a wrapper is given a shell script.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    None,
    /// The value of this option is the script (`su -c '…'`, `--command`).
    Value(char, &'static str),
    /// With this option among the flags, the first operand is the script
    /// (`bash -lc '…'`, `sh -e -c '…'`).
    Operand(char),
}

const fn wrapper(
    name: &'static str,
    short: &'static str,
    long: &'static [&'static str],
    positionals: usize,
) -> Grammar {
    Grammar { name, short, long, positionals, assigns: false, env: None, script: Script::None, command: true }
}

/// Shells: `-c` makes the first operand a script.
const fn shell(name: &'static str) -> Grammar {
    Grammar { script: Script::Operand('c'), ..wrapper(name, "oO", &["--rcfile", "--init-file"], 0) }
}

/// Commands that run the command that follows them, by name.
pub(crate) static WRAPPERS: &[Grammar] = &[
    wrapper("exec", "a", &[], 0),
    // `sudo VAR=value CMD`: sudo sets the variables for the command it runs.
    Grammar {
        assigns: true,
        ..wrapper(
            "sudo",
            "ugCDhprtUT",
            &["--user", "--group", "--chdir", "--close-from", "--host", "--prompt", "--role", "--type", "--other-user"],
            0,
        )
    },
    wrapper("doas", "uC", &[], 0),
    Grammar { assigns: true, ..wrapper("env", "uCS", &["--unset", "--chdir", "--split-string"], 0) },
    wrapper("nohup", "", &[], 0),
    wrapper("time", "fo", &["--format", "--output"], 0),
    wrapper("nice", "n", &["--adjustment"], 0),
    // `taskset -c 0-7 CMD`: `-c` says the mask is a list; the mask is a word of its own.
    wrapper("taskset", "", &[], 1),
    wrapper(
        "numactl",
        "CNmpiP",
        &["--physcpubind", "--cpunodebind", "--membind", "--preferred", "--interleave", "--preferred-many"],
        0,
    ),
    wrapper("stdbuf", "ioe", &["--input", "--output", "--error"], 0),
    wrapper("ionice", "cnp", &["--class", "--classdata", "--pid"], 0),
    wrapper("chrt", "", &[], 1),
    wrapper("setsid", "", &[], 0),
    wrapper("timeout", "sk", &["--signal", "--kill-after"], 1),
    wrapper("command", "", &[], 0),
    // `uv run [options] CMD…`: `run` is the word before the command.
    wrapper(
        "uv",
        "p",
        &[
            "--with",
            "--with-requirements",
            "--with-editable",
            "--python",
            "--project",
            "--directory",
            "--env-file",
            "--extra",
            "--group",
            "--package",
            "--index",
        ],
        1,
    ),
    Grammar {
        script: Script::Value('c', "--command"),
        ..wrapper("runuser", "ugGsw", &["--user", "--group", "--supp-group", "--shell", "--whitelist-environment"], 0)
    },
    Grammar {
        script: Script::Value('c', "--command"),
        command: false,
        ..wrapper("su", "gGsw", &["--group", "--supp-group", "--shell", "--whitelist-environment"], 0)
    },
    Grammar {
        assigns: false,
        env: Some(('E', "--setenv")),
        ..wrapper(
            "systemd-run",
            "pEuM",
            &["--unit", "--property", "--setenv", "--uid", "--gid", "--slice", "--description", "--machine"],
            0,
        )
    },
    // Slurm's `srun [options] CMD…` runs the command on the allocation's nodes.
    wrapper(
        "srun",
        "AbcDdeGiJLMmNnopqrSTtWwxC",
        &[
            "--account",
            "--begin",
            "--cpus-per-task",
            "--chdir",
            "--dependency",
            "--error",
            "--gpus",
            "--input",
            "--job-name",
            "--licenses",
            "--clusters",
            "--distribution",
            "--nodes",
            "--ntasks",
            "--output",
            "--partition",
            "--qos",
            "--relative",
            "--core-spec",
            "--threads",
            "--time",
            "--wait",
            "--nodelist",
            "--exclude",
            "--constraint",
            "--gres",
            "--gpus-per-node",
            "--gpus-per-task",
            "--cpus-per-gpu",
            "--ntasks-per-node",
            "--mem",
            "--mem-per-cpu",
            "--mem-per-gpu",
            "--export",
            "--mpi",
            "--reservation",
            "--cpu-bind",
            "--container-image",
            "--container-mounts",
            "--container-name",
            "--container-workdir",
        ],
        0,
    ),
    wrapper("strace", "oepsuE", &[], 0),
    wrapper("ltrace", "oepsu", &[], 0),
    wrapper("valgrind", "", &[], 0),
    wrapper("gdb", "", &[], 0),
    wrapper("perf", "eoFpc", &[], 0),
    shell("sh"),
    shell("bash"),
    shell("dash"),
    shell("zsh"),
    shell("ash"),
    shell("ksh"),
];

/// `docker exec [options] CONTAINER CMD…`: the container, then the command.
pub(crate) static EXEC: Grammar = Grammar {
    env: Some(('e', "--env")),
    ..wrapper("exec", "euw", &["--env", "--user", "--workdir", "--env-file", "--detach-keys"], 1)
};

/// `docker run [options] IMAGE …` (and podman's, nerdctl's): the options
/// that take a value; the first operand is the image.
pub(crate) static RUN: Grammar = Grammar {
    env: Some(('e', "--env")),
    ..wrapper(
        "run",
        "acehlmpuvw",
        &[
            "--add-host",
            "--annotation",
            "--attach",
            "--cap-add",
            "--cap-drop",
            "--cgroupns",
            "--cidfile",
            "--cpu-shares",
            "--cpus",
            "--cpuset-cpus",
            "--device",
            "--dns",
            "--entrypoint",
            "--env",
            "--env-file",
            "--expose",
            "--gpus",
            "--group-add",
            "--health-cmd",
            "--hostname",
            "--ipc",
            "--label",
            "--log-driver",
            "--log-opt",
            "--memory",
            "--mount",
            "--name",
            "--net",
            "--network",
            "--pid",
            "--platform",
            "--pod",
            "--publish",
            "--pull",
            "--restart",
            "--runtime",
            "--secret",
            "--security-opt",
            "--shm-size",
            "--stop-signal",
            "--stop-timeout",
            "--tmpfs",
            "--ulimit",
            "--user",
            "--userns",
            "--volume",
            "--volumes-from",
            "--workdir",
        ],
        0,
    )
};

/// The wrapper a command names (by its name, without path), if it is one.
pub(crate) fn find(name: &str) -> Option<&'static Grammar> {
    WRAPPERS.iter().find(|g| g.name == name)
}

/// What follows a wrapper's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// The command starts at this word.
    Command(usize),
    /// This word is a shell script the wrapper runs.
    Script(usize),
    /// No command follows (a login shell, the end of the line).
    None,
}

/// What a wrapper's words (`words[from..]`, after its name; `None` for a
/// word with no literal text) say: where the command starts, with the
/// environment the wrapper sets for it as (word, offset of `K=V` in it).
pub(crate) fn step<W: Deref<Target = str>>(
    g: &Grammar,
    words: &[Option<W>],
    from: usize,
) -> (Step, Vec<(usize, usize)>) {
    let mut env = Vec::new();
    if let Script::Value(c, long) = g.script {
        if let Some(at) = script_value(words, from, c, long) {
            return (Step::Script(at), env);
        }
    }
    let mut i = from;
    let mut left = g.positionals;
    let mut script_flag = false;
    while i < words.len() {
        let Some(t) = words[i].as_deref() else {
            // An expansion: a value of no option here, so an operand.
            if left > 0 {
                left -= 1;
                i += 1;
                continue;
            }
            break;
        };
        if t == "--" {
            i += 1;
            break;
        }
        if let Some(long) = t.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, attached) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let name = &t[..name.len() + 2];
            let takes = g.long.contains(&name);
            if let Some((_, env_long)) = g.env.filter(|(_, l)| *l == name) {
                if attached {
                    env.push((i, env_long.len() + 1));
                } else if takes && i + 1 < words.len() {
                    env.push((i + 1, 0));
                }
            }
            i += if takes && !attached { 2 } else { 1 };
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            // A bundle of short options: the first that takes a value takes
            // the rest of the word, or the next word.
            let mut next = i + 1;
            for (k, c) in t.char_indices().skip(1) {
                if let Script::Operand(s) = g.script {
                    script_flag |= c == s;
                }
                if g.short.contains(c) {
                    let attached = k + c.len_utf8() < t.len();
                    if g.env.is_some_and(|(e, _)| e == c) {
                        env.push(if attached { (i, k + c.len_utf8()) } else { (i + 1, 0) });
                    }
                    if !attached {
                        next = i + 2;
                    }
                    break;
                }
            }
            i = next;
            continue;
        }
        if t == "-" {
            i += 1;
            continue;
        }
        if g.assigns && is_assignment(t) {
            env.push((i, 0));
            i += 1;
            continue;
        }
        if left > 0 {
            left -= 1;
            i += 1;
            continue;
        }
        break;
    }
    if script_flag {
        return (if i < words.len() { Step::Script(i) } else { Step::None }, env);
    }
    let step = if g.command && i < words.len() { Step::Command(i) } else { Step::None };
    (step, env)
}

/// `su … -c SCRIPT`, `--command SCRIPT`, `--command=SCRIPT`: the word that
/// holds the script (for `--command=…`, the same word).
fn script_value<W: Deref<Target = str>>(words: &[Option<W>], from: usize, c: char, long: &str) -> Option<usize> {
    for (i, w) in words.iter().enumerate().skip(from) {
        let Some(t) = w.as_deref() else { continue };
        if t == "--" {
            return None;
        }
        if t == long {
            return (i + 1 < words.len()).then_some(i + 1);
        }
        if t.strip_prefix(long).is_some_and(|r| r.starts_with('=')) {
            return Some(i);
        }
        if !t.starts_with("--") && t.len() > 1 && t.starts_with('-') && t.ends_with(c) {
            return (i + 1 < words.len()).then_some(i + 1);
        }
    }
    None
}

/// `NAME=value`.
pub(crate) fn is_assignment(t: &str) -> bool {
    let Some((name, _)) = t.split_once('=') else { return false };
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Option<String>> {
        line.split_whitespace().map(|w| (!w.starts_with('$')).then(|| w.to_string())).collect()
    }

    fn after(line: &str) -> (Step, Vec<(usize, usize)>) {
        let w = words(line);
        let g = find(w[0].as_deref().unwrap_or("")).expect("a wrapper");
        step(g, &w, 1)
    }

    /// Each wrapper as its tool reads it: where the command starts, by hand.
    #[test]
    fn wrappers_read_their_options_as_the_tools_do() {
        let cases: &[(&str, Step)] = &[
            ("sudo -iu radiance podman run x", Step::Command(3)),
            ("sudo -Eu radiance radiance --port 1", Step::Command(3)),
            ("sudo -u svc -g grp radiance", Step::Command(5)),
            ("sudo --user=svc radiance", Step::Command(2)),
            ("sudo -E radiance", Step::Command(2)),
            ("runuser -u radiance -- radiance --port 1", Step::Command(4)),
            ("runuser -l radiance -c radiance-script", Step::Script(4)),
            ("su - radiance -c script", Step::Script(4)),
            ("su -c script radiance", Step::Script(2)),
            ("su --command=script", Step::Script(1)),
            ("su - radiance", Step::None),
            ("env -i K=V radiance", Step::Command(3)),
            ("env -u HOME -C /srv radiance", Step::Command(5)),
            ("nohup radiance", Step::Command(1)),
            ("taskset -c 0-7 radiance", Step::Command(3)),
            ("taskset 0x3 radiance", Step::Command(2)),
            ("numactl --cpunodebind=0 --membind=0 radiance", Step::Command(3)),
            ("numactl -N 0 -m 0 radiance", Step::Command(5)),
            ("stdbuf -oL -eL radiance", Step::Command(3)),
            ("timeout --signal=KILL 30 radiance", Step::Command(3)),
            ("timeout -s KILL 30 radiance", Step::Command(4)),
            ("nice -n 5 radiance", Step::Command(3)),
            ("exec -a name radiance", Step::Command(3)),
            ("bash -lc script", Step::Script(2)),
            ("sh -e -c script", Step::Script(3)),
            ("bash -o pipefail -c script", Step::Script(4)),
            ("bash serve.sh", Step::Command(1)),
            ("sudo -u $USER radiance", Step::Command(3)),
        ];
        for (line, want) in cases {
            assert_eq!(&after(line).0, want, "{line}");
        }
        assert_eq!(after("env -i K=V L=W radiance").1, [(2, 0), (3, 0)]);
        let w = words("systemd-run -E K=V --setenv=L=W radiance");
        assert_eq!(step(find("systemd-run").expect("known"), &w, 1), (Step::Command(4), vec![(2, 0), (3, 9)]));
        let w = words("run --rm -e K=V -eL=W --env=M=X -v /a:/b img radiance");
        assert_eq!(step(&RUN, &w, 1), (Step::Command(8), vec![(3, 0), (4, 2), (5, 6)]));
    }
}
