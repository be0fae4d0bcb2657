//! Sparse tensors: the non-zero cells of an n-dimensional array and an index saying where
//! each one sits, in one of the format's three index layouts.

use alkaid_buffer::{Buffer, NativeType};
use alkaid_schema::{DataType, IntegerType};

use super::{cell_width, check_dim_names, check_fits_i64, read_native};
use crate::error::{IpcError, Result};

/// Which axis of a sparse matrix is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompressedAxis {
    /// Rows: compressed sparse row (CSR).
    Row,
    /// Columns: compressed sparse column (CSC).
    Column,
}

/// Coordinate index: an `nnz x ndim` matrix of integers, one row per stored cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CooIndex {
    /// The integer type of the coordinates.
    pub indices_type: IntegerType,
    /// The coordinate matrix.
    pub indices: Buffer,
    /// Bytes to step along its two axes (stored cell, dimension); row-major when empty.
    pub strides: Vec<usize>,
    /// Whether the rows are in row-major order of their cells, without repeats.
    pub is_canonical: bool,
}

/// Compressed sparse row or column index of a matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct CsxIndex {
    /// Rows (CSR) or columns (CSC).
    pub axis: CompressedAxis,
    /// The integer type of `indptr`.
    pub indptr_type: IntegerType,
    /// One more entry than the compressed axis has lines: line `i` holds stored cells
    /// `indptr[i]..indptr[i + 1]`.
    pub indptr: Buffer,
    /// The integer type of `indices`.
    pub indices_type: IntegerType,
    /// Each stored cell's position along the other axis.
    pub indices: Buffer,
}

/// Compressed sparse fiber index: one tree level per dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct CsfIndex {
    /// The integer type of the `indptr` buffers.
    pub indptr_type: IntegerType,
    /// One per pair of consecutive levels: node `i`'s children are `indptr[i]..indptr[i+1]`.
    pub indptr: Vec<Buffer>,
    /// The integer type of the `indices` buffers.
    pub indices_type: IntegerType,
    /// One per level: each node's coordinate along the level's dimension.
    pub indices: Vec<Buffer>,
    /// The dimension of each level.
    pub axis_order: Vec<usize>,
}

/// Where a sparse tensor's stored cells sit.
#[derive(Debug, Clone, PartialEq)]
pub enum SparseIndex {
    /// Coordinates (any number of dimensions).
    Coo(CooIndex),
    /// CSR or CSC (two dimensions).
    Csx(CsxIndex),
    /// Compressed sparse fiber (any number of dimensions).
    Csf(CsfIndex),
}

/// An n-dimensional array of which only some cells (the non-zero ones) are stored.
///
/// ```
/// use alkaid_buffer::Buffer;
/// use alkaid_ipc::{CompressedAxis, CsxIndex, SparseIndex, SparseTensor};
/// use alkaid_schema::{DataType, IntegerType};
///
/// // [[0, 7], [5, 0]] as CSR: row 0 holds column 1, row 1 holds column 0.
/// let index = SparseIndex::Csx(CsxIndex {
///     axis: CompressedAxis::Row,
///     indptr_type: IntegerType::Int64,
///     indptr: Buffer::from_slice_ref(&[0i64, 1, 2]),
///     indices_type: IntegerType::Int64,
///     indices: Buffer::from_slice_ref(&[1i64, 0]),
/// });
/// let data = Buffer::from_slice_ref(&[7.0f64, 5.0]);
/// let tensor = SparseTensor::try_new(DataType::Float64, vec![2, 2], vec![], 2, index, data)?;
/// assert_eq!(tensor.coordinates()?, vec![vec![0, 1], vec![1, 0]]);
/// assert_eq!(tensor.value::<f64>(1)?, 5.0);
/// # Ok::<(), alkaid_ipc::IpcError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SparseTensor {
    value_type: DataType,
    shape: Vec<usize>,
    dim_names: Vec<String>,
    non_zero_length: usize,
    index: SparseIndex,
    data: Buffer,
}

fn invalid(message: String) -> IpcError {
    IpcError::invalid_argument(message)
}

