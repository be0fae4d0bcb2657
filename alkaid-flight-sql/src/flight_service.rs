//! Flight's calls, each carrying a Flight SQL command, answered by the service's work
//! (`service.rs`). Every status leaves through [`Redactor`](crate::status::Redactor): no
//! answer names the served directory's own path.

use std::sync::Arc;

use alkaid_flight::proto::flight_service_server::FlightService;
use alkaid_flight::proto::{
    ActionType, CancelFlightInfoRequest, CancelFlightInfoResult, CancelStatus, Criteria,
    FlightInfo, HandshakeRequest, HandshakeResponse, PollInfo, PutResult, Result as ActionResult,
    SchemaResult,
};
use alkaid_flight::{
    Action, FlightData, FlightDescriptor, FlightError, FlightRecordBatchStream, RequestBodyWatch,
    Ticket,
};
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt, stream};
use prost::Message;
use tonic::codegen::BoxStream;
use tonic::{Request, Response, Status, Streaming};

use crate::client_sessions::Caller;
use crate::command::{Command, Packed};
use crate::confined::Refusal;
use crate::ingest::ingest;
use crate::parameters::{self, Metered};
use crate::proto::command_statement_ingest::table_definition_options::TableExistsOption;
use crate::proto::*;
use crate::service::{FlightSqlService, command_of, parameter_schema, ticket};
use crate::session::Source;
use crate::status::refused;
use crate::write_plan::{read_only, store_read_only, writes};

impl FlightSqlService {
    /// `status` as a client may see it.
    fn redact(&self, status: Status) -> Status {
        self.inner.redactor.status(status)
    }

