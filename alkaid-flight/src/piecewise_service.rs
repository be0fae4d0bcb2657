//! The service [`serve`](crate::serve) runs: the user's own, except that the FlightData
//! its `DoGet` and `DoExchange` answer is handed to the server's outer layer, which sends
//! it as a [`PiecewiseBody`](crate::framing::PiecewiseBody), instead of to tonic's codec.

use futures_util::stream;
use tonic::codegen::BoxStream;
use tonic::{Request, Response, Status, Streaming};

use crate::flight_data::FlightData;
use crate::framing::{Pending, encoded_ahead};
use crate::proto::flight_service_server::FlightService;
use crate::proto::{
    Action, ActionType, Criteria, Empty, FlightDescriptor, FlightInfo, HandshakeRequest,
    HandshakeResponse, PollInfo, PutResult, SchemaResult, Ticket,
};

/// `S`, with its FlightData answers sent piece by piece.
pub(crate) struct Piecewise<S>(pub(crate) S);

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
        self.0.handshake(request).await
    }

    async fn list_flights(
        &self,
        request: Request<Criteria>,
    ) -> Result<Response<BoxStream<FlightInfo>>, Status> {
        self.0.list_flights(request).await
    }

    async fn get_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.0.get_flight_info(request).await
    }

    async fn poll_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<PollInfo>, Status> {
        self.0.poll_flight_info(request).await
    }

    async fn get_schema(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<SchemaResult>, Status> {
        self.0.get_schema(request).await
    }

    async fn do_get(
        &self,
        request: Request<Ticket>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        Ok(piecewise(self.0.do_get(request).await?))
    }

    async fn do_put(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<PutResult>>, Status> {
        self.0.do_put(request).await
    }

    async fn do_exchange(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        Ok(piecewise(self.0.do_exchange(request).await?))
    }

    async fn do_action(
        &self,
        request: Request<Action>,
    ) -> Result<Response<BoxStream<crate::proto::Result>>, Status> {
        self.0.do_action(request).await
    }

    async fn list_actions(
        &self,
        request: Request<Empty>,
    ) -> Result<Response<BoxStream<ActionType>>, Status> {
        self.0.list_actions(request).await
    }
}
