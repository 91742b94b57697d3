//! Reading a scrape: an HTTP or HTTPS GET of a `/metrics` URL with a
//! bounded timeout, or a file saved from one. ureq lives here and nowhere
//! else. HTTPS is rustls checking the server's certificate against the
//! system's roots (the platform verifier; `SSL_CERT_FILE` names another
//! bundle); the check is never skipped.

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
}

/// True when `spec` is a URL rather than a file name.
pub fn is_url(spec: &str) -> bool {
    spec.contains("://")
}

/// Reads `spec`: a URL over HTTP or HTTPS, else a file relative to `cwd`.
pub fn read(spec: &str, cwd: &Path, timeout: Duration) -> Result<Scrape, VerifyError> {
    if is_url(spec) {
        return get(spec, timeout).map(|text| Scrape { text, from: spec.to_string() });
    }
    let path = cwd.join(spec);
    let bytes = crate::bounded::read(&path, crate::bounded::SCRAPE).map_err(|e| VerifyError::Read {
        what: "metrics file",
        path: spec.to_string(),
        message: e.to_string(),
    })?;
    let text =
        String::from_utf8(bytes).map_err(|_| VerifyError::NotText { what: "metrics file", from: spec.to_string() })?;
    Ok(Scrape { text, from: spec.to_string() })
}

/// The port a URL names, as written (`[::1]:9090` → `9090`).
fn port_of(url: &str) -> Option<&str> {
    let authority = url.split_once("://")?.1.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    if host_port.starts_with('[') {
        host_port.split_once("]:").map(|(_, p)| p)
    } else {
        host_port.rsplit_once(':').map(|(_, p)| p)
    }
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
    // A port out of range would otherwise read as "nothing listens there".
    if let Some(port) = port_of(url) {
        if !port.is_empty() && port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(VerifyError::Fetch {
                url: url.to_string(),
                message: format!("`{port}` is not a port (1 to 65535)"),
                help: None,
            });
        }
    }
    // Redirects are not followed: a scrape that lands elsewhere would be
    // judged as this endpoint's.
    let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .tls_config(tls)
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();
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
        ureq::Error::Rustls(ref e) => tls_failed(url, &e.to_string()),
        ureq::Error::Io(ref io) if io.get_ref().is_some_and(|inner| is_certificate(&inner.to_string())) => {
            tls_failed(url, &io.get_ref().map(ToString::to_string).unwrap_or_default())
        }
        ureq::Error::Tls(message) => tls_failed(url, message),
        other => VerifyError::Fetch { url: url.to_string(), message: other.to_string(), help: None },
    };
    let mut response = agent.get(url).call().map_err(fail)?;
    let status = response.status();
    if status.is_redirection() {
        let to = response.headers().get("location").and_then(|l| l.to_str().ok()).unwrap_or("nowhere named");
        return Err(VerifyError::Fetch {
            url: url.to_string(),
            message: format!("the server answered {status}, to {to}"),
            help: Some("verify does not follow redirects: pass the URL the metrics are served at".into()),
        });
    }
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

/// True when a TLS failure is about the server's certificate.
fn is_certificate(message: &str) -> bool {
    message.contains("certificate")
}

/// A TLS handshake that failed: a certificate the system's roots do not
/// vouch for is said so, with what to do (never: skip the check).
fn tls_failed(url: &str, detail: &str) -> VerifyError {
    if is_certificate(detail) {
        VerifyError::Fetch {
            url: url.to_string(),
            message: format!("the server's TLS certificate is not trusted ({detail})"),
            help: Some(
                "knobs checks https certificates against the system's roots: add the issuing CA to them (or name a bundle with SSL_CERT_FILE), or scrape over http on the engine's own host".into(),
            ),
        }
    } else {
        VerifyError::Fetch { url: url.to_string(), message: format!("the TLS handshake failed: {detail}"), help: None }
    }
}

#[cfg(test)]
mod tests {
    use super::port_of;

    #[test]
    fn the_port_as_written() {
        assert_eq!(port_of("http://127.0.0.1:99999/m"), Some("99999"));
        assert_eq!(port_of("http://[::1]:9090/metrics"), Some("9090"));
        assert_eq!(port_of("http://[::1]/metrics"), None);
        assert_eq!(port_of("http://u:pw@host/m"), None);
        assert_eq!(port_of("http://host:8000?x=1"), Some("8000"));
    }
}