    /// `answer`, its error and every error it streams redacted.
    fn redacted<T: Send + 'static>(
        &self,
        answer: Result<Response<BoxStream<T>>, Status>,
    ) -> Result<Response<BoxStream<T>>, Status> {
        let redactor = self.inner.redactor.clone();
        let response = answer.map_err(|s| redactor.status(s))?;
        Ok(response.map(|items| Box::pin(items.map_err(move |s| redactor.status(s))) as _))
    }

    async fn flight_info_of(
        &self,
        descriptor: FlightDescriptor,
        caller: &Caller,
    ) -> Result<FlightInfo, Status> {
        let command = command_of(&descriptor)?;
        let pending = match (&command, statement_of(&command)?) {
            (_, Some(source)) => self.query(source, caller).await?,
            (Command::CommandPreparedStatementQuery(prepared), _) => {
                self.prepared_query(&prepared.prepared_statement_handle)?
            }
            (metadata_command, None) => {
                let (schema, _) = self.metadata(metadata_command, false).await?;
                return self.flight_info(descriptor, &schema, metadata_command.pack());
            }
        };
        let schema = Arc::clone(&pending.schema);
        let handle = self.inner.statements.plan(pending)?;
        self.flight_info(descriptor, &schema, ticket(handle))
    }

    async fn schema_of(
        &self,
        descriptor: &FlightDescriptor,
        caller: &Caller,
    ) -> Result<SchemaResult, Status> {
        let command = command_of(descriptor)?;
        let schema = match (&command, statement_of(&command)?) {
            (_, Some(source)) => self.query(source, caller).await?.schema,
            (Command::CommandPreparedStatementQuery(prepared), _) => {
                let prepared = self
                    .inner
                    .statements
                    .prepared(&prepared.prepared_statement_handle)?;
                crate::execution::result_schema(&prepared.plan)
            }
            (other, None) => self.metadata(other, false).await?.0,
        };
        Ok(SchemaResult {
            schema: self.ipc_schema(&schema)?,
        })
    }

    async fn get(&self, ticket: &Ticket) -> Result<Response<BoxStream<FlightData>>, Status> {
        let command = Command::unpack(&ticket.ticket)?;
        if let Command::TicketStatementQuery(ticket) = &command {
            let handle = ticket.statement_handle.clone();
            let (pending, cancelled) = self.inner.statements.start(&handle)?;
            return Ok(Response::new(self.run(handle, pending, cancelled)?));
        }
        let (schema, batch) = self.metadata(&command, true).await?;
        let batches = stream::iter(batch.into_iter().map(Ok)).boxed();
        Ok(Response::new(self.encoded(&schema, batches)?))
    }

    async fn put(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<PutResult>>, Status> {
        let watch = request.extensions().get::<RequestBodyWatch>().cloned();
        let caller = Caller::of(&request);
        let (data, meter) = Metered::new(request.into_inner().map_err(FlightError::from));
        let mut upload = FlightRecordBatchStream::new(data, self.inner.options.read.clone());
        // The first message names the command; an update sends a schema and no batches.
        let schema = upload.read_schema().await;
        let descriptor = upload.descriptor().cloned().ok_or_else(|| {
            Status::invalid_argument(
                "the first message of a DoPut carries the command's descriptor",
            )
        })?;
        let options = &self.inner.options;
        let count = match command_of(&descriptor)? {
            Command::CommandStatementUpdate(update) => {
                no_transaction(&update.transaction_id)?;
                self.update(&update.query, &caller).await?
            }
            Command::CommandStatementSubstraitPlan(_) => {
                // DataFusion's Substrait consumer reads no writes: every plan is a query.
                return Err(Status::invalid_argument(
                    "a Substrait plan here is a query: run it with GetFlightInfo",
                ));
            }
            Command::CommandStatementIngest(command) => {
                self.may_ingest(&command)?;
                schema?;
                let (tables, write) = (&self.inner.tables, options.write.clone());
                let budget = self.inner.sessions.budget();
                let rows =
                    ingest(tables, &command, &mut upload, watch.as_ref(), write, budget).await?;
                i64::try_from(rows).unwrap_or(i64::MAX)
            }
            Command::CommandPreparedStatementQuery(prepared) => {
                schema?;
                let handle = prepared.prepared_statement_handle;
                meter.limit(options.parameter_bytes);
                let bound = parameters::collect(&mut upload, options.parameter_rows).await?;
                self.inner.statements.bind(&handle, bound)?;
                let answer = DoPutPreparedStatementResult {
                    prepared_statement_handle: Some(handle),
                };
                return Ok(put_result(answer.encode_to_vec().into()));
            }
            Command::CommandPreparedStatementUpdate(prepared) => {
                let statement = self
                    .inner
                    .statements
                    .prepared(&prepared.prepared_statement_handle)?;
                let bound = match schema {
                    Ok(_) => {
                        meter.limit(options.parameter_bytes);
                        let bound = parameters::collect(&mut upload, options.parameter_rows);
                        Some(bound.await?)
                    }
                    Err(_) => None,
                };
                self.prepared_update(&statement, bound).await?
            }
            other => {
                return Err(Status::invalid_argument(format!(
                    "{} is not a command for DoPut",
                    other.name()
                )));
            }
        };
        let answer = DoPutUpdateResult {
            record_count: count,
        };
        Ok(put_result(answer.encode_to_vec().into()))
    }

    /// Prepares `source` for `caller`: the prepared statement's handle, schemas, and
    /// whether it is an update.
    async fn prepared(
        &self,
        source: Source<'_>,
        caller: &Caller,
    ) -> Result<Response<BoxStream<ActionResult>>, Status> {
        let (prepared, dataset_schema) = self.prepare(source, caller).await?;
        let parameters = parameter_schema(&prepared.plan)?;
        let is_update = writes(&prepared.plan);
        let handle = self.inner.statements.prepare(prepared)?;
        let result = ActionCreatePreparedStatementResult {
            prepared_statement_handle: handle,
            dataset_schema: self.ipc_schema(&dataset_schema)?,
            parameter_schema: match parameters {
                Some(schema) => self.ipc_schema(&schema)?,
                None => Bytes::new(),
            },
            is_update: Some(is_update),
        };
        Ok(action_result(result.pack()))
    }

    /// Refuses bulk ingestion the operator has not allowed.
    fn may_ingest(&self, command: &CommandStatementIngest) -> Result<(), Status> {
        if !self.inner.sessions.writes() {
            return Err(refused(read_only()));
        }
        if self.inner.sessions.served().is_none() {
            return Err(refused(store_read_only()));
        }
        let options = command.table_definition_options.unwrap_or_default();
        let replaces =
            TableExistsOption::try_from(options.if_exists) == Ok(TableExistsOption::Replace);
        if replaces && !self.inner.options.replace {
            return Err(refused(Refusal::denied(
                "bulk ingestion in replace mode would remove a table's files, which this \
                 server's operator has not allowed: ingest a new table, or append",
            )));
        }
        Ok(())
    }

    async fn act(
        &self,
        action: Action,
        caller: &Caller,
    ) -> Result<Response<BoxStream<ActionResult>>, Status> {
        match action.r#type.as_str() {
            "CreatePreparedStatement" => {
                let request = ActionCreatePreparedStatementRequest::unpack(&action.body)?;
                no_transaction(&request.transaction_id)?;
                self.prepared(Source::Sql(&request.query), caller).await
            }
            "CreatePreparedSubstraitPlan" => {
                let request = ActionCreatePreparedSubstraitPlanRequest::unpack(&action.body)?;
                no_transaction(&request.transaction_id)?;
                let plan = request.plan.as_ref();
                let plan =
                    plan.ok_or_else(|| no_plan(ActionCreatePreparedSubstraitPlanRequest::NAME))?;
                self.prepared(Source::Substrait(plan), caller).await
            }
            "SetSessionOptions" | "GetSessionOptions" | "CloseSession" => {
                let clients = &self.inner.clients;
                clients.act(&action.r#type, &action.body, caller)
            }
            "ClosePreparedStatement" => {
                let request = ActionClosePreparedStatementRequest::unpack(&action.body)?;
                self.inner
                    .statements
                    .close(&request.prepared_statement_handle);
                Ok(Response::new(Box::pin(stream::empty())))
            }
            "CancelFlightInfo" => {
                let request =
                    CancelFlightInfoRequest::decode(action.body.as_ref()).map_err(|e| {
                        Status::invalid_argument(format!(
                            "a malformed CancelFlightInfoRequest: {e}"
                        ))
                    })?;
                let status = match self.cancel(request.info.as_ref()) {
                    true => CancelStatus::Cancelled,
                    false => CancelStatus::NotCancellable,
                };
                let result = CancelFlightInfoResult {
                    status: status as i32,
                };
                Ok(action_result(result.encode_to_vec().into()))
            }
            "CancelQuery" => {
                let request = ActionCancelQueryRequest::unpack(&action.body)?;
                let info = FlightInfo::decode(request.info.as_ref()).map_err(|e| {
                    Status::invalid_argument(format!("a malformed FlightInfo: {e}"))
                })?;
                use crate::proto::action_cancel_query_result::CancelResult;
                let result = match self.cancel(Some(&info)) {
                    true => CancelResult::Cancelled,
                    false => CancelResult::NotCancellable,
                };
                let result = ActionCancelQueryResult {
                    result: result as i32,
                };
                Ok(action_result(result.pack()))
            }
            "BeginTransaction" | "EndTransaction" | "BeginSavepoint" | "EndSavepoint" => {
                Err(Status::unimplemented("transactions are not offered"))
            }
            other => Err(Status::invalid_argument(format!(
                "{other:?} is not an action of this server"
            ))),
        }
    }
}

