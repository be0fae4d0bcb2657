//! Certificates for TLS tests, made fresh by each run (rcgen): a certificate authority,
//! a server certificate for `localhost` and a client certificate it signed. Shared by the
//! Flight and Flight SQL tests.

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

/// A certificate authority, a server certificate for `localhost` and a client certificate
/// it signed, as PEM (certificate, key).
pub struct Certificates {
    pub ca: Vec<u8>,
    pub server: (Vec<u8>, Vec<u8>),
    pub client: (Vec<u8>, Vec<u8>),
}

impl Certificates {
    pub fn new() -> Self {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "Alkaid test CA");
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf = |name: &str| {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(vec![name.to_string()]).unwrap();
            params.distinguished_name.push(DnType::CommonName, name);
            let cert = params.signed_by(&key, &issuer).unwrap();
            (cert.pem().into_bytes(), key.serialize_pem().into_bytes())
        };
        Self {
            ca: ca.pem().into_bytes(),
            server: leaf("localhost"),
            client: leaf("client"),
        }
    }
}
