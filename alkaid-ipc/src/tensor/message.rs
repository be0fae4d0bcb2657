//! Tensor and sparse tensor messages to bytes and back: one framed message each (prefix,
//! `Message` flatbuffer, body), as `pa.ipc.write_tensor` writes and reads them.

use std::io::Write;

use alkaid_buffer::Buffer;
use alkaid_schema::extension::Namespace;
use alkaid_schema::{DataType, IntegerType, Metadata};
use flatbuffers::{FlatBufferBuilder, ForwardsUOffset, Vector, WIPOffset};

use super::Tensor;
use super::sparse::{CompressedAxis, CooIndex, CsfIndex, CsxIndex, SparseIndex, SparseTensor};
use crate::WriteOptions;
use crate::error::{IpcError, Result};
use crate::fb;
use crate::read::{Prefix, ReadOptions, body_length, parse_message, parse_prefix};
use crate::schema::{encode_type, integer_params, integer_type};
use crate::write::message::{Body, finish_message, write_message};

/// The metadata and body of the one message at the start of `bytes`.
fn message_parts(bytes: &Buffer) -> Result<(fb::Message<'_>, Buffer)> {
    let options = ReadOptions::default();
    let (header, metadata) = match parse_prefix(bytes, &options)? {
        Some(Prefix::Message { header, metadata }) => (header, metadata),
        Some(Prefix::End) => {
            return Err(IpcError::malformed(
                "an end-of-stream marker, not a message",
            ));
        }
        None => return Err(IpcError::truncated("the bytes end inside a message prefix")),
    };
    let end = header + metadata;
    if end > bytes.len() {
        return Err(IpcError::truncated(format!(
            "the message declares {metadata} bytes of metadata, but only {} follow",
            bytes.len() - header
        )));
    }
    let message = parse_message(&bytes[header..end], &options)?;
    let body_len = body_length(message.bodyLength())?;
    if body_len > bytes.len() - end {
        return Err(IpcError::truncated(format!(
            "the message declares a {body_len}-byte body, but only {} bytes follow",
            bytes.len() - end
        )));
    }
    Ok((message, bytes.slice(end, body_len)))
}

/// The slice of `body` that a message's buffer location names.
fn body_slice(body: &Buffer, location: Option<&fb::Buffer>, what: &str) -> Result<Buffer> {
    let location =
        location.ok_or_else(|| IpcError::malformed(format!("the {what} buffer is missing")))?;
    let (offset, length) = (location.offset(), location.length());
    usize::try_from(offset)
        .ok()
        .zip(usize::try_from(length).ok())
        .filter(|&(o, l)| o.checked_add(l).is_some_and(|end| end <= body.len()))
        .map(|(o, l)| body.slice(o, l))
        .ok_or_else(|| {
            IpcError::malformed(format!(
                "the {what} buffer ({length} bytes at {offset}) lies outside the {}-byte body",
                body.len()
            ))
        })
}

/// A tensor cell type from a message: integers and floats only.
fn cell_type(
    type_type: fb::Type,
    int: Option<fb::Int<'_>>,
    float: Option<fb::FloatingPoint<'_>>,
) -> Result<DataType> {
    let found = match (type_type, int, float) {
        (fb::Type::Int, Some(int), _) => {
            integer_type(int.bitWidth(), int.is_signed()).map(IntegerType::to_data_type)
        }
        (fb::Type::FloatingPoint, _, Some(float)) => match float.precision() {
            fb::Precision::HALF => Some(DataType::Float16),
            fb::Precision::SINGLE => Some(DataType::Float32),
            fb::Precision::DOUBLE => Some(DataType::Float64),
            _ => None,
        },
        _ => None,
    };
    found.ok_or_else(|| {
        IpcError::unsupported(format!(
            "tensor cells of type {} (integers and floats are read)",
            type_type.variant_name().unwrap_or("unknown")
        ))
    })
}

/// Shape and names of a message's dimensions.
fn dimensions(
    shape: Vector<'_, ForwardsUOffset<fb::TensorDim<'_>>>,
) -> Result<(Vec<usize>, Vec<String>)> {
    let mut sizes = Vec::with_capacity(shape.len());
    let mut names = Vec::with_capacity(shape.len());
    for (i, dim) in shape.iter().enumerate() {
        sizes.push(
            usize::try_from(dim.size()).map_err(|_| {
                IpcError::malformed(format!("dimension {i} has size {}", dim.size()))
            })?,
        );
        names.push(dim.name().unwrap_or("").to_string());
    }
    if names.iter().all(String::is_empty) {
        names.clear();
    }
    Ok((sizes, names))
}