/// The `i`th integer of `ty` in `bytes`, as `u64`; `None` when past the end or negative.
fn index_at(bytes: &[u8], ty: IntegerType, i: usize) -> Option<u64> {
    let width = ty.byte_width();
    let raw = bytes.get(i.checked_mul(width)?..(i + 1).checked_mul(width)?)?;
    let mut le = [0u8; 8];
    le[..width].copy_from_slice(raw);
    let negative = ty.is_signed() && raw[width - 1] & 0x80 != 0;
    (!negative).then(|| u64::from_le_bytes(le))
}

/// `count` integers of `ty` from `bytes`, each below `limit`, as `usize`.
fn read_indices(
    what: &str,
    bytes: &[u8],
    ty: IntegerType,
    count: usize,
    limit: usize,
) -> Result<Vec<usize>> {
    if bytes.len() / ty.byte_width() < count {
        return Err(invalid(format!(
            "{what} holds {} bytes, fewer than {count} values of {} need",
            bytes.len(),
            ty.to_data_type()
        )));
    }
    (0..count)
        .map(|i| {
            index_at(bytes, ty, i)
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&v| v < limit)
                .ok_or_else(|| {
                    invalid(format!(
                        "{what}: value {i} is negative or not below {limit}"
                    ))
                })
        })
        .collect()
}

/// Checks that `pointers` start at 0, never decrease, and end at `last`.
fn check_pointers(what: &str, pointers: &[usize], last: usize) -> Result<()> {
    let ordered = pointers.first() == Some(&0)
        && pointers.windows(2).all(|w| w[0] <= w[1])
        && pointers.last() == Some(&last);
    if ordered {
        Ok(())
    } else {
        Err(invalid(format!(
            "{what} must rise from 0 to {last} without decreasing, found {pointers:?}"
        )))
    }
}

impl SparseTensor {
    /// A sparse tensor of `shape` storing `non_zero_length` cells of `value_type` in `data`,
    /// placed by `index`. Every index value is read and checked.
    ///
    /// # Errors
    /// If the type is not an integer or float type, `data` is too short, or the index does
    /// not fit the shape: a coordinate outside it, pointers that decrease or do not cover
    /// the stored cells, a CSR/CSC index for other than two dimensions, a CSF axis order
    /// that is not a permutation.
    pub fn try_new(
        value_type: DataType,
        shape: Vec<usize>,
        dim_names: Vec<String>,
        non_zero_length: usize,
        index: SparseIndex,
        data: Buffer,
    ) -> Result<Self> {
        let width = cell_width(&value_type)?;
        check_dim_names(&dim_names, shape.len())?;
        check_fits_i64("size", &shape)?;
        check_fits_i64("stored cell count", &[non_zero_length])?;
        if let SparseIndex::Coo(coo) = &index {
            check_fits_i64("COO stride", &coo.strides)?;
        }
        if non_zero_length
            .checked_mul(width)
            .is_none_or(|n| n > data.len())
        {
            return Err(invalid(format!(
                "{non_zero_length} stored cells of {value_type} need more than the {}-byte data",
                data.len()
            )));
        }
        let tensor = Self {
            value_type,
            shape,
            dim_names,
            non_zero_length,
            index,
            data,
        };
        tensor.check_index()?;
        Ok(tensor)
    }

    /// The cell type.
    pub fn value_type(&self) -> &DataType {
        &self.value_type
    }

    /// The size of each dimension, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The dimension names: empty, or one per dimension.
    pub fn dim_names(&self) -> &[String] {
        &self.dim_names
    }

    /// How many cells are stored.
    pub fn non_zero_length(&self) -> usize {
        self.non_zero_length
    }

    /// Where the stored cells sit.
    pub fn index(&self) -> &SparseIndex {
        &self.index
    }

    /// The stored cells, in the index's order.
    pub fn data(&self) -> &Buffer {
        &self.data
    }

