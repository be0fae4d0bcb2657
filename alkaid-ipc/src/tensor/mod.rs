//! Tensor and sparse tensor messages: n-dimensional arrays of fixed-width cells, each sent
//! as one IPC message of its own (outside any stream of record batches).
//!
//! The format marks both experimental and lets implementations leave them out; Alkaid reads
//! and writes them because numeric tools (pyarrow's `pa.ipc.write_tensor`, Arrow C++) do.
//! Reading is zero-copy: a tensor's cells (and a sparse tensor's index buffers) are slices
//! of the message's bytes. Everything read is checked before it is handed out: every
//! stride, every index and every compressed pointer stays inside its shape and buffer.
//!
//! | item | what it is |
//! | --- | --- |
//! | [`Tensor`] | dense cells with a shape, byte strides and optional dimension names |
//! | [`SparseTensor`] | the non-zero cells and a [`SparseIndex`]: COO, CSR/CSC ([`CsxIndex`]) or CSF |
//! | [`read_tensor`], [`read_sparse_tensor`] | one message from memory |
//! | [`write_tensor`], [`write_sparse_tensor`] | one message to a `Write` |
//!
//! ```
//! use alkaid_buffer::Buffer;
//! use alkaid_ipc::{Tensor, read_tensor, write_tensor};
//! use alkaid_schema::DataType;
//!
//! let cells = Buffer::from_slice_ref(&[1i32, 2, 3, 4, 5, 6]);
//! let tensor = Tensor::try_new(DataType::Int32, cells, vec![2, 3], None, vec!["row".into(), "col".into()])?;
//! let mut bytes = Vec::new();
//! write_tensor(&mut bytes, &tensor)?;
//! let read = read_tensor(Buffer::from(bytes))?;
//! assert_eq!(read.shape(), &[2, 3]);
//! assert_eq!(read.value::<i32>(&[1, 2])?, 6);
//! # Ok::<(), alkaid_ipc::IpcError>(())
//! ```

mod message;
mod sparse;

use alkaid_buffer::{Buffer, NativeType};
use alkaid_schema::DataType;

use crate::error::{IpcError, Result};

pub use message::{read_sparse_tensor, read_tensor, write_sparse_tensor, write_tensor};
pub use sparse::{CompressedAxis, CooIndex, CsfIndex, CsxIndex, SparseIndex, SparseTensor};

/// A dense n-dimensional array of fixed-width cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    value_type: DataType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    dim_names: Vec<String>,
    data: Buffer,
}

/// The byte width of a tensor cell type: integers and floats only, as the format says.
pub(crate) fn cell_width(value_type: &DataType) -> Result<usize> {
    if value_type.is_integer() || value_type.is_floating() {
        Ok(value_type.primitive_byte_width().expect("a primitive type"))
    } else {
        Err(IpcError::invalid_argument(format!(
            "tensor cells must be integers or floats, not {value_type}"
        )))
    }
}

/// Checks that every size and stride fits the format's `long` (`i64`).
pub(crate) fn check_fits_i64(what: &str, values: &[usize]) -> Result<()> {
    match values.iter().find(|&&v| i64::try_from(v).is_err()) {
        None => Ok(()),
        Some(v) => Err(IpcError::invalid_argument(format!(
            "{what} {v} does not fit the format's 64-bit integers"
        ))),
    }
}

/// Checks that `names` is empty or names each of `ndim` dimensions.
pub(crate) fn check_dim_names(names: &[String], ndim: usize) -> Result<()> {
    if names.is_empty() || names.len() == ndim {
        Ok(())
    } else {
        Err(IpcError::invalid_argument(format!(
            "expected {ndim} dimension names, found {}",
            names.len()
        )))
    }
}

/// Row-major (C order) byte strides of `shape` for cells of `width` bytes, or `None` if a
/// stride does not fit `usize`.
pub fn row_major_strides(shape: &[usize], width: usize) -> Option<Vec<usize>> {
    let mut strides = vec![0; shape.len()];
    let mut step = width;
    for i in (0..shape.len()).rev() {
        strides[i] = step;
        // The outermost dimension's size steps past the tensor: no stride uses it.
        if i > 0 {
            step = step.checked_mul(shape[i].max(1))?;
        }
    }
    Some(strides)
}