fn counts(values: impl Iterator<Item = i64>, what: &str) -> Result<Vec<usize>> {
    values
        .map(|v| usize::try_from(v).map_err(|_| IpcError::malformed(format!("{what} {v}"))))
        .collect()
}

fn index_type(int: fb::Int<'_>, what: &str) -> Result<IntegerType> {
    integer_type(int.bitWidth(), int.is_signed()).ok_or_else(|| {
        IpcError::malformed(format!("{what} are integers of {} bits", int.bitWidth()))
    })
}

/// Errors of a tensor's own checks, which read from bytes, are malformed input.
fn malformed(e: IpcError) -> IpcError {
    IpcError::malformed(e.message().to_string())
}

/// Reads the tensor message at the start of `bytes`; the tensor's cells are a slice of
/// `bytes` (no copy).
///
/// # Errors
/// If the bytes are not one tensor message, or it is inconsistent (cells outside the body,
/// strides that reach past the cells, a cell type other than integer or float).
pub fn read_tensor(bytes: Buffer) -> Result<Tensor> {
    let (message, body) = message_parts(&bytes)?;
    let tensor = message.header_as_tensor().ok_or_else(|| {
        IpcError::malformed(format!("a {} message, not a tensor", header_name(&message)))
    })?;
    let value_type = cell_type(
        tensor.type_type(),
        tensor.type__as_int(),
        tensor.type__as_floating_point(),
    )?;
    let (shape, names) = dimensions(tensor.shape())?;
    let strides = tensor
        .strides()
        .map(|s| counts(s.iter(), "stride"))
        .transpose()?;
    let data = body_slice(&body, Some(tensor.data()), "data")?;
    Tensor::try_new(value_type, data, shape, strides, names).map_err(malformed)
}

/// Reads the sparse tensor message at the start of `bytes`; its cells and index buffers
/// are slices of `bytes` (no copy). Every index value is checked against the shape.
///
/// # Errors
/// If the bytes are not one sparse tensor message, or it is inconsistent.
pub fn read_sparse_tensor(bytes: Buffer) -> Result<SparseTensor> {
    let (message, body) = message_parts(&bytes)?;
    let tensor = message.header_as_sparse_tensor().ok_or_else(|| {
        IpcError::malformed(format!(
            "a {} message, not a sparse tensor",
            header_name(&message)
        ))
    })?;
    let value_type = cell_type(
        tensor.type_type(),
        tensor.type__as_int(),
        tensor.type__as_floating_point(),
    )?;
    let (shape, names) = dimensions(tensor.shape())?;
    let non_zero_length = usize::try_from(tensor.non_zero_length())
        .map_err(|_| IpcError::malformed(format!("{} stored cells", tensor.non_zero_length())))?;
    let index = if let Some(coo) = tensor.sparseIndex_as_sparse_tensor_index_coo() {
        SparseIndex::Coo(CooIndex {
            indices_type: index_type(coo.indicesType(), "COO indices")?,
            indices: body_slice(&body, Some(coo.indicesBuffer()), "COO indices")?,
            strides: coo
                .indicesStrides()
                .map(|s| counts(s.iter(), "COO stride"))
                .transpose()?
                .unwrap_or_default(),
            is_canonical: coo.isCanonical(),
        })
    } else if let Some(csx) = tensor.sparseIndex_as_sparse_matrix_index_csx() {
        let axis = match csx.compressedAxis() {
            fb::SparseMatrixCompressedAxis::Row => CompressedAxis::Row,
            fb::SparseMatrixCompressedAxis::Column => CompressedAxis::Column,
            other => return Err(IpcError::malformed(format!("compressed axis {}", other.0))),
        };
        SparseIndex::Csx(CsxIndex {
            axis,
            indptr_type: index_type(csx.indptrType(), "CSX indptr")?,
            indptr: body_slice(&body, Some(csx.indptrBuffer()), "CSX indptr")?,
            indices_type: index_type(csx.indicesType(), "CSX indices")?,
            indices: body_slice(&body, Some(csx.indicesBuffer()), "CSX indices")?,
        })
    } else if let Some(csf) = tensor.sparseIndex_as_sparse_tensor_index_csf() {
        let buffers = |list: Vector<'_, fb::Buffer>, what: &str| {
            list.iter()
                .map(|b| body_slice(&body, Some(b), what))
                .collect::<Result<Vec<_>>>()
        };
        SparseIndex::Csf(CsfIndex {
            indptr_type: index_type(csf.indptrType(), "CSF indptr")?,
            indptr: buffers(csf.indptrBuffers(), "CSF indptr")?,
            indices_type: index_type(csf.indicesType(), "CSF indices")?,
            indices: buffers(csf.indicesBuffers(), "CSF indices")?,
            axis_order: counts(csf.axisOrder().iter().map(i64::from), "CSF axis")?,
        })
    } else {
        return Err(IpcError::malformed(format!(
            "sparse index type {}",
            tensor.sparseIndex_type().0
        )));
    };
    let data = body_slice(&body, Some(tensor.data()), "data")?;
    SparseTensor::try_new(value_type, shape, names, non_zero_length, index, data).map_err(malformed)
}

