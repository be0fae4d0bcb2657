//! [`AlkaidPhysicalCodec`]: scans of Alkaid files in serialized physical plans (what a
//! Ballista scheduler sends its executors).

use std::sync::Arc;

use datafusion::common::{Result, internal_err, plan_datafusion_err};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, HigherOrderUDF, ScalarUDF, WindowUDF};
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use datafusion_proto::physical_plan::from_proto::{
    parse_protobuf_file_scan_config, parse_table_schema_from_proto,
};
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalPlanDecodeContext,
    PhysicalProtoConverterExtension,
};
use prost::Message;

use super::messages::ScanMessage;
use super::{encode_alkaid, encode_inner, split};
use crate::AlkaidSource;

/// A [`PhysicalExtensionCodec`] that serializes scans of Alkaid files (DataFusion's file
/// scan over an [`AlkaidSource`], with the filters the scan evaluates), and hands every
/// other plan node, expression and function to the codec it wraps.
#[derive(Debug)]
pub struct AlkaidPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl AlkaidPhysicalCodec {
    /// Alkaid's codec around `inner` (Ballista's codec on a Ballista cluster).
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        Self { inner }
    }
}

impl Default for AlkaidPhysicalCodec {
    /// Alkaid's codec around DataFusion's default one.
    fn default() -> Self {
        Self::new(Arc::new(DefaultPhysicalExtensionCodec {}))
    }
}

impl AlkaidPhysicalCodec {
    /// The scan `message` describes.
    fn scan_from(
        &self,
        message: &ScanMessage,
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(config) = &message.config else {
            return internal_err!("a serialized Alkaid scan has no file scan configuration");
        };
        let table_schema = parse_table_schema_from_proto(config)?;
        let decode = PhysicalPlanDecodeContext::new(ctx, self);
        let mut source = AlkaidSource::new(table_schema.clone());
        for filter in &message.filters {
            let filter = proto_converter.proto_to_physical_expr(
                filter,
                table_schema.table_schema(),
                &decode,
            )?;
            source = source.with_filter(filter)?;
        }
        let config =
            parse_protobuf_file_scan_config(config, &decode, proto_converter, Arc::new(source))?;
        Ok(DataSourceExec::from_data_source(config))
    }
}

impl PhysicalExtensionCodec for AlkaidPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match split(buf, "plan node")? {
            (true, message) => {
                if !inputs.is_empty() {
                    return internal_err!(
                        "a serialized Alkaid scan has {} inputs (a scan has none)",
                        inputs.len()
                    );
                }
                let message = ScanMessage::decode(message).map_err(|e| {
                    plan_datafusion_err!("a serialized Alkaid scan does not decode: {e}")
                })?;
                self.scan_from(&message, ctx, proto_converter)
            }
            (false, rest) => self.inner.try_decode(rest, inputs, ctx, proto_converter),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let scan = node
            .downcast_ref::<DataSourceExec>()
            .and_then(|exec| exec.downcast_to_file_source::<AlkaidSource>());
        let Some((config, source)) = scan else {
            return encode_inner(buf, |buf| self.inner.try_encode(node, buf, proto_converter));
        };
        if source.is_parquet() {
            return datafusion::common::not_impl_err!(
                "a scan of Parquet files through Alkaid is not serialized (IPC tables are)"
            );
        }
        let message = ScanMessage {
            config: Some(serialize_file_scan_config(config, self, proto_converter)?),
            filters: source
                .filters()
                .map(|filter| proto_converter.physical_expr_to_proto(filter, self))
                .collect::<Result<_>>()?,
        };
        encode_alkaid(buf, &message);
        Ok(())
    }

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }

    forward_functions!();
}
