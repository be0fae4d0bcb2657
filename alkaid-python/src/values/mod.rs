//! Python values and arrays, both ways, without pyarrow: the type pyarrow would infer for
//! a sequence (`infer.rs`), the array of a type built from Python values
//! (`from_python.rs`), and an array's values as Python objects (`to_python.rs`), with the
//! calendar arithmetic (`civil.rs`) and the Python classes (`python.rs`) they share; a
//! Variant column's rows as the values they hold (`variant.rs`), and timestamps with
//! offsets as `datetime`s in their offsets (`with_offset.rs`), chosen by field
//! (`by_field.rs`).

mod by_field;
mod civil;
mod from_python;
mod infer;
mod python;
mod to_python;
mod variant;
mod with_offset;

pub(crate) use by_field::{field_pylist, to_pylist};
pub(crate) use from_python::build;
pub(crate) use infer::infer;
pub(crate) use python::Modules;
