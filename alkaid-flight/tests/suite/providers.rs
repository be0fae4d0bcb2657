//! TLS under each cryptography provider in one build.
//!
//! With both `tls-aws-lc` and `tls-ring` on (CI's test pass turns `tls-ring` on beside the
//! default), alkaid-flight uses the process's rustls provider, or ring when none is
//! installed (`src/tls_provider.rs`). So the TLS tests of this binary run under ring, and
//! [`the_tls_tests_pass_under_aws_lc_too`] runs them again in a child process of the same
//! binary that installs aws-lc first: both providers are tested without a second build of
//! tonic and rustls.

/// The variable that tells a child run which provider to install.
const PROVIDER: &str = "ALKAID_FLIGHT_TLS_PROVIDER";

/// Installs the provider the parent asked for, once per process; without the variable,
/// leaves the choice to tonic. Called by `peers::runtime`, which every test starts with.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(feature = "tls-aws-lc")]
        if let Some(name) = std::env::var_os(PROVIDER) {
            assert_eq!(
                name, "aws-lc",
                "{PROVIDER}: the only provider to install is aws-lc"
            );
            rustls::crypto::aws_lc_rs::default_provider()
                .install_default()
                .expect("no provider was installed before");
        }
    });
}

#[cfg(all(feature = "tls-aws-lc", feature = "tls-ring"))]
#[test]
fn the_tls_tests_pass_under_aws_lc_too() {
    if std::env::var_os(PROVIDER).is_some() {
        return; // This is the child.
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["tls", "--skip", "the_tls_tests_pass_under_aws_lc_too"])
        .env(PROVIDER, "aws-lc")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the TLS tests failed under aws-lc:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The filter must still find the TLS tests (three: Alkaid with itself, mutual TLS,
    // Alkaid's client with pyarrow's server).
    let passed = stdout
        .lines()
        .find_map(|line| line.strip_prefix("test result: ok. "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok());
    assert!(matches!(passed, Some(n) if n >= 3), "{stdout}");
}
