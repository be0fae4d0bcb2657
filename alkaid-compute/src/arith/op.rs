//! What an arithmetic kernel computes: the operation, what overflow does, and one
//! computation's inputs and output ([`Job`]).

use alkaid_array::{display::format_value, make_array};
use alkaid_buffer::{Buffer, NullBuffer};
use alkaid_data::ArrayData;
use alkaid_schema::DataType;

use crate::error::ComputeError;
use crate::operand::Operand;

/// An arithmetic operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl ArithOp {
    /// The operator, for messages.
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Add => "+",
            Self::Sub => "-",
            Self::Mul => "*",
            Self::Div => "/",
            Self::Rem => "%",
        }
    }

    /// The kernel's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Sub => "sub",
            Self::Mul => "mul",
            Self::Div => "div",
            Self::Rem => "rem",
        }
    }
}

/// What integer overflow does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overflow {
    /// It is an error.
    Check,
    /// It wraps around (two's complement).
    Wrap,
}

/// The inputs and output of one computation over plain operands.
pub(crate) struct Job<'a> {
    pub op: ArithOp,
    pub overflow: Overflow,
    pub left: &'a Operand,
    pub right: &'a Operand,
    pub len: usize,
    pub valid: Option<NullBuffer>,
    pub output: DataType,
}

impl Job<'_> {
    /// The result array of the computed `values`.
    pub fn finish(&self, values: Buffer) -> Result<ArrayData, ComputeError> {
        Ok(ArrayData::builder(self.output.clone())
            .len(self.len)
            .nulls(self.valid.clone())
            .buffers(vec![values])
            .build()?)
    }

    /// The error for a failed `row`: division by zero if the divisor is zero there, else
    /// an overflow naming the operands.
    pub fn failure(&self, row: usize, divisor_is_zero: bool) -> ComputeError {
        if divisor_is_zero && matches!(self.op, ArithOp::Div | ArithOp::Rem) {
            return ComputeError::DivideByZero { row };
        }
        let value = |operand: &Operand| {
            let array = make_array(operand.data.clone());
            format_value(array.as_ref(), if operand.scalar { 0 } else { row })
        };
        ComputeError::Overflow {
            row: Some(row),
            message: format!(
                "{} {} {} does not fit {}",
                value(self.left),
                self.op.symbol(),
                value(self.right),
                self.output
            ),
        }
    }
}
