//! Authentication between Alkaid's client and server: the bearer token handed out by a
//! basic-auth handshake, and mutual TLS (a server that admits only clients with a
//! certificate of its CA). pyarrow's client does both in `pyarrow.rs`.

use crate::certificates::Certificates;
use crate::peers::{AlkaidServer, runtime, scratch};
use alkaid_flight::{ClientOptions, DirectoryService, FlightClient, ServerOptions};

#[test]
fn a_token_is_handed_out_for_basic_credentials_only() {
    let dir = scratch("auth_basic");
    let runtime = runtime();
    let options = ServerOptions::default()
        .with_token("t0ken")
        .with_basic_auth("ann", "pa55");
    let server = AlkaidServer::start(&runtime, DirectoryService::new(&dir), options);
    let uri = format!("grpc://127.0.0.1:{}", server.port);
    runtime.block_on(async {
        let mut client = FlightClient::connect(&uri).await.unwrap();
        let denied = client.list_flights(bytes::Bytes::new()).await.unwrap_err();
        assert_eq!(denied.code(), tonic::Code::Unauthenticated, "{denied}");
        let wrong = client.authenticate_basic("ann", "wrong").await.unwrap_err();
        assert_eq!(wrong.code(), tonic::Code::Unauthenticated, "{wrong}");
        let token = client.authenticate_basic("ann", "pa55").await.unwrap();
        assert_eq!(token, "t0ken");
        // Every later call, of this client and its clones, carries the token.
        assert!(
            client
                .list_flights(bytes::Bytes::new())
                .await
                .unwrap()
                .is_empty()
        );
        let mut clone = client.clone();
        assert!(
            clone
                .list_flights(bytes::Bytes::new())
                .await
                .unwrap()
                .is_empty()
        );
    });
    drop(server);

    // Basic authentication hands out the server's token: without one the server refuses
    // to start.
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let options = ServerOptions::default().with_basic_auth("ann", "pa55");
    let service = DirectoryService::new(&dir);
    let err = runtime
        .block_on(alkaid_flight::serve(service, listener, options, async {}))
        .unwrap_err();
    assert!(err.to_string().contains("set one (with_token)"), "{err}");
}

#[test]
fn mutual_tls_admits_only_clients_with_a_certificate_of_its_ca() {
    let dir = scratch("auth_mutual");
    let certs = Certificates::new();
    let options = ServerOptions::default()
        .with_tls(certs.server.0.clone(), certs.server.1.clone())
        .with_client_ca(certs.ca.clone());
    let runtime = runtime();
    let server = AlkaidServer::start(&runtime, DirectoryService::new(&dir), options);
    let uri = format!("grpc+tls://localhost:{}", server.port);
    runtime.block_on(async {
        let trusting = ClientOptions::default().with_tls(certs.ca.clone(), None);
        let with_certificate = trusting
            .clone()
            .with_identity(certs.client.0.clone(), certs.client.1.clone());
        let mut client = FlightClient::connect_with(&uri, with_certificate)
            .await
            .unwrap();
        assert!(
            client
                .list_flights(bytes::Bytes::new())
                .await
                .unwrap()
                .is_empty()
        );
        // Without a client certificate, the TLS handshake fails.
        let refused = match FlightClient::connect_with(&uri, trusting).await {
            Err(e) => e.to_string(),
            Ok(mut client) => client
                .list_flights(bytes::Bytes::new())
                .await
                .unwrap_err()
                .to_string(),
        };
        assert!(!refused.is_empty());
        // With a certificate another CA signed, too.
        let other = Certificates::new();
        let stranger = ClientOptions::default()
            .with_tls(certs.ca.clone(), None)
            .with_identity(other.client.0, other.client.1);
        let refused = match FlightClient::connect_with(&uri, stranger).await {
            Err(_) => true,
            Ok(mut client) => client.list_flights(bytes::Bytes::new()).await.is_err(),
        };
        assert!(refused);
    });
}
