//! `knobs server` driven by a scripted client over stdio: diagnostics on
//! open and change (at exact UTF-16 or UTF-8 ranges), hover, completion,
//! code actions, errors that do not stop it, and a clean exit — for
//! radiance, llama.cpp and vLLM files. Expected values are written from the
//! catalogues and fixtures by hand.

use serde_json::{json, Value};

use crate::support::lsp::{uri, Client};
use crate::support::tree;

/// A diagnostic's (code, start line, start character, end character).
fn placed(d: &Value) -> (String, u64, u64, u64) {
    let r = &d["range"];
    (
        d["code"].as_str().unwrap_or_default().to_string(),
        r["start"]["line"].as_u64().unwrap_or(99),
        r["start"]["character"].as_u64().unwrap_or(99),
        r["end"]["character"].as_u64().unwrap_or(99),
    )
}

fn labels(items: &Value) -> Vec<String> {
    items.as_array().into_iter().flatten().filter_map(|i| i["label"].as_str().map(str::to_string)).collect()
}

const RUNBOOK: &str = "# Boot\n\nÉtat — `--checkpoint-polcy tip-only` in prose.\n";

#[test]
fn a_radiance_runbook_diagnosed_hovered_completed_and_fixed() {
    let t =
        tree(&[("knobs.toml", b"[pin]\nengine = \"radiance\"\ntag = \"v1.8.1\"\n"), ("run.md", RUNBOOK.as_bytes())]);
    let (mut c, init) = Client::start(t.path(), &[], &[]);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    let doc = uri(&t.path().join("run.md"));
    c.open(&doc, "markdown", RUNBOOK);
    let d = c.diagnostics(&doc, 1);
    // `É`, `—` are one UTF-16 unit each: the flag starts at character 8.
    assert_eq!(d.iter().map(placed).collect::<Vec<_>>(), [("KNB001".to_string(), 2, 8, 26)]);
    assert_eq!(d[0]["source"], "knobs");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["message"], "`--checkpoint-polcy` is not a flag of radiance v1.8.1");
    assert_eq!(d[0]["relatedInformation"][0]["message"], "did you mean `--checkpoint-policy`?");

    // A code action on it: the suppression before its line, and explain.
    let range = json!({ "start": { "line": 2, "character": 8 }, "end": { "line": 2, "character": 8 } });
    let actions = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": doc }, "range": range, "context": { "diagnostics": d } }),
    );
    let titles: Vec<&str> =
        actions["result"].as_array().expect("actions").iter().filter_map(|a| a["title"].as_str()).collect();
    assert_eq!(titles, ["Suppress KNB001 on this line", "Explain KNB001 (invented-flag)"]);
    let edit = &actions["result"][0]["edit"]["changes"][&doc][0];
    assert_eq!(edit["newText"], "<!-- knobs: ignore[KNB001] -->\n");
    assert_eq!(edit["range"]["start"], json!({ "line": 2, "character": 0 }));
    let explained =
        c.request("workspace/executeCommand", json!({ "command": "knobs.explain", "arguments": ["KNB001"] }));
    assert!(explained["result"].as_str().is_some_and(|s| s.contains("KNB001")), "{explained}");

    // A burst of changes: the newest text only is linted, and it is clean.
    c.change(&doc, 2, "# Boot\n\nÉtat — `--checkpoint-pol");
    c.change(&doc, 3, "# Boot\n\nÉtat — `--checkpoint-policy tip-only` in prose.\n");
    assert_eq!(c.diagnostics(&doc, 3), Vec::<Value>::new());

    // Hover on the flag: its help from the catalogue, as explain's Markdown.
    let hover = c.at("textDocument/hover", &doc, 2, 12);
    let text = hover["contents"]["value"].as_str().expect("hover text");
    assert!(text.starts_with("# `--checkpoint-policy`"), "{text}");
    assert!(text.contains("which prefix checkpoints the store retains"), "{text}");
    // On a member: its flag. On a rule code: the rule.
    let member = c.at("textDocument/hover", &doc, 2, 30);
    assert!(member["contents"]["value"].as_str().is_some_and(|s| s.starts_with("# `--checkpoint-policy`")));
    c.change(&doc, 4, "Silenced by KNB001 here.\n");
    let rule = c.at("textDocument/hover", &doc, 0, 14);
    assert!(rule["contents"]["value"].as_str().is_some_and(|s| s.contains("KNB001")), "{rule}");
    // On prose: nothing.
    assert_eq!(c.at("textDocument/hover", &doc, 0, 2), Value::Null);

    // Completion: flags once the argv has started, with kind and snippet.
    c.change(&doc, 5, "radiance --che");
    let items = c.at("textDocument/completion", &doc, 0, 14);
    assert!(labels(&items).contains(&"--checkpoint-policy".to_string()), "{items}");
    let policy = items.as_array().expect("items").iter().find(|i| i["label"] == "--checkpoint-policy").expect("item");
    assert_eq!(policy["detail"], "enum");
    assert_eq!(policy["textEdit"]["newText"], "--checkpoint-policy ${1|geometric-backoff,tip-only,keep-all|}");
    assert_eq!(policy["textEdit"]["range"]["start"]["character"], 9);
    // Members after the flag; no flags before the engine's argv starts.
    c.change(&doc, 6, "radiance --checkpoint-policy ");
    assert_eq!(labels(&c.at("textDocument/completion", &doc, 0, 29)), ["geometric-backoff", "tip-only", "keep-all"]);
    c.change(&doc, 7, "echo --che");
    assert_eq!(labels(&c.at("textDocument/completion", &doc, 0, 10)), Vec::<String>::new());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_fix_is_a_code_action_and_utf8_is_negotiated() {
    let md = "```sh\nradiance --prefill-chunk 512\n```\nÉté `--checkpoint-polcy`\n";
    let t = tree(&[("knobs.toml", b"[pin]\ntag = \"v1.8.1\"\n"), ("run.md", md.as_bytes())]);
    let (mut c, init) = Client::start(t.path(), &[], &["utf-8", "utf-16"]);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");
    let doc = uri(&t.path().join("run.md"));
    c.open(&doc, "markdown", md);
    let d = c.diagnostics(&doc, 1);
    let found: Vec<_> = d.iter().map(placed).collect();
    // `É` and `é` are two bytes each: the second flag starts at byte 7.
    assert_eq!(found[1], ("KNB001".to_string(), 3, 7, 25));
    let range = json!({ "start": { "line": 1, "character": 0 }, "end": { "line": 1, "character": 0 } });
    let actions = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": doc }, "range": range, "context": { "diagnostics": [] } }),
    );
    let all = actions["result"].as_array().expect("actions");
    let fix = all.iter().find(|a| a["title"].as_str().is_some_and(|t| t.starts_with("Fix "))).expect("a fix");
    let edit = &fix["edit"]["changes"][&doc][0];
    assert_eq!(edit["newText"], "--busy-prefill-chunk");
    assert_eq!(edit["range"], json!({ "start": { "line": 1, "character": 9 }, "end": { "line": 1, "character": 24 } }));
    // In a fenced block, the suppression goes before the fence.
    let suppress =
        all.iter().find(|a| a["title"] == format!("Suppress {} on this line", found[0].0)).expect("suppress");
    assert_eq!(suppress["edit"]["changes"][&doc][0]["range"]["start"], json!({ "line": 0, "character": 0 }));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_llama_cpp_script_is_judged_by_its_engine() {
    let sh = "#!/bin/sh\nllama-server -m m.gguf --ctx-sizee 4096\n";
    let t = tree(&[("knobs.toml", b"[pin]\nengine = \"llama.cpp\"\n"), ("serve.sh", sh.as_bytes())]);
    let (mut c, _) = Client::start(t.path(), &[], &[]);
    let doc = uri(&t.path().join("serve.sh"));
    c.open(&doc, "shellscript", sh);
    let d = c.diagnostics(&doc, 1);
    assert_eq!(d.iter().map(placed).collect::<Vec<_>>(), [("KNB001".to_string(), 1, 23, 34)]);
    let actions = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": doc }, "range": d[0]["range"], "context": { "diagnostics": d } }),
    );
    let edit = &actions["result"][0]["edit"]["changes"][&doc][0];
    assert_eq!(edit["newText"], "# knobs: ignore[KNB001]\n");
    c.change(&doc, 2, "#!/bin/sh\nllama-server -m m.gguf --ctx");
    assert!(labels(&c.at("textDocument/completion", &doc, 1, 28)).contains(&"--ctx-size".to_string()));
    c.change(&doc, 3, "#!/bin/sh\nllama-server -m m.gguf --ctx-size 4096\n");
    assert_eq!(c.diagnostics(&doc, 3), Vec::<Value>::new());
    let hover = c.at("textDocument/hover", &doc, 1, 26);
    assert!(hover["contents"]["value"].as_str().is_some_and(|s| s.contains("--ctx-size")), "{hover}");
    // Each binary its own options (as KNB010 judges): the server's `--host`
    // is not offered to llama-cli, the client's `--conversation` not to
    // llama-server; a shared `--ctx-size` to both.
    let offered = |c: &mut Client, version: i64, line: &str| {
        c.change(&doc, version, &format!("#!/bin/sh\n{line}"));
        labels(&c.at("textDocument/completion", &doc, 1, line.chars().count() as u32))
    };
    assert_eq!(offered(&mut c, 4, "llama-server -m m.gguf --hos"), ["--host"]);
    assert_eq!(offered(&mut c, 5, "llama-cli -m m.gguf --hos"), Vec::<String>::new());
    assert_eq!(offered(&mut c, 6, "llama-cli -m m.gguf --conversatio"), ["--conversation"]);
    assert_eq!(offered(&mut c, 7, "llama-server -m m.gguf --conversatio"), Vec::<String>::new());
    assert!(offered(&mut c, 8, "llama-cli -m m.gguf --ctx-si").contains(&"--ctx-size".to_string()));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_vllm_compose_file_is_judged_against_its_pinned_catalogue() {
    let root = crate::support::fixtures().join("vllm/catalog/vllm/v0.20.1.toml");
    let catalog = std::fs::read(root).expect("catalogue");
    let compose = "services:\n  vllm:\n    image: vllm/vllm-openai:v0.20.1\n    command: [\"--model\", \"m\", \"--max-num-seqz\", \"8\"]\n";
    let toml = b"[pin]\nengine = \"vllm\"\ntag = \"v0.20.1\"\n\n[catalog]\ndir = \"catalog\"\n";
    let t =
        tree(&[("knobs.toml", toml), ("catalog/vllm/v0.20.1.toml", &catalog), ("compose.yaml", compose.as_bytes())]);
    let (mut c, _) = Client::start(t.path(), &[], &[]);
    let doc = uri(&t.path().join("compose.yaml"));
    c.open(&doc, "yaml", compose);
    let d = c.diagnostics(&doc, 1);
    assert_eq!(d.iter().map(placed).collect::<Vec<_>>(), [("KNB001".to_string(), 3, 31, 45)]);
    c.change(&doc, 2, "# vllm:num_requests_ru");
    let items = c.at("textDocument/completion", &doc, 0, 23);
    assert!(labels(&items).contains(&"vllm:num_requests_running".to_string()), "{items}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_bad_request_is_an_error_answer_and_the_server_goes_on() {
    let t = tree(&[("knobs.toml", b"[pin\n"), ("run.md", b"`--checkpoint-polcy`\n")]);
    let (mut c, _) = Client::start(t.path(), &[], &[]);
    let r = c.request("textDocument/hover", json!({ "nonsense": 1 }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.request("knobs/unknown", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // A broken knobs.toml is a diagnostic on the document, not a crash.
    let doc = uri(&t.path().join("run.md"));
    c.open(&doc, "markdown", "`--checkpoint-polcy`\n");
    let d = c.diagnostics(&doc, 1);
    assert_eq!(d.len(), 1);
    assert!(d[0]["message"].as_str().is_some_and(|m| m.contains("knobs.toml")), "{d:?}");
    // Saving a mended knobs.toml re-reads it.
    std::fs::write(t.path().join("knobs.toml"), "[pin]\ntag = \"v1.8.1\"\n").expect("write");
    c.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri(&t.path().join("knobs.toml")) } }));
    let d = c.diagnostics(&doc, 1);
    assert_eq!(d.iter().map(placed).collect::<Vec<_>>(), [("KNB001".to_string(), 0, 1, 19)]);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn neovim_07s_stop_then_quit_exits_0_and_exit_without_shutdown_exits_1() {
    let t = tree(&[("knobs.toml", b"[pin]\nengine = \"radiance\"\ntag = \"v1.8.1\"\n")]);
    // Neovim 0.7's stop_client, then its quit: `shutdown` twice, then `exit`.
    let (mut c, _) = Client::start(t.path(), &[], &[]);
    assert_eq!(c.request("shutdown", Value::Null)["result"], Value::Null);
    let late = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///x.md" }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(late["error"]["code"], -32600);
    assert_eq!(late["error"]["message"], "knobs server is shutting down: textDocument/hover not answered");
    assert_eq!(c.shutdown(), 0);
    // `exit` with no `shutdown` before it: 1, as LSP says.
    let (c, _) = Client::start(t.path(), &[], &[]);
    assert_eq!(c.exit(), 1);
}

#[test]
fn a_request_past_its_deadline_is_an_error_and_the_server_goes_on() {
    let md = "radiance --che";
    let t = tree(&[("knobs.toml", b"[pin]\nengine = \"radiance\"\ntag = \"v1.8.1\"\n"), ("run.md", md.as_bytes())]);
    let (mut c, _) = Client::start_with(t.path(), &[], &[], &[("KNOBS_SERVER_DEADLINE_MS", "0")]);
    let doc = uri(&t.path().join("run.md"));
    c.open(&doc, "markdown", md);
    let params = json!({ "textDocument": { "uri": doc }, "position": { "line": 0, "character": 14 } });
    let late = c.request("textDocument/completion", params);
    assert_eq!(late["error"]["code"], -32800, "{late}");
    assert_eq!(late["error"]["message"], "knobs server: no answer within 0 ms; the work was dropped");
    assert_eq!(c.shutdown(), 0);
}