    /// Stored cell `k`, read as `T`.
    ///
    /// # Errors
    /// If `T` is not as wide as the cell type, or `k` is not below the stored count.
    pub fn value<T: NativeType>(&self, k: usize) -> Result<T> {
        let width = cell_width(&self.value_type)?;
        if size_of::<T>() != width || k >= self.non_zero_length {
            return Err(invalid(format!(
                "stored cell {k} as {} bytes: the tensor stores {} cells of {width} bytes",
                size_of::<T>(),
                self.non_zero_length
            )));
        }
        read_native(&self.data[k * width..(k + 1) * width])
    }

    /// The coordinates of every stored cell, in data order (one position per dimension).
    ///
    /// # Errors
    /// If the index does not fit the shape (never for a tensor that `try_new` accepted).
    pub fn coordinates(&self) -> Result<Vec<Vec<usize>>> {
        let nnz = self.non_zero_length;
        match &self.index {
            SparseIndex::Coo(coo) => {
                let steps = self.coo_steps(coo)?;
                (0..nnz)
                    .map(|k| {
                        (0..self.shape.len())
                            .map(|d| self.coo_coordinate(coo, steps, k, d))
                            .collect()
                    })
                    .collect()
            }
            SparseIndex::Csx(csx) => {
                let [rows, columns] = self.shape[..] else {
                    return Err(invalid(format!(
                        "a CSR/CSC index needs a matrix, not shape {:?}",
                        self.shape
                    )));
                };
                let (lines, across) = match csx.axis {
                    CompressedAxis::Row => (rows, columns),
                    CompressedAxis::Column => (columns, rows),
                };
                let pointers =
                    read_indices("indptr", &csx.indptr, csx.indptr_type, lines + 1, nnz + 1)?;
                check_pointers("indptr", &pointers, nnz)?;
                let indices = read_indices("indices", &csx.indices, csx.indices_type, nnz, across)?;
                let mut out = Vec::with_capacity(nnz);
                for (line, range) in pointers.windows(2).enumerate() {
                    for &other in &indices[range[0]..range[1]] {
                        out.push(match csx.axis {
                            CompressedAxis::Row => vec![line, other],
                            CompressedAxis::Column => vec![other, line],
                        });
                    }
                }
                Ok(out)
            }
            SparseIndex::Csf(csf) => self.csf_coordinates(csf),
        }
    }

    /// Steps (in index values) between stored cells and between dimensions of a COO
    /// matrix: row-major or column-major only, so that the matrix really holds
    /// `nnz x ndim` values and reading it costs what the input holds.
    fn coo_steps(&self, coo: &CooIndex) -> Result<(usize, usize)> {
        let (nnz, ndim) = (self.non_zero_length, self.shape.len());
        let width = coo.indices_type.byte_width();
        let row_major = (ndim * width, width);
        let column_major = (width, nnz.saturating_mul(width));
        let strides = match coo.strides[..] {
            [] => row_major,
            [a, b]
                if (a, b) == row_major
                    || (a, b) == column_major
                    || nnz.saturating_mul(ndim) <= 1 =>
            {
                (a, b)
            }
            _ => {
                return Err(invalid(format!(
                    "COO strides {:?} are neither row-major {row_major:?} nor column-major \
                     {column_major:?}",
                    coo.strides
                )));
            }
        };
        let values = nnz.saturating_mul(ndim);
        if values
            .checked_mul(width)
            .is_none_or(|n| n > coo.indices.len())
        {
            return Err(invalid(format!(
                "the COO matrix holds {} bytes, fewer than {nnz} x {ndim} values of {} need",
                coo.indices.len(),
                coo.indices_type.to_data_type()
            )));
        }
        Ok((strides.0 / width, strides.1 / width))
    }

    /// Coordinate `d` of stored cell `k` of a COO index, checked against the shape.
    fn coo_coordinate(
        &self,
        coo: &CooIndex,
        (row, column): (usize, usize),
        k: usize,
        d: usize,
    ) -> Result<usize> {
        index_at(&coo.indices, coo.indices_type, k * row + d * column)
            .and_then(|v| usize::try_from(v).ok())
            .filter(|&v| v < self.shape[d])
            .ok_or_else(|| {
                invalid(format!(
                    "COO coordinate {d} of stored cell {k} is negative or outside shape {:?}",
                    self.shape
                ))
            })
    }

