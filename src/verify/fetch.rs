//! Reading a scrape: an HTTP GET of a `/metrics` URL with a bounded
//! timeout, or a file saved from one. ureq lives here and nowhere else.

use std::path::Path;
use std::time::Duration;

use super::VerifyError;

/// The largest exposition read (a real one is tens of kilobytes).
const MAX_BODY: u64 = crate::bounded::SCRAPE;

/// A scrape's text and how to name where it came from.
#[derive(Debug, Clone)]
pub struct Scrape {
    pub text: String,
    /// The URL, or the file as given.
    pub from: String,
    /// True for a file (errors can point into it).
    pub is_file: bool,
}

/// True when `spec` is a URL rather than a file name.
pub fn is_url(spec: &str) -> bool {
    spec.contains("://")
}

/// Reads `spec`: a URL over HTTP, else a file relative to `cwd`.
pub fn read(spec: &str, cwd: &Path, timeout: Duration) -> Result<Scrape, VerifyError> {
    if is_url(spec) {
        return get(spec, timeout).map(|text| Scrape { text, from: spec.to_string(), is_file: false });
    }
    let path = cwd.join(spec);
    let bytes = crate::bounded::read(&path, crate::bounded::SCRAPE).map_err(|e| VerifyError::Read {
        what: "metrics file",
        path: spec.to_string(),
        message: e.to_string(),
    })?;
    let text =
        String::from_utf8(bytes).map_err(|_| VerifyError::NotText { what: "metrics file", from: spec.to_string() })?;
    Ok(Scrape { text, from: spec.to_string(), is_file: true })
}

/// GETs a URL, the whole exchange bounded by `timeout`.
fn get(url: &str, timeout: Duration) -> Result<String, VerifyError> {
    let scheme = url.split("://").next().unwrap_or("");
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(VerifyError::Fetch {
            url: url.to_string(),
            message: format!("`{scheme}` is not http or https"),
            help: None,
        });
    }
    // Built without TLS: say so before trying to connect anywhere.
    if scheme.eq_ignore_ascii_case("https") {
        return Err(VerifyError::Fetch {
            url: url.to_string(),
            message: "knobs is built without TLS, so it cannot read https".into(),
            help: Some("scrape over plain http on the engine's own host, or save the scrape and pass the file".into()),
        });
    }
    let agent: ureq::Agent =
        ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build().into();
    let fail = |e: ureq::Error| match e {
        ureq::Error::Timeout(_) => VerifyError::Timeout { url: url.to_string(), seconds: timeout.as_secs_f64() },
        ureq::Error::Io(ref io) if io.kind() == std::io::ErrorKind::TimedOut => {
            VerifyError::Timeout { url: url.to_string(), seconds: timeout.as_secs_f64() }
        }
        ureq::Error::ConnectionFailed => VerifyError::Fetch {
            url: url.to_string(),
            message: "connection refused: nothing listens there".into(),
            help: Some("is the engine up, and is this its metrics port?".into()),
        },
        ureq::Error::Io(ref io) if io.kind() == std::io::ErrorKind::ConnectionRefused => VerifyError::Fetch {
            url: url.to_string(),
            message: "connection refused: nothing listens there".into(),
            help: Some("is the engine up, and is this its metrics port?".into()),
        },
        ureq::Error::TlsRequired | ureq::Error::Tls(_) => VerifyError::Fetch {
            url: url.to_string(),
            message: "knobs is built without TLS, so it cannot read https".into(),
            help: Some("scrape over plain http on the engine's own host, or save the scrape and pass the file".into()),
        },
        other => VerifyError::Fetch { url: url.to_string(), message: other.to_string(), help: None },
    };
    let mut response = agent.get(url).call().map_err(fail)?;
    let status = response.status();
    if !status.is_success() {
        return Err(VerifyError::Fetch {
            url: url.to_string(),
            message: format!("the server answered {status}"),
            help: (status.as_u16() == 503)
                .then(|| "an engine answers 503 until its model is loaded: try again once it is".to_string()),
        });
    }
    response.body_mut().with_config().limit(MAX_BODY).read_to_string().map_err(fail)
}