impl Tensor {
    /// A tensor of `shape` whose cells of `value_type` lie in `data` at byte `strides`
    /// (row-major when `None`); `dim_names` is empty or names every dimension.
    ///
    /// # Errors
    /// If the type is not an integer or float type, a count of strides or names does not
    /// match the shape, or a cell the strides reach lies outside `data`.
    pub fn try_new(
        value_type: DataType,
        data: Buffer,
        shape: Vec<usize>,
        strides: Option<Vec<usize>>,
        dim_names: Vec<String>,
    ) -> Result<Self> {
        let width = cell_width(&value_type)?;
        check_dim_names(&dim_names, shape.len())?;
        let strides = match strides {
            Some(strides) => strides,
            None => row_major_strides(&shape, width).ok_or_else(|| {
                IpcError::invalid_argument(format!("shape {shape:?} is too large"))
            })?,
        };
        if strides.len() != shape.len() {
            return Err(IpcError::invalid_argument(format!(
                "{} strides for a shape of {} dimensions",
                strides.len(),
                shape.len()
            )));
        }
        // A shape with a zero dimension holds no cells whatever its other sizes, so its
        // row-major strides can outgrow the `i64` a message writes them as.
        check_fits_i64("size", &shape)?;
        check_fits_i64("stride", &strides)?;
        // The cells must be countable: with zero strides any shape fits in one cell's bytes.
        let cells = shape
            .iter()
            .try_fold(1i64, |n, &size| n.checked_mul(size as i64));
        if cells.is_none() && !shape.contains(&0) {
            return Err(IpcError::invalid_argument(format!(
                "shape {shape:?} has more cells than a 64-bit count holds"
            )));
        }
        // The last byte any cell reaches: the cell at the far corner, unless there is none.
        if !shape.contains(&0) {
            let end = shape
                .iter()
                .zip(&strides)
                .try_fold(width, |end, (&size, &stride)| {
                    end.checked_add((size - 1).checked_mul(stride)?)
                });
            if end.is_none_or(|end| end > data.len()) {
                return Err(IpcError::invalid_argument(format!(
                    "a tensor of shape {shape:?} with strides {strides:?} reaches past its \
                     {}-byte data",
                    data.len()
                )));
            }
        }
        Ok(Self {
            value_type,
            shape,
            strides,
            dim_names,
            data,
        })
    }

    /// The cell type.
    pub fn value_type(&self) -> &DataType {
        &self.value_type
    }

    /// The size of each dimension, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Bytes to step one cell along each dimension.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The dimension names: empty, or one per dimension (an unnamed one is `""`).
    pub fn dim_names(&self) -> &[String] {
        &self.dim_names
    }

    /// The bytes the cells lie in.
    pub fn data(&self) -> &Buffer {
        &self.data
    }

    /// The number of cells (checked to fit an `i64` when the tensor was made).
    pub fn size(&self) -> usize {
        // A zero dimension first: the product of the others may not fit.
        match self.shape.contains(&0) {
            true => 0,
            false => self.shape.iter().product(),
        }
    }

    /// Whether the cells are laid out row-major (C order) without gaps.
    pub fn is_row_major(&self) -> bool {
        let width = cell_width(&self.value_type).expect("checked when made");
        row_major_strides(&self.shape, width).as_deref() == Some(&self.strides[..])
    }

    /// Whether the cells are laid out column-major (Fortran order) without gaps.
    pub fn is_column_major(&self) -> bool {
        let width = cell_width(&self.value_type).expect("checked when made");
        let reversed: Vec<usize> = self.shape.iter().rev().copied().collect();
        let Some(mut strides) = row_major_strides(&reversed, width) else {
            return false;
        };
        strides.reverse();
        strides == self.strides
    }

    /// The cell at `index` (one position per dimension), read as `T`.
    ///
    /// # Errors
    /// If `T` is not as wide as the cell type, or `index` is outside the shape.
    pub fn value<T: NativeType>(&self, index: &[usize]) -> Result<T> {
        let width = cell_width(&self.value_type)?;
        if size_of::<T>() != width {
            return Err(IpcError::invalid_argument(format!(
                "cells of {} are {width} bytes, not {}",
                self.value_type,
                size_of::<T>()
            )));
        }
        if index.len() != self.shape.len() || index.iter().zip(&self.shape).any(|(i, s)| i >= s) {
            return Err(IpcError::invalid_argument(format!(
                "index {index:?} is outside shape {:?}",
                self.shape
            )));
        }
        // Inside the data: `try_new` checked the far corner, and every index is below it.
        let at: usize = index.iter().zip(&self.strides).map(|(i, s)| i * s).sum();
        read_native(&self.data[at..at + width])
    }
}

/// The value in exactly `size_of::<T>()` bytes that may be misaligned (cells are only as
/// aligned as the message body): copied into an aligned buffer first.
pub(crate) fn read_native<T: NativeType>(bytes: &[u8]) -> Result<T> {
    let aligned = Buffer::from_slice_ref(bytes);
    let values = aligned
        .typed::<T>()
        .map_err(|e| IpcError::invalid_argument(e.to_string()))?;
    values
        .first()
        .copied()
        .ok_or_else(|| IpcError::invalid_argument("no bytes for a value"))
}

#[cfg(test)]
mod tests;