fn header_name(message: &fb::Message<'_>) -> &'static str {
    message.header_type().variant_name().unwrap_or("unknown")
}

// ----- writing

fn shape_vector<'b>(
    fbb: &mut FlatBufferBuilder<'b>,
    shape: &[usize],
    names: &[String],
) -> WIPOffset<Vector<'b, ForwardsUOffset<fb::TensorDim<'b>>>> {
    let dims: Vec<_> = shape
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let name = names
                .get(i)
                .filter(|n| !n.is_empty())
                .map(|n| fbb.create_string(n));
            fb::TensorDim::create(
                fbb,
                &fb::TensorDimArgs {
                    // Sizes, strides and counts were checked to fit `i64` when the tensor
                    // was made.
                    size: size as i64,
                    name,
                },
            )
        })
        .collect();
    fbb.create_vector(&dims)
}

fn int_table<'b>(fbb: &mut FlatBufferBuilder<'b>, ty: IntegerType) -> WIPOffset<fb::Int<'b>> {
    let (bit_width, is_signed) = integer_params(ty);
    fb::Int::create(
        fbb,
        &fb::IntArgs {
            bitWidth: bit_width,
            is_signed,
        },
    )
}

/// Finishes `fbb` as a message around `header` and writes it with `body`; returns the bytes
/// written.
fn write_framed(
    out: &mut impl Write,
    mut fbb: FlatBufferBuilder<'_>,
    header_type: fb::MessageHeader,
    header: WIPOffset<flatbuffers::UnionWIPOffset>,
    body: &Body,
) -> Result<usize> {
    let (metadata, namespace) = (Metadata::new(), Namespace::Alkaid);
    finish_message(
        &mut fbb,
        header_type,
        header,
        body.len(),
        &metadata,
        namespace,
    );
    let (meta, body) = write_message(out, fbb.finished_data(), Some(body), 8)?;
    Ok(meta + body)
}

/// Writes `tensor` as one message; returns the bytes written. The cells go out as they
/// lie in memory, with the tensor's strides.
///
/// # Errors
/// If writing fails.
pub fn write_tensor(out: &mut impl Write, tensor: &Tensor) -> Result<usize> {
    let body = Body::new(
        vec![tensor.data().clone()],
        &WriteOptions::default(),
        &mut Vec::new(),
    )?;
    let mut fbb = FlatBufferBuilder::new();
    let (type_type, type_) = encode_type(&mut fbb, tensor.value_type());
    let shape = shape_vector(&mut fbb, tensor.shape(), tensor.dim_names());
    let strides: Vec<i64> = tensor.strides().iter().map(|&s| s as i64).collect();
    let strides = fbb.create_vector(&strides);
    let header = fb::Tensor::create(
        &mut fbb,
        &fb::TensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            strides: Some(strides),
            data: Some(&body.locations()[0]),
        },
    );
    write_framed(
        out,
        fbb,
        fb::MessageHeader::Tensor,
        header.as_union_value(),
        &body,
    )
}

