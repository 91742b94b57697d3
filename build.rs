//! Rebuild when the embedded catalogues change (include_dir cannot tell cargo).
fn main() {
    println!("cargo:rerun-if-changed=catalog");
}
