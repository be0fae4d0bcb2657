//! Substrait plans (the `substrait` feature): plans made by DataFusion's own producer from
//! SQL over the same files, sent as `CommandStatementSubstraitPlan` and prepared with
//! `CreatePreparedSubstraitPlan`, answer as the SQL does; plans that are not plans, name
//! tables the directory lacks, or read a file by its path are refused, nothing read.

use std::sync::Arc;

use alkaid_array::RecordBatch;
use alkaid_datafusion::open_table;
use alkaid_flight::{FlightClient, FlightDescriptor};
use alkaid_flight_sql::Packed;
use alkaid_flight_sql::proto::{
    ActionCreatePreparedStatementResult, ActionCreatePreparedSubstraitPlanRequest,
    CommandPreparedStatementQuery, CommandStatementSubstraitPlan, SubstraitPlan,
};
use bytes::Bytes;
use datafusion::prelude::SessionContext;
use datafusion_substrait::logical_plan::producer::to_substrait_plan;
use datafusion_substrait::substrait::proto::plan_rel::RelType as PlanRelType;
use datafusion_substrait::substrait::proto::read_rel::local_files::FileOrFiles;
use datafusion_substrait::substrait::proto::read_rel::local_files::file_or_files::PathType;
use datafusion_substrait::substrait::proto::read_rel::{LocalFiles, ReadType};
use datafusion_substrait::substrait::proto::rel::RelType;
use datafusion_substrait::substrait::proto::{Plan, Rel};
use prost::Message;
use tonic::Code;

use crate::adbc::Scratch;
use crate::server::Server;
use crate::sql_client::{fetch, query};

/// The Substrait plan DataFusion's producer makes of `sql` over the tables of `dir`.
pub async fn produced(dir: &std::path::Path, sql: &str) -> Plan {
    let ctx = SessionContext::new();
    for (name, path) in [("trips", "trips.parquet"), ("cities", "cities.csv")] {
        let url = format!("{}/{path}", dir.display());
        let table = open_table(&ctx.state(), &url).await.unwrap();
        ctx.register_table(name, table).unwrap();
    }
    let plan = ctx.sql(sql).await.unwrap().into_optimized_plan().unwrap();
    *to_substrait_plan(&plan, &ctx.state()).unwrap()
}

fn command(plan: &Plan) -> FlightDescriptor {
    let plan = SubstraitPlan {
        plan: plan.encode_to_vec().into(),
        version: "0.63".into(),
    };
    let command = CommandStatementSubstraitPlan {
        plan: Some(plan),
        transaction_id: None,
    };
    FlightDescriptor::command(command.pack())
}

/// Rows as text, to compare answers whatever their batches.
fn shown(batches: &[RecordBatch]) -> String {
    let arrow: Vec<_> = batches
        .iter()
        .map(alkaid_arrow::arrow59::batch_to_arrow)
        .collect();
    datafusion::arrow::util::pretty::pretty_format_batches(&arrow)
        .unwrap()
        .to_string()
}

/// The first read of `plan`'s root.
fn read_of_plan(plan: &mut Plan) -> &mut datafusion_substrait::substrait::proto::ReadRel {
    let Some(PlanRelType::Root(root)) = plan.relations[0].rel_type.as_mut() else {
        panic!("a root")
    };
    read_of(root.input.as_mut().unwrap())
}