/// Writes `tensor` as one sparse tensor message; returns the bytes written.
///
/// # Errors
/// If writing fails.
pub fn write_sparse_tensor(out: &mut impl Write, tensor: &SparseTensor) -> Result<usize> {
    // Body order: index buffers first, then the cells, as Arrow C++ lays them out.
    let mut buffers = match tensor.index() {
        SparseIndex::Coo(coo) => vec![coo.indices.clone()],
        SparseIndex::Csx(csx) => vec![csx.indptr.clone(), csx.indices.clone()],
        SparseIndex::Csf(csf) => csf.indptr.iter().chain(&csf.indices).cloned().collect(),
    };
    buffers.push(tensor.data().clone());
    let body = Body::new(buffers, &WriteOptions::default(), &mut Vec::new())?;
    let locations = body.locations();
    let mut fbb = FlatBufferBuilder::new();
    let (type_type, type_) = encode_type(&mut fbb, tensor.value_type());
    let shape = shape_vector(&mut fbb, tensor.shape(), tensor.dim_names());
    let (index_type, index) = match tensor.index() {
        SparseIndex::Coo(coo) => {
            let indices_type = int_table(&mut fbb, coo.indices_type);
            let strides: Vec<i64> = coo.strides.iter().map(|&s| s as i64).collect();
            let indices_strides = (!strides.is_empty()).then(|| fbb.create_vector(&strides));
            let table = fb::SparseTensorIndexCOO::create(
                &mut fbb,
                &fb::SparseTensorIndexCOOArgs {
                    indicesType: Some(indices_type),
                    indicesStrides: indices_strides,
                    indicesBuffer: Some(&locations[0]),
                    isCanonical: coo.is_canonical,
                },
            );
            (
                fb::SparseTensorIndex::SparseTensorIndexCOO,
                table.as_union_value(),
            )
        }
        SparseIndex::Csx(csx) => {
            let indptr_type = int_table(&mut fbb, csx.indptr_type);
            let indices_type = int_table(&mut fbb, csx.indices_type);
            let compressed_axis = match csx.axis {
                CompressedAxis::Row => fb::SparseMatrixCompressedAxis::Row,
                CompressedAxis::Column => fb::SparseMatrixCompressedAxis::Column,
            };
            let table = fb::SparseMatrixIndexCSX::create(
                &mut fbb,
                &fb::SparseMatrixIndexCSXArgs {
                    compressedAxis: compressed_axis,
                    indptrType: Some(indptr_type),
                    indptrBuffer: Some(&locations[0]),
                    indicesType: Some(indices_type),
                    indicesBuffer: Some(&locations[1]),
                },
            );
            (
                fb::SparseTensorIndex::SparseMatrixIndexCSX,
                table.as_union_value(),
            )
        }
        SparseIndex::Csf(csf) => {
            let indptr_type = int_table(&mut fbb, csf.indptr_type);
            let indices_type = int_table(&mut fbb, csf.indices_type);
            let (indptr, rest) = locations.split_at(csf.indptr.len());
            let indptr_buffers = fbb.create_vector(indptr);
            let indices_buffers = fbb.create_vector(&rest[..csf.indices.len()]);
            // A permutation of the dimensions, checked when the tensor was made.
            let order: Vec<i32> = csf.axis_order.iter().map(|&a| a as i32).collect();
            let axis_order = fbb.create_vector(&order);
            let table = fb::SparseTensorIndexCSF::create(
                &mut fbb,
                &fb::SparseTensorIndexCSFArgs {
                    indptrType: Some(indptr_type),
                    indptrBuffers: Some(indptr_buffers),
                    indicesType: Some(indices_type),
                    indicesBuffers: Some(indices_buffers),
                    axisOrder: Some(axis_order),
                },
            );
            (
                fb::SparseTensorIndex::SparseTensorIndexCSF,
                table.as_union_value(),
            )
        }
    };
    let header = fb::SparseTensor::create(
        &mut fbb,
        &fb::SparseTensorArgs {
            type_type,
            type_: Some(type_),
            shape: Some(shape),
            non_zero_length: tensor.non_zero_length() as i64,
            sparseIndex_type: index_type,
            sparseIndex: Some(index),
            data: locations.last(),
        },
    );
    write_framed(
        out,
        fbb,
        fb::MessageHeader::SparseTensor,
        header.as_union_value(),
        &body,
    )
}