    /// Checks every value of the index against the shape and the stored cells, without
    /// building the coordinates.
    fn check_index(&self) -> Result<()> {
        match &self.index {
            SparseIndex::Coo(coo) => {
                let steps = self.coo_steps(coo)?;
                for k in 0..self.non_zero_length {
                    for d in 0..self.shape.len() {
                        self.coo_coordinate(coo, steps, k, d)?;
                    }
                }
                Ok(())
            }
            SparseIndex::Csx(_) => self.coordinates().map(drop),
            SparseIndex::Csf(csf) => self.csf_levels(csf).map(drop),
        }
    }

    /// The nodes of each level and the pointers between levels of a CSF index, checked.
    #[allow(clippy::type_complexity)]
    fn csf_levels(&self, csf: &CsfIndex) -> Result<(Vec<Vec<usize>>, Vec<Vec<usize>>)> {
        let ndim = self.shape.len();
        let mut seen = vec![false; ndim];
        let permutation = i32::try_from(ndim).is_ok()
            && csf.axis_order.len() == ndim
            && csf
                .axis_order
                .iter()
                .all(|&a| a < ndim && !std::mem::replace(&mut seen[a], true));
        if !permutation || csf.indices.len() != ndim || csf.indptr.len() + 1 != ndim.max(1) {
            return Err(invalid(format!(
                "a CSF index of {ndim} dimensions needs {ndim} indices buffers, {} indptr \
                 buffers and a permutation of 0..{ndim} as axis order; found {}, {} and {:?}",
                ndim.saturating_sub(1),
                csf.indices.len(),
                csf.indptr.len(),
                csf.axis_order
            )));
        }
        if ndim == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        // Level sizes: the last level has one node per stored cell; each indptr buffer
        // says how many nodes the level below has.
        let mut levels: Vec<Vec<usize>> = Vec::with_capacity(ndim);
        let mut pointers: Vec<Vec<usize>> = Vec::with_capacity(ndim - 1);
        let bytes_of = |buffer: &Buffer, ty: IntegerType| buffer.len() / ty.byte_width();
        let mut nodes = bytes_of(&csf.indices[0], csf.indices_type);
        for level in 0..ndim {
            let axis = csf.axis_order[level];
            let what = format!("CSF indices of level {level}");
            if level == ndim - 1 && nodes != self.non_zero_length {
                return Err(invalid(format!(
                    "the last CSF level has {nodes} nodes, not one per stored cell ({})",
                    self.non_zero_length
                )));
            }
            levels.push(read_indices(
                &what,
                &csf.indices[level],
                csf.indices_type,
                nodes,
                self.shape[axis],
            )?);
            if level + 1 < ndim {
                let next = bytes_of(&csf.indices[level + 1], csf.indices_type);
                let what = format!("CSF indptr of level {level}");
                let p = read_indices(
                    &what,
                    &csf.indptr[level],
                    csf.indptr_type,
                    nodes + 1,
                    next + 1,
                )?;
                check_pointers(&what, &p, next)?;
                pointers.push(p);
                nodes = next;
            }
        }
        Ok((levels, pointers))
    }

    fn csf_coordinates(&self, csf: &CsfIndex) -> Result<Vec<Vec<usize>>> {
        let ndim = self.shape.len();
        let (levels, pointers) = self.csf_levels(csf)?;
        if ndim == 0 {
            return Ok(Vec::new());
        }
        // Walk each leaf up to the root.
        let mut out = vec![vec![0; ndim]; self.non_zero_length];
        let mut parent: Vec<usize> = (0..self.non_zero_length).collect();
        for level in (0..ndim).rev() {
            let axis = csf.axis_order[level];
            for (cell, node) in out.iter_mut().zip(parent.iter_mut()) {
                cell[axis] = levels[level][*node];
                if level > 0 {
                    // The parent is the node whose child range holds this one.
                    let p = &pointers[level - 1];
                    *node = p.partition_point(|&start| start <= *node) - 1;
                }
            }
        }
        Ok(out)
    }
}
