//! DataFusion's errors as gRPC statuses, with the code a client can act on: a query that
//! does not parse or plan is the client's `InvalidArgument`, a limit reached is
//! `ResourceExhausted`, a table that does not exist `NotFound`.

use datafusion::common::DataFusionError;
use tonic::{Code, Status};

/// The status `e` travels as; its message is DataFusion's whole message.
pub fn status(e: DataFusionError) -> Status {
    Status::new(code(&e), e.to_string())
}

fn code(e: &DataFusionError) -> Code {
    match e {
        DataFusionError::Context(_, inner) => code(inner),
        DataFusionError::Diagnostic(_, inner) => code(inner),
        DataFusionError::Shared(inner) => code(inner),
        DataFusionError::SQL(..) | DataFusionError::Plan(_) | DataFusionError::SchemaError(..) => {
            match e.to_string().contains("not found") {
                true => Code::NotFound,
                false => Code::InvalidArgument,
            }
        }
        DataFusionError::ResourcesExhausted(_) => Code::ResourceExhausted,
        DataFusionError::NotImplemented(_) => Code::Unimplemented,
        DataFusionError::ExecutionJoin(_) | DataFusionError::External(_) => Code::Internal,
        DataFusionError::IoError(io) if io.kind() == std::io::ErrorKind::NotFound => Code::NotFound,
        _ => Code::Internal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_whose_fault_it_is() {
        assert_eq!(
            status(DataFusionError::Plan("bad".into())).code(),
            Code::InvalidArgument
        );
        let missing = DataFusionError::Plan("table 'x' not found".into());
        assert_eq!(status(missing).code(), Code::NotFound);
        let memory = DataFusionError::ResourcesExhausted("pool".into());
        let wrapped = DataFusionError::Context("query".into(), Box::new(memory));
        let wrapped = status(wrapped);
        assert_eq!(wrapped.code(), Code::ResourceExhausted);
        assert!(wrapped.message().contains("pool"));
    }
}