/// The statement a query command carries (SQL or a Substrait plan); `None` for the
/// other commands.
fn statement_of(command: &Command) -> Result<Option<Source<'_>>, Status> {
    match command {
        Command::CommandStatementQuery(query) => {
            no_transaction(&query.transaction_id)?;
            Ok(Some(Source::Sql(&query.query)))
        }
        Command::CommandStatementSubstraitPlan(command) => {
            no_transaction(&command.transaction_id)?;
            let plan = command.plan.as_ref();
            let plan = plan.ok_or_else(|| no_plan(CommandStatementSubstraitPlan::NAME))?;
            Ok(Some(Source::Substrait(plan)))
        }
        _ => Ok(None),
    }
}

/// Refuses a statement inside a transaction: none are offered.
fn no_transaction(transaction_id: &Option<Bytes>) -> Result<(), Status> {
    match transaction_id {
        Some(_) => Err(Status::unimplemented("transactions are not offered")),
        None => Ok(()),
    }
}

/// The refusal of a Substrait command (the message `name`) that carries no plan.
fn no_plan(name: &str) -> Status {
    Status::invalid_argument(format!("a {name} without its plan"))
}

/// One `PutResult` carrying `message`.
fn put_result(message: Bytes) -> Response<BoxStream<PutResult>> {
    let result = PutResult {
        app_metadata: message,
    };
    Response::new(Box::pin(stream::iter([Ok(result)])))
}

/// One action result carrying `body`.
fn action_result(body: Bytes) -> Response<BoxStream<ActionResult>> {
    Response::new(Box::pin(stream::iter([Ok(ActionResult { body })])))
}

/// How long a handshake may go on, and how many messages it answers.
const HANDSHAKE_TIME: std::time::Duration = std::time::Duration::from_secs(30);
const HANDSHAKE_MESSAGES: usize = 16;

