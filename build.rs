//! Rebuild when the embedded catalogues or profiles change (include_dir cannot tell cargo).
fn main() {
    println!("cargo:rerun-if-changed=catalog");
    println!("cargo:rerun-if-changed=profiles");
}
