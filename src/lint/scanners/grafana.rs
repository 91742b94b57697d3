//! A query as a dashboard writes it, made PromQL: Grafana's variables
//! (`$__rate_interval`, `$var`, `${var}`, `${var:regex}`, `[[var]]`)
//! stand where PromQL wants a duration or a number, and a template
//! variable's query is a call of Grafana's own (`label_values(m, label)`,
//! `query_result(q)`). What stands in for them changes no metric name and
//! no label, so the names the PromQL scanner finds are the ones written.

/// The PromQL a dashboard's query stands for, or `None` when it is not one
/// (`label_names()`, `metrics(…)`, a variable inside a metric name).
pub fn to_promql(query: &str) -> Option<String> {
    let q = query.trim();
    if let Some(args) = call_args(q, "label_values") {
        // label_values(selector, label): the selector must carry the label.
        let (sel, label) = split_last_arg(args)?;
        let label = label.trim();
        if !label.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || label.is_empty() {
            return None;
        }
        return variables(&format!("count by ({label}) ({sel})"));
    }
    if let Some(args) = call_args(q, "query_result") {
        return variables(args);
    }
    if ["label_names", "metrics"].iter().any(|f| call_args(q, f).is_some()) {
        return None;
    }
    variables(q)
}

/// The label a `label_values(selector, label)` query lists, as written.
pub fn listed_label(query: &str) -> Option<&str> {
    let (_, label) = split_last_arg(call_args(query.trim(), "label_values")?)?;
    Some(label.trim())
}

/// The text between `name(` and its last `)`, when `q` is that call.
fn call_args<'q>(q: &'q str, name: &str) -> Option<&'q str> {
    q.strip_prefix(name)?.trim_start().strip_prefix('(')?.strip_suffix(')')
}

/// `a, b` split at its last comma outside brackets and quotes.
fn split_last_arg(args: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut quote = None;
    let mut last = None;
    for (i, c) in args.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '(' | '{' | '[') => depth += 1,
            (None, ')' | '}' | ']') => depth -= 1,
            (None, ',') if depth == 0 => last = Some(i),
            _ => {}
        }
    }
    last.map(|i| (&args[..i], &args[i + 1..]))
}

/// `q` with each variable outside a string replaced: by `5m` where PromQL
/// wants a duration (after `[`, a subquery's `:`, `offset`), by `1`
/// elsewhere. `None` when a variable is part of a name (`vllm:$metric`):
/// the name is not known until Grafana fills it in.
fn variables(q: &str) -> Option<String> {
    let b = q.as_bytes();
    let mut out = String::with_capacity(q.len());
    let mut quote: Option<u8> = None;
    // Inside `[…]`, a `:` is a subquery's, not part of a name.
    let mut ranges = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(open) => {
                if c == b'\\' && open != b'`' {
                    out.push_str(&q[i..(i + 2).min(q.len())]);
                    i += 2;
                    continue;
                }
                if c == open {
                    quote = None;
                }
            }
            None if matches!(c, b'"' | b'\'' | b'`') => quote = Some(c),
            None => {
                if let Some(len) = variable_len(&q[i..]) {
                    let joined = |n: u8| name_byte(n) && !(n == b':' && ranges > 0);
                    if i > 0 && joined(b[i - 1]) || b.get(i + len).is_some_and(|n| joined(*n)) {
                        return None;
                    }
                    let before = out.trim_end();
                    let duration = before.ends_with('[') || before.ends_with(':') || before.ends_with("offset");
                    out.push_str(if duration { "5m" } else { "1" });
                    i += len;
                    continue;
                }
            }
        }
        if quote.is_none() {
            match c {
                b'[' => ranges += 1,
                b']' => ranges = ranges.saturating_sub(1),
                _ => {}
            }
        }
        let len = q[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&q[i..i + len]);
        i += len;
    }
    Some(out)
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b':'
}

/// The length of the Grafana variable `s` starts with, if it starts with one.
fn variable_len(s: &str) -> Option<usize> {
    let word = |t: &str| t.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
    if let Some(rest) = s.strip_prefix("${") {
        return rest.find('}').filter(|&k| k > 0).map(|k| k + 3);
    }
    if let Some(rest) = s.strip_prefix("[[") {
        let n = word(rest);
        return (n > 0 && rest[n..].starts_with("]]")).then_some(n + 4);
    }
    let rest = s.strip_prefix('$')?;
    let n = word(rest);
    (n > 0).then_some(n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_stand_for_durations_and_numbers() {
        assert_eq!(
            to_promql("sum(rate(vllm:x_total{model_name=~\"$model\"}[$__rate_interval]))").as_deref(),
            Some("sum(rate(vllm:x_total{model_name=~\"$model\"}[5m]))")
        );
        assert_eq!(to_promql("rate(a[${interval}]) offset $off").as_deref(), Some("rate(a[5m]) offset 5m"));
        assert_eq!(to_promql("topk($n, rate(a[[[w]]]))").as_deref(), Some("topk(1, rate(a[5m]))"));
        assert_eq!(to_promql("max_over_time(a[1h:$step])").as_deref(), Some("max_over_time(a[1h:5m])"));
        assert_eq!(to_promql("rate(vllm:${metric}_total[5m])"), None);
        assert_eq!(to_promql("a{b=\"\\\"$x\"} * $k").as_deref(), Some("a{b=\"\\\"$x\"} * 1"));
    }

    #[test]
    fn template_queries_are_read_as_promql() {
        assert_eq!(
            to_promql("label_values(vllm:num_requests_running{job=~\"$job\", a=\"b,c\"}, model_name)").as_deref(),
            Some("count by (model_name) (vllm:num_requests_running{job=~\"$job\", a=\"b,c\"})")
        );
        assert_eq!(to_promql("query_result(topk(5, vllm:x))").as_deref(), Some("topk(5, vllm:x)"));
        assert_eq!(to_promql("label_values(model_name)"), None);
        assert_eq!(listed_label(" label_values(vllm:x{a=\"b\"},  model )"), Some("model"));
        assert_eq!(to_promql("label_names()"), None);
        assert_eq!(to_promql("metrics(vllm:.*)"), None);
    }
}