/// The actions offered.
const ACTIONS: [(&str, &str); 9] = [
    (
        "CreatePreparedStatement",
        "prepares a statement: ActionCreatePreparedStatementRequest",
    ),
    (
        "CreatePreparedSubstraitPlan",
        "prepares a Substrait plan (when built with Substrait): \
         ActionCreatePreparedSubstraitPlanRequest",
    ),
    (
        "ClosePreparedStatement",
        "closes a prepared statement: ActionClosePreparedStatementRequest",
    ),
    (
        "CancelFlightInfo",
        "cancels a query: CancelFlightInfoRequest",
    ),
    (
        "CancelQuery",
        "cancels a query (deprecated): ActionCancelQueryRequest",
    ),
    ("EndTransaction", "refused: transactions are not offered"),
    (
        "SetSessionOptions",
        "sets the session's options (catalog, schema, a few DataFusion settings): \
         SetSessionOptionsRequest",
    ),
    (
        "GetSessionOptions",
        "the session's options: GetSessionOptionsRequest",
    ),
    ("CloseSession", "closes the session: CloseSessionRequest"),
];

#[tonic::async_trait]
impl FlightService for FlightSqlService {
    async fn handshake(
        &self,
        request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<BoxStream<HandshakeResponse>>, Status> {
        // Credentials, when the server has them, are checked by `serve` before this (a
        // bearer token, or basic credentials answered with the token); a handshake that
        // reaches here has nothing to exchange. Clients that hold a token still
        // handshake (the JDBC driver) and wait, some for an answer to what they send,
        // some for the end of the call once they end theirs: each message is echoed,
        // and the answer ends when the client's messages do. Answering at once without
        // reading them raced the client's own write (pyarrow's client then hung). A
        // client that neither sends nor ends is let go after `HANDSHAKE_TIME`.
        let deadline = tokio::time::Instant::now() + HANDSHAKE_TIME;
        let incoming = request.into_inner();
        let answers = stream::unfold(Some((incoming, 0)), move |state| async move {
            let (mut incoming, answered) = state?;
            if answered >= HANDSHAKE_MESSAGES {
                return None;
            }
            match tokio::time::timeout_at(deadline, incoming.message()).await {
                Ok(Ok(Some(request))) => {
                    let answer = HandshakeResponse {
                        protocol_version: request.protocol_version,
                        payload: request.payload,
                    };
                    Some((Ok(answer), Some((incoming, answered + 1))))
                }
                Ok(Err(status)) => Some((Err(status), None)),
                Ok(Ok(None)) | Err(_) => None,
            }
        });
        Ok(Response::new(Box::pin(answers)))
    }

    async fn list_flights(
        &self,
        _request: Request<Criteria>,
    ) -> Result<Response<BoxStream<FlightInfo>>, Status> {
        Err(Status::unimplemented(
            "a Flight SQL server lists tables with CommandGetTables, not flights",
        ))
    }

    async fn get_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let caller = Caller::of(&request);
        let info = self.flight_info_of(request.into_inner(), &caller).await;
        info.map(Response::new).map_err(|s| self.redact(s))
    }

    async fn poll_flight_info(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<PollInfo>, Status> {
        let caller = Caller::of(&request);
        let descriptor = request.into_inner();
        let info = self.flight_info_of(descriptor.clone(), &caller).await;
        let info = info.map_err(|s| self.redact(s))?;
        Ok(Response::new(PollInfo {
            info: Some(info),
            flight_descriptor: Some(descriptor),
            progress: Some(1.0),
            expiration_time: None,
        }))
    }

    async fn get_schema(
        &self,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<SchemaResult>, Status> {
        let caller = Caller::of(&request);
        let schema = self.schema_of(request.get_ref(), &caller).await;
        schema.map(Response::new).map_err(|s| self.redact(s))
    }

    async fn do_get(
        &self,
        request: Request<Ticket>,
    ) -> Result<Response<BoxStream<FlightData>>, Status> {
        let answer = self.get(request.get_ref()).await;
        self.redacted(answer)
    }

    async fn do_put(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<BoxStream<PutResult>>, Status> {
        let answer = self.put(request).await;
        self.redacted(answer)
    }

    async fn do_action(
        &self,
        request: Request<Action>,
    ) -> Result<Response<BoxStream<ActionResult>>, Status> {
        let caller = Caller::of(&request);
        let answer = self.act(request.into_inner(), &caller).await;
        self.redacted(answer)
    }

    async fn list_actions(
        &self,
        _request: Request<alkaid_flight::proto::Empty>,
    ) -> Result<Response<BoxStream<ActionType>>, Status> {
        let actions = ACTIONS.map(|(name, description)| {
            Ok(ActionType {
                r#type: name.to_string(),
                description: description.to_string(),
            })
        });
        Ok(Response::new(Box::pin(stream::iter(actions))))
    }
}
