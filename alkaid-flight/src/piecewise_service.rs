//! The service [`serve`](crate::serve) runs: the user's own, except that the FlightData
//! its `DoGet` and `DoExchange` answer is handed to the server's outer layer, which sends
//! it as a [`PiecewiseBody`](crate::framing::PiecewiseBody), instead of to tonic's codec,
//! and that a handshake with basic credentials is answered by the server's [`Auth`].

use std::sync::Arc;

use futures_util::stream;
use tonic::codegen::BoxStream;
use tonic::{Request, Response, Status, Streaming};

use crate::auth::Auth;
use crate::flight_data::FlightData;
use crate::framing::{Pending, encoded_ahead};
use crate::proto::flight_service_server::FlightService;
use crate::proto::{
    Action, ActionType, Criteria, Empty, FlightDescriptor, FlightInfo, HandshakeRequest,
    HandshakeResponse, PollInfo, PutResult, SchemaResult, Ticket,
};

/// `S`, with its FlightData answers sent piece by piece.
pub(crate) struct Piecewise<S> {
    pub service: S,
    pub auth: Arc<Auth>,
}

/// The response with its messages moved into a [`Pending`] extension and an empty stream
/// left for tonic.
fn piecewise(response: Response<BoxStream<FlightData>>) -> Response<BoxStream<FlightData>> {
    let (metadata, messages, mut extensions) = response.into_parts();
    extensions.insert(Pending::new(encoded_ahead(messages)));
    Response::from_parts(metadata, Box::pin(stream::empty()), extensions)
}

#[tonic::async_trait]
impl<S: FlightService> FlightService for Piecewise<S> {
    async fn handshake(
        &self,
        request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<BoxStream<HandshakeResponse>>, Status> {
        if let Some(answer) = self.auth.basic_handshake(request.metadata()) {
            return answer;
        }
        self.service.handshake(request).await
    }

    async fn list_flights(
        &self,
        request: Request<Criteria>,
    ) -> Result<Response<BoxStream<FlightInfo>>, Status> {
        self.service.list_flights(request).await
    }

    async fn get_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.service.get_flight_info(request).await
    }

    async fn poll_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<PollInfo>, Status> {
        self.service.poll_flight_info(request).await
    }

    async fn get_schema(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<SchemaResult>, Status> {
        self.service.get_schema(request).await
    }

    async fn do_get(
        &self,
        request: Request<Ticket>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        Ok(piecewise(self.service.do_get(request).await?))
    }

    async fn do_put(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<PutResult>>, Status> {
        self.service.do_put(request).await
    }

    async fn do_exchange(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        Ok(piecewise(self.service.do_exchange(request).await?))
    }

    async fn do_action(
        &self,
        request: Request<Action>,
    ) -> Result<Response<BoxStream<crate::proto::Result>>, Status> {
        self.service.do_action(request).await
    }

    async fn list_actions(
        &self,
        request: Request<Empty>,
    ) -> Result<Response<BoxStream<ActionType>>, Status> {
        self.service.list_actions(request).await
    }
}
