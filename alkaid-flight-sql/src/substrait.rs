//! Substrait plans (`CommandStatementSubstraitPlan`, `ActionCreatePreparedSubstraitPlanRequest`)
//! made DataFusion plans by DataFusion's own consumer (`datafusion-substrait`), behind the
//! `substrait` feature (building it needs `protoc`). A plan reads tables only by name,
//! through the catalog SQL uses (a `LocalFiles` read names a table by its file's name,
//! never opens the file), and the consumer makes no writes; the plan is then checked as
//! SQL's are (`session.rs`).

use datafusion::execution::SessionState;
use datafusion::logical_expr::LogicalPlan;
use tonic::Status;

use crate::proto::SubstraitPlan;

/// The Substrait version this server reads (the one its consumer was built for), `None`
/// when it was built without Substrait.
#[cfg(feature = "substrait")]
pub fn version() -> Option<String> {
    let version = datafusion_substrait::substrait::version::version();
    Some(format!(
        "{}.{}.{}",
        version.major_number, version.minor_number, version.patch_number
    ))
}

/// The Substrait version this server reads: none, built without Substrait.
#[cfg(not(feature = "substrait"))]
pub fn version() -> Option<String> {
    None
}

/// `plan` as a DataFusion plan in `state`.
///
/// # Errors
/// `InvalidArgument` when its bytes are not a Substrait plan or it names what `state`
/// does not have; `Unimplemented` for what DataFusion's consumer does not read, and
/// for every plan when the server was built without Substrait.
#[cfg(feature = "substrait")]
pub async fn logical(state: &SessionState, plan: &SubstraitPlan) -> Result<LogicalPlan, Status> {
    use datafusion_substrait::logical_plan::consumer::from_substrait_plan;
    use datafusion_substrait::substrait::proto::Plan;
    use datafusion_substrait::substrait::proto::plan_rel::RelType;
    use futures_util::FutureExt;
    use prost::Message;

    let decoded = Plan::decode(plan.plan.as_ref())
        .map_err(|e| Status::invalid_argument(format!("not a Substrait plan: {e}")))?;
    // DataFusion's consumer unwraps a root's input (datafusion-substrait 55.2,
    // `consumer/plan.rs:54`): refused here, so that no build leans on the guard below for
    // it (a build with `panic = "abort"` has none).
    let rootless = decoded.relations.iter().any(
        |relation| matches!(&relation.rel_type, Some(RelType::Root(root)) if root.input.is_none()),
    );
    if rootless {
        return Err(Status::invalid_argument(
            "the Substrait plan's root has no input",
        ));
    }
    // The consumer is DataFusion's; a plan it trips over is refused, never a lost server.
    let consumed = std::panic::AssertUnwindSafe(from_substrait_plan(state, &decoded))
        .catch_unwind()
        .await
        .map_err(|_| Status::invalid_argument("a Substrait plan DataFusion could not read"))?;
    consumed.map_err(|e| match e {
        datafusion::error::DataFusionError::NotImplemented(what) => {
            Status::unimplemented(format!("in the Substrait plan: {what}"))
        }
        other => Status::invalid_argument(format!("the Substrait plan: {other}")),
    })
}

/// Refuses `plan`: built without Substrait.
#[cfg(not(feature = "substrait"))]
pub async fn logical(_state: &SessionState, _plan: &SubstraitPlan) -> Result<LogicalPlan, Status> {
    Err(Status::unimplemented(
        "Substrait plans are not offered by this build (the `substrait` feature): send SQL",
    ))
}
