//! `knobs sync` end to end: a tagged git repository in, catalogues out.

use crate::support::{self, knobs};

/// The committed catalogues are exactly what sync writes from the fixture
/// repository. Set KNOBS_BLESS=1 to rewrite them after a deliberate change.
#[test]
fn committed_catalogues_regenerate_exactly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(tmp.path());
    for tag in ["v1.0.13", "v1.8.1"] {
        let r = knobs(tmp.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", tag, "--out", "out"]);
        assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
        let fresh =
            std::fs::read_to_string(tmp.path().join("out/radiance").join(format!("{tag}.toml"))).expect("written");
        let committed_path = support::root().join("catalog/radiance").join(format!("{tag}.toml"));
        if std::env::var_os("KNOBS_BLESS").is_some() {
            std::fs::write(&committed_path, &fresh).expect("bless");
            continue;
        }
        let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
        assert!(
            fresh == committed,
            "catalog/radiance/{tag}.toml is stale; rerun with KNOBS_BLESS=1 and review the diff"
        );
    }
}