/// The first read of `rel`, through projections, filters, sorts and limits.
fn read_of(rel: &mut Rel) -> &mut datafusion_substrait::substrait::proto::ReadRel {
    match rel.rel_type.as_mut().unwrap() {
        RelType::Read(read) => read,
        RelType::Project(p) => read_of(p.input.as_mut().unwrap()),
        RelType::Filter(f) => read_of(f.input.as_mut().unwrap()),
        RelType::Sort(s) => read_of(s.input.as_mut().unwrap()),
        RelType::Fetch(f) => read_of(f.input.as_mut().unwrap()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn substrait_plans_answer_as_their_sql_does() {
    let scratch = Scratch::new();
    let server = Server::plain(&scratch.dir);
    let mut client: FlightClient = server.client();
    server.runtime.block_on(async {
        for sql in [
            "SELECT id, fare FROM trips WHERE fare > 9 ORDER BY id",
            "SELECT c.country, count(*) AS n FROM trips t JOIN cities c ON t.city = c.city \
             GROUP BY c.country ORDER BY c.country",
        ] {
            let plan = produced(&scratch.dir, sql).await;
            let got = fetch(&mut client, command(&plan)).await.unwrap();
            let expected = fetch(&mut client, query(sql)).await.unwrap();
            assert_eq!(shown(&got), shown(&expected), "{sql}");
            assert!(!got.is_empty());

            // Prepared, then run.
            let request = ActionCreatePreparedSubstraitPlanRequest {
                plan: Some(SubstraitPlan {
                    plan: plan.encode_to_vec().into(),
                    version: String::new(),
                }),
                transaction_id: None,
            };
            let answer = client
                .do_action("CreatePreparedSubstraitPlan", request.pack())
                .await
                .unwrap();
            let prepared = ActionCreatePreparedStatementResult::unpack(&answer[0]).unwrap();
            assert_eq!(prepared.is_update, Some(false));
            let run = CommandPreparedStatementQuery {
                prepared_statement_handle: prepared.prepared_statement_handle,
            };
            let got = fetch(&mut client, FlightDescriptor::command(run.pack()))
                .await
                .unwrap();
            assert_eq!(shown(&got), shown(&expected), "prepared: {sql}");
        }
        let schema = client
            .get_schema(command(
                &produced(&scratch.dir, "SELECT city FROM trips").await,
            ))
            .await
            .unwrap();
        assert_eq!(schema.fields()[0].name(), "city");
    });
}

#[test]
fn substrait_plans_that_are_not_or_reach_outside_are_refused() {
    let scratch = Scratch::new();
    let server = Server::plain(&scratch.dir);
    let mut client: FlightClient = server.client();
    server.runtime.block_on(async {
        let garbage = CommandStatementSubstraitPlan {
            plan: Some(SubstraitPlan {
                plan: Bytes::from_static(b"\xff\xff\xff\xff"),
                version: String::new(),
            }),
            transaction_id: None,
        };
        let refused = fetch(&mut client, FlightDescriptor::command(garbage.pack()))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused}");
        let empty = CommandStatementSubstraitPlan {
            plan: None,
            transaction_id: None,
        };
        let refused = fetch(&mut client, FlightDescriptor::command(empty.pack()))
            .await
            .unwrap_err();
        assert!(refused.message().contains("without its plan"), "{refused}");

        // A root without its input: DataFusion's consumer unwraps it (a panic the
        // flight_sql fuzz target found); refused before the consumer sees it, and the
        // server goes on.
        let rootless = Plan {
            relations: vec![datafusion_substrait::substrait::proto::PlanRel {
                rel_type: Some(PlanRelType::Root(Default::default())),
            }],
            ..Default::default()
        };
        let refused = fetch(&mut client, command(&rootless)).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused}");
        assert!(refused.message().contains("root has no input"), "{refused}");

        // A table the directory lacks, and a file read by its path: both name a table,
        // neither opens a file.
        let mut plan = produced(&scratch.dir, "SELECT * FROM trips").await;
        let read = read_of_plan(&mut plan);
        if let Some(ReadType::NamedTable(table)) = read.read_type.as_mut() {
            table.names = vec!["no_such_table".into()];
        }
        let refused = fetch(&mut client, command(&plan)).await.unwrap_err();
        assert_ne!(refused.code(), Code::Ok);
        assert!(refused.message().contains("no_such_table"), "{refused}");

        let outside = scratch.dir.parent().unwrap().join("secret.parquet");
        std::fs::copy(scratch.dir.join("trips.parquet"), &outside).unwrap();
        let read = read_of_plan(&mut plan);
        read.read_type = Some(ReadType::LocalFiles(LocalFiles {
            items: vec![FileOrFiles {
                path_type: Some(PathType::UriFile(format!("file://{}", outside.display()))),
                ..Default::default()
            }],
            advanced_extension: None,
        }));
        let refused = fetch(&mut client, command(&plan)).await.unwrap_err();
        assert_ne!(refused.code(), Code::Ok);
        assert!(
            !refused.message().contains(&*scratch.dir.to_string_lossy()),
            "{refused}"
        );
        // An update through a Substrait plan is refused: the consumer reads no writes.
        let plan = produced(&scratch.dir, "SELECT 1").await;
        let nothing = Vec::<Result<(RecordBatch, Bytes), alkaid_flight::FlightError>>::new();
        let put = client
            .do_put(
                command(&plan),
                Arc::new(alkaid_schema::Schema::empty()),
                futures_util::stream::iter(nothing),
            )
            .await
            .unwrap_err();
        assert_eq!(tonic::Status::from(put).code(), Code::InvalidArgument);
    });
}

#[test]
fn the_fuzz_targets_hand_packed_plan_reads_the_events_table() {
    // fuzz/seeds/flight_sql/substrait: the call's byte, then the command in its Any.
    let seed = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/flight_sql/substrait"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    crate::sql_client::events(dir.path());
    let server = Server::plain(dir.path());
    let mut client = server.client();
    server.runtime.block_on(async {
        let descriptor = FlightDescriptor::command(Bytes::from(seed[1..].to_vec()));
        let got = fetch(&mut client, descriptor).await.unwrap();
        let expected = fetch(&mut client, query("SELECT * FROM events"))
            .await
            .unwrap();
        assert_eq!(shown(&got), shown(&expected));
    });
}
