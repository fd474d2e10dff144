//! The delivery layer against real receivers on loopback: an SMTP server (mailin-embedded)
//! and a small HTTP/1.1 server, both speaking the real protocols: mail (`mail`) and webhooks
//! (`webhooks`), with the private certificate authority both trust here.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use herald::delivery::Attempt;
use herald::delivery::breaker::BreakerConfig;
use herald::delivery::chat::{Author, ChatMessage};
use herald::delivery::mail::{EmailMessage, Mailer};
use herald::delivery::outbound::{self, Policy, UrlRefusal};
use herald::delivery::signature;
use herald::delivery::webhook::{WebhookClient, WebhookRequest};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::helpers::tools;

mod mail;
pub(crate) mod webhooks;

/// A CA made for one test and a certificate it issued for "localhost", as PEM files in `dir`.
struct TestPki {
    ca_file: std::path::PathBuf,
    cert_file: std::path::PathBuf,
    key_file: std::path::PathBuf,
    cert: rcgen::Certificate,
    key: rcgen::KeyPair,
}

impl TestPki {
    fn new(dir: &std::path::Path) -> Self {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Herald test CA");
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
            .unwrap()
            .signed_by(&key, &ca, &ca_key)
            .unwrap();
        let pki = Self {
            ca_file: dir.join("ca.pem"),
            cert_file: dir.join("cert.pem"),
            key_file: dir.join("key.pem"),
            cert,
            key,
        };
        std::fs::write(&pki.ca_file, ca.pem()).unwrap();
        std::fs::write(&pki.cert_file, pki.cert.pem()).unwrap();
        std::fs::write(&pki.key_file, pki.key.serialize_pem()).unwrap();
        pki
    }
}

/// A TLS front for the plain server at `backend` (SMTP for `smtps://`, or HTTP for `https://`),
/// with `pki`'s certificate, forwarding the bytes as they are. Answers its port.
async fn smtps_front(backend: SocketAddr, pki: &TestPki) -> u16 {
    use tokio_rustls::rustls::{self, pki_types};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![pki.cert.der().clone()],
            pki_types::PrivateKeyDer::Pkcs8(pki.key.serialize_der().into()),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(backend).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    port
}
