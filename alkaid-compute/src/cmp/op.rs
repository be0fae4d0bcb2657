//! [`CmpOp`]: which comparison a kernel makes.

/// A comparison of two values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Neq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl CmpOp {
    /// The comparison with its sides swapped: `a < b` is `b > a`.
    pub fn flip(self) -> Self {
        match self {
            Self::Lt => Self::Gt,
            Self::LtEq => Self::GtEq,
            Self::Gt => Self::Lt,
            Self::GtEq => Self::LtEq,
            other => other,
        }
    }

    /// The kernel's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Eq => "eq",
            Self::Neq => "neq",
            Self::Lt => "lt",
            Self::LtEq => "lt_eq",
            Self::Gt => "gt",
            Self::GtEq => "gt_eq",
        }
    }

    /// Whether the comparison is `eq` or `neq`, the two that nested types take.
    pub fn is_equality(self) -> bool {
        matches!(self, Self::Eq | Self::Neq)
    }
}
