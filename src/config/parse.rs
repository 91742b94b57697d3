//! The two phases of reading a `knobs.toml`'s text: serde into raw
//! structs (syntax and unknown keys, with a did-you-mean), then the checks
//! into [`Config`], each error pointing into the file.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::{error, valid_tag, Config, Located};
use crate::catalog::profile::{self, Profile};
use crate::diag::FileError;

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    pin: Option<RawPin>,
    #[serde(default)]
    catalog: Option<RawCatalog>,
    #[serde(default)]
    extract: Option<RawExtract>,
    #[serde(default)]
    lint: Option<RawLint>,
    #[serde(default)]
    metrics: Option<RawMetrics>,
    #[serde(default)]
    profile: std::collections::BTreeMap<String, Spanned<toml::Table>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLint {
    #[serde(default)]
    engine_commands: Vec<String>,
    #[serde(default)]
    serve_scripts: Vec<String>,
    #[serde(default)]
    env_files: Vec<String>,
    fail_on: Option<Spanned<String>>,
    max_file_size: Option<u64>,
    #[serde(default)]
    severity: std::collections::BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    select: Vec<Spanned<String>>,
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default, rename = "per-file-ignores")]
    per_file_ignores: std::collections::BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    #[serde(default)]
    helm_args: Vec<String>,
    target_labels: Option<Vec<String>>,
    baseline: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMetrics {
    #[serde(default)]
    builds: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPin {
    engine: Option<Spanned<String>>,
    repo: Option<Spanned<String>>,
    tag: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    dir: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExtract {
    config: Option<Spanned<String>>,
    headers: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    query: Vec<RawQuery>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuery {
    flags: Spanned<String>,
}

/// The keys each table accepts, for a did-you-mean on an unknown one.
const KNOWN_KEYS: &[&str] = &[
    "pin",
    "catalog",
    "extract",
    "lint",
    "profile",
    "engine",
    "repo",
    "tag",
    "dir",
    "config",
    "headers",
    "query",
    "flags",
    "engine_commands",
    "serve_scripts",
    "env_files",
    "fail_on",
    "max_file_size",
    "severity",
    "select",
    "ignore",
    "exclude",
    "per-file-ignores",
    "helm_args",
    "target_labels",
    "baseline",
    "metrics",
    "builds",
];

fn did_you_mean(message: &str) -> Option<String> {
    let unknown = message.split('`').nth(1)?;
    let near = crate::suggest::suggest(unknown, KNOWN_KEYS.iter().copied())?;
    Some(format!("did you mean `{near}`?"))
}

/// Parses and checks the text of a `knobs.toml`.
pub fn parse(path: &Path, text: &str) -> Result<Config, Box<FileError>> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let help = did_you_mean(e.message());
        Box::new(error(
            path,
            text,
            e.span(),
            format!("{} is not valid", crate::pictures::visible(&path.display().to_string())),
            e.message(),
            help,
        ))
    })?;
    let mut cfg = Config { path: Some(path.to_path_buf()), text: text.to_string(), ..Config::default() };
    let fail = |s: &Spanned<String>, message: &str, label: &str, help: &str| {
        Box::new(error(path, text, Some(s.span()), message.to_string(), label, Some(help.to_string())))
    };
    if let Some(pin) = raw.pin {
        if let Some(engine) = pin.engine {
            if !profile::valid_name(engine.get_ref()) {
                return Err(fail(
                    &engine,
                    "invalid [pin] engine",
                    "not an engine name",
                    "use letters, digits, `.`, `-` or `_`, e.g. `radiance` or `llama.cpp`",
                ));
            }
            cfg.engine = Some(engine.into_inner());
        }
        if let Some(repo) = pin.repo {
            if repo.get_ref().trim().is_empty() {
                return Err(fail(
                    &repo,
                    "empty [pin] repo",
                    "empty",
                    "give a URL or a path to the engine's git repository",
                ));
            }
            cfg.repo = Some(repo.into_inner());
        }
        if let Some(tag) = pin.tag {
            if !valid_tag(tag.get_ref()) {
                return Err(fail(
                    &tag,
                    "invalid [pin] tag",
                    "not a tag name",
                    "give the tag of the deployed build, e.g. `v1.8.1`",
                ));
            }
            cfg.tag = Some(tag.into_inner());
        }
    }
    if let Some(dir) = raw.catalog.and_then(|c| c.dir) {
        if dir.get_ref().trim().is_empty() {
            return Err(fail(&dir, "empty [catalog] dir", "empty", "a folder relative to knobs.toml, e.g. `catalog`"));
        }
        cfg.catalog_dir = Some(dir.into_inner());
    }
    if let Some(ex) = raw.extract {
        if let Some(c) = ex.config {
            if c.get_ref().trim().is_empty() || c.get_ref().starts_with('/') || c.get_ref().contains("..") {
                return Err(fail(
                    &c,
                    "invalid [extract] config",
                    "must be a path inside the repository",
                    "e.g. `core/config.cpp`",
                ));
            }
            cfg.extract_config = Some(c.into_inner());
        }
        if let Some(h) = ex.headers {
            cfg.headers = Some(h.into_iter().map(Spanned::into_inner).collect());
        }
        cfg.queries = ex.query.into_iter().map(|q| Located::from(q.flags)).collect();
    }
    for (name, table) in raw.profile {
        let span = table.span();
        let mut table = table.into_inner();
        table.insert("name".into(), toml::Value::String(name.clone()));
        let parsed = toml::Value::Table(table).try_into::<Profile>().map_err(|e| e.message().to_string());
        let checked = parsed.and_then(|p| p.validate().map(|_| p).map_err(|e| e.message));
        match checked {
            Ok(p) => cfg.profiles.push(p),
            Err(message) => {
                return Err(Box::new(error(
                    path,
                    text,
                    Some(span),
                    format!("invalid [profile.\"{name}\"]: {message}"),
                    "this profile",
                    Some("see README.md, `Engines`, for the keys a profile takes".into()),
                )))
            }
        }
    }
    for build in raw.metrics.map(|m| m.builds).unwrap_or_default() {
        if !valid_tag(build.get_ref()) {
            return Err(fail(
                &build,
                "invalid [metrics] builds",
                "not a tag name",
                "give the tags of the builds the fleet runs, e.g. `[\"v0.10.0\", \"v0.20.1\"]`",
            ));
        }
        cfg.builds.push(Located::from(build));
    }
    if let Some(lint) = raw.lint {
        cfg.engine_commands = lint.engine_commands;
        cfg.serve_scripts = lint.serve_scripts;
        cfg.env_files = lint.env_files;
        cfg.max_file_size = lint.max_file_size;
        cfg.helm_args = lint.helm_args;
        cfg.target_labels = lint.target_labels;
        cfg.baseline = lint.baseline.map(Located::from);
        if let Some(f) = lint.fail_on {
            if !matches!(f.get_ref().as_str(), "error" | "warning") {
                return Err(fail(&f, "invalid [lint] fail_on", "not a severity", "use `error` or `warning`"));
            }
            cfg.fail_on = Some(f.into_inner());
        }
        cfg.severity = lint.severity.into_iter().map(|(k, v)| (Located::from(k), Located::from(v))).collect();
        cfg.select = lint.select.into_iter().map(Located::from).collect();
        cfg.ignore = lint.ignore.into_iter().map(Located::from).collect();
        cfg.exclude = lint.exclude.into_iter().map(Located::from).collect();
        cfg.per_file_ignores = lint
            .per_file_ignores
            .into_iter()
            .map(|(k, v)| (Located::from(k), v.into_iter().map(Located::from).collect()))
            .collect();
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_pin() {
        let cfg = parse(Path::new("knobs.toml"), "[pin]\nengine = \"llama.cpp\"\nrepo = \"r\"\ntag = \"b4100\"\n")
            .expect("valid");
        assert_eq!(cfg.tag.as_deref(), Some("b4100"));
        assert_eq!(cfg.engine_name(None), "llama.cpp");
        assert_eq!(cfg.engine_name(Some("radiance")), "radiance");
        assert_eq!(cfg.profile("llama.cpp").metrics.prefixes, ["llamacpp:"]);
    }

    #[test]
    fn errors_point_into_the_file() {
        let text = "[pin]\ntag = \"v1 8\"\n";
        let err = parse(Path::new("knobs.toml"), text).expect_err("bad tag");
        let span = err.span.expect("span");
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "\"v1 8\"");
        let err = parse(Path::new("knobs.toml"), "[pinn]\n").expect_err("unknown table");
        assert!(err.label.contains("unknown field"), "{}", err.label);
        assert_eq!(err.help.as_deref(), Some("did you mean `pin`?"));
        for bad in ["../x", "/etc", ".."] {
            let text = format!("[pin]\nengine = \"{bad}\"\n");
            assert!(parse(Path::new("knobs.toml"), &text).is_err(), "{bad}");
        }
        assert!(parse(Path::new("knobs.toml"), "[pin]\ntag = \"v1/../../x\"\n").is_err());
    }

    #[test]
    fn a_profile_in_knobs_toml_describes_a_third_engine() {
        let text = "[pin]\nengine = \"whisper.cpp\"\n\n[profile.\"whisper.cpp\"]\n[profile.\"whisper.cpp\".extract]\nconfig = [\"examples/cli/cli.cpp\"]\n[[profile.\"whisper.cpp\".command]]\nname = \"whisper-cli\"\n";
        let cfg = parse(Path::new("knobs.toml"), text).expect("valid");
        let p = cfg.profile("whisper.cpp");
        assert_eq!(p.extract.config, ["examples/cli/cli.cpp"]);
        assert_eq!(p.commands[0].name, "whisper-cli");
        let bad = "[profile.x]\nimages = { tag = \"(\" }\n";
        let err = parse(Path::new("knobs.toml"), bad).expect_err("bad regex");
        assert!(err.message.contains("invalid [profile.\"x\"]"), "{}", err.message);
    }
}
