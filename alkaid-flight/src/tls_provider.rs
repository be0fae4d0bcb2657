//! Which rustls provider TLS uses when both `tls-aws-lc` and `tls-ring` are on.
//!
//! rustls picks the process's provider from its crate features only when exactly one is
//! on; with both (a user adding `tls-ring` without turning the defaults off, or
//! `--all-features`) its server configuration would panic for want of a choice, while
//! tonic's client quietly takes ring. So the server makes the client's choice explicit:
//! ring, unless the process installed a provider of its own before.

/// Installs ring as the process's rustls provider when both features are on and none is
/// installed; otherwise does nothing (rustls' own choice from its one feature stands).
pub(crate) fn choose() {
    #[cfg(all(feature = "tls-aws-lc", feature = "tls-ring"))]
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race to another thread installing one is fine: a provider is installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
