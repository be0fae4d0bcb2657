//! Python values and arrays, both ways, without pyarrow: the type pyarrow would infer for
//! a sequence (`infer.rs`), the array of a type built from Python values
//! (`from_python.rs`), and an array's values as Python objects (`to_python.rs`), with the
//! calendar arithmetic (`civil.rs`) and the Python classes (`python.rs`) they share; a
//! Variant column's rows as the values they hold (`variant.rs`).

mod civil;
mod from_python;
mod infer;
mod python;
mod to_python;
mod variant;

pub(crate) use from_python::build;
pub(crate) use infer::infer;
pub(crate) use python::Modules;
pub(crate) use to_python::{field_pylist, to_pylist};
