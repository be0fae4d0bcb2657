//! One execution of a statement, in a session of its own: its plan (made and checked by
//! `session.rs`) run, a prepared statement's once per row of bound parameters, every row
//! in this one session, and what it wrote committed only once every run succeeded
//! (`confined.rs`). Dropping an execution at
//! any point (a failure, a cancellation, a time limit, a client gone) leaves nothing of
//! what it wrote.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch as ArrowBatch;
use datafusion::arrow::datatypes::SchemaRef as ArrowSchemaRef;
use datafusion::execution::{SessionState, TaskContext};
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::execute_stream;
use futures_util::stream::{self, BoxStream, StreamExt, TryStreamExt};
use tonic::Status;

use crate::confined::StagedWrites;
use crate::parameters::{self, ParameterTypes};
use crate::status::{refused, status};
use crate::write_plan;

/// One execution: the base session it plans in (physical plans read the catalog and
/// list files, never write), the task context it runs in (its own runtime: memory pool,
/// confined local store), and what it writes.
#[derive(Debug)]
pub struct Execution {
    base: Arc<SessionState>,
    task: Arc<TaskContext>,
    writes: Option<Arc<StagedWrites>>,
}

impl Execution {
    /// An execution planned in `base`, run in `task`, writing through `writes` (when it
    /// may).
    pub fn new(
        base: Arc<SessionState>,
        task: Arc<TaskContext>,
        writes: Option<Arc<StagedWrites>>,
    ) -> Self {
        Self { base, task, writes }
    }

    /// The batches of `statement`, its plan run once per row of its parameters (bound as
    /// each run begins, so that a waiting statement holds its parameters and one plan,
    /// not a plan per row). When it writes, the batches (a count per run) are held until
    /// every run has ended and the writes are committed, so that a client told a count
    /// knows the files are there.
    pub fn run(self, statement: Statement) -> BoxStream<'static, Result<ArrowBatch, Status>> {
        let writes = write_plan::writes(&statement.plan);
        let staged = self.writes.clone();
        let refusals = self.writes.clone();
        // A write the statement was refused is why it failed, whatever DataFusion says.
        let failed = move |e: Status| match refusals.as_ref().and_then(|w| w.refusal()) {
            Some(refusal) => refused(refusal),
            None => e,
        };
        // The stream holds the execution, and with it the staged writes.
        let execution = Arc::new(self);
        let types = Arc::new(statement.parameter_types());
        let statement = Arc::new(statement);
        let batches = stream::iter(statement.runs())
            .then(move |row| {
                let execution = Arc::clone(&execution);
                let statement = Arc::clone(&statement);
                let types = Arc::clone(&types);
                async move {
                    let types = types.as_ref().as_ref().map_err(Status::clone)?;
                    let plan = statement.bound(row, types)?;
                    let physical = execution
                        .base
                        .create_physical_plan(&plan)
                        .await
                        .map_err(status)?;
                    let task = Arc::clone(&execution.task);
                    Ok::<_, Status>(
                        execute_stream(physical, task)
                            .map_err(status)?
                            .map_err(status),
                    )
                }
            })
            .try_flatten()
            .map_err(failed)
            .boxed();
        if !writes {
            return batches;
        }
        let committed = async move {
            let batches: Vec<ArrowBatch> = batches.try_collect().await?;
            if let Some(staged) = &staged {
                staged.commit().map_err(refused)?;
            }
            Ok::<Vec<ArrowBatch>, Status>(batches)
        };
        stream::once(committed)
            .map_ok(|batches| stream::iter(batches.into_iter().map(Ok::<_, Status>)))
            .try_flatten()
            .boxed()
    }

    /// Runs `statement` to its end, committing what it wrote; the rows it changed.
    ///
    /// # Errors
    /// The first run's failure, or the commit's.
    pub async fn update(self, statement: Statement) -> Result<i64, Status> {
        let batches: Vec<ArrowBatch> = self.run(statement).try_collect().await?;
        Ok(changed_rows(&batches))
    }
}

/// A planned statement and the parameters it runs with: once as it is (`None`), or once
/// per row of `$1`, `$2`, ….
#[derive(Debug, Clone)]
pub struct Statement {
    /// The plan, its writes checked.
    pub plan: LogicalPlan,
    /// The parameter rows.
    pub parameters: Option<ArrowBatch>,
}

impl Statement {
    /// The runs: each parameter row's index, or one run without parameters.
    fn runs(&self) -> Vec<Option<usize>> {
        match &self.parameters {
            None => vec![None],
            Some(rows) => (0..rows.num_rows()).map(Some).collect(),
        }
    }

    /// The types the plan inferred for its placeholders, by name (none without
    /// parameters): found once per execution, not once per row.
    ///
    /// # Errors
    /// If the plan's placeholders disagree on a type.
    pub fn parameter_types(&self) -> Result<ParameterTypes, Status> {
        match &self.parameters {
            Some(_) => self.plan.get_parameter_types().map_err(status),
            None => Ok(ParameterTypes::new()),
        }
    }

    /// The plan of run `row`: the plan with that row's values bound, each cast to its
    /// placeholder's type in `types` (`parameter_types`).
    ///
    /// # Errors
    /// If the row's values do not fit the plan's parameters.
    pub fn bound(&self, row: Option<usize>, types: &ParameterTypes) -> Result<LogicalPlan, Status> {
        match (row, &self.parameters) {
            (Some(row), Some(rows)) => {
                let values = parameters::typed(parameters::row(rows, row)?, types)?;
                self.plan.clone().with_param_values(values).map_err(status)
            }
            _ => Ok(self.plan.clone()),
        }
    }

    /// The result's schema: the plan's, with the first row's values bound when it has
    /// parameters.
    ///
    /// # Errors
    /// If there are parameters but no row of them, or the first does not fit.
    pub fn schema(&self) -> Result<ArrowSchemaRef, Status> {
        let plan = match &self.parameters {
            Some(rows) if rows.num_rows() == 0 => {
                return Err(Status::invalid_argument(
                    "the prepared statement has no parameter rows bound",
                ));
            }
            Some(_) => self.bound(Some(0), &self.parameter_types()?)?,
            None => self.plan.clone(),
        };
        Ok(result_schema(&plan))
    }
}

/// The result schema of `plan`.
pub fn result_schema(plan: &LogicalPlan) -> ArrowSchemaRef {
    Arc::new(plan.schema().as_arrow().clone())
}

/// The rows changed by an update: DataFusion answers `INSERT` and `COPY` with one
/// `count` column; other statements changed none.
fn changed_rows(batches: &[ArrowBatch]) -> i64 {
    use datafusion::arrow::array::{Array, UInt64Array};
    batches
        .iter()
        .filter(|b| b.num_columns() == 1 && b.schema().field(0).name() == "count")
        .filter_map(|b| b.column(0).as_any().downcast_ref::<UInt64Array>().cloned())
        .map(|counts| counts.iter().flatten().sum::<u64>() as i64)
        .sum()
}
