//! Tensors from pyarrow, the spec's worked sparse examples, round trips, and hostile input.

use std::path::PathBuf;

use alkaid_buffer::Buffer;
use alkaid_schema::{DataType, IntegerType};

use super::*;
use crate::IpcErrorKind;

fn fixture(name: &str) -> Buffer {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pyarrow")
        .join(name);
    Buffer::from(std::fs::read(path).unwrap())
}

fn round_trip(tensor: &Tensor) -> Tensor {
    let mut bytes = Vec::new();
    let written = write_tensor(&mut bytes, tensor).unwrap();
    assert_eq!(written, bytes.len());
    read_tensor(Buffer::from(bytes)).unwrap()
}

fn sparse_round_trip(tensor: &SparseTensor) -> SparseTensor {
    let mut bytes = Vec::new();
    write_sparse_tensor(&mut bytes, tensor).unwrap();
    read_sparse_tensor(Buffer::from(bytes)).unwrap()
}

#[test]
fn pyarrow_tensors_read_with_their_shape_strides_and_names() {
    let int32 = read_tensor(fixture("tensor_int32.bin")).unwrap();
    assert_eq!(
        (int32.value_type(), int32.shape(), int32.strides()),
        (&DataType::Int32, &[2, 3][..], &[12, 4][..])
    );
    assert_eq!(int32.dim_names(), ["row", "col"]);
    assert!(int32.is_row_major());
    assert_eq!(int32.value::<i32>(&[1, 2]).unwrap(), 5);

    let fortran = read_tensor(fixture("tensor_f64_fortran.bin")).unwrap();
    assert!(fortran.is_column_major() && !fortran.is_row_major());
    assert_eq!(fortran.strides(), &[8, 24]);
    assert!(fortran.dim_names().is_empty());
    // arange(12).reshape(3, 4) / 4: cell (r, c) holds (4r + c) / 4.
    for (r, c) in [(0, 0), (2, 1), (1, 3)] {
        assert_eq!(
            fortran.value::<f64>(&[r, c]).unwrap(),
            (4 * r + c) as f64 / 4.0
        );
    }

    let strided = read_tensor(fixture("tensor_u16_strided.bin")).unwrap();
    assert_eq!(strided.shape(), &[4, 3]);
    assert_eq!(strided.value::<u16>(&[3, 2]).unwrap(), 22);

    let empty = read_tensor(fixture("tensor_empty.bin")).unwrap();
    assert_eq!((empty.shape(), empty.size()), (&[0, 5][..], 0));
    assert!(empty.value::<i8>(&[0, 0]).is_err());

    // Each reads back the same after Alkaid writes it.
    for tensor in [int32, fortran, strided, empty] {
        assert_eq!(round_trip(&tensor), tensor);
    }
}

#[test]
fn tensors_are_read_without_copying_their_cells() {
    let bytes = fixture("tensor_int32.bin");
    let tensor = read_tensor(bytes.clone()).unwrap();
    assert!(tensor.data().shares_allocation_with(&bytes));
}

#[test]
fn dense_tensors_refuse_what_does_not_fit() {
    let cells = Buffer::from_slice_ref(&[1i32, 2, 3, 4]);
    let make = |shape: Vec<usize>, strides: Option<Vec<usize>>| {
        Tensor::try_new(DataType::Int32, cells.clone(), shape, strides, vec![])
    };
    assert!(make(vec![2, 2], None).is_ok());
    assert!(
        make(vec![2, 3], None)
            .unwrap_err()
            .to_string()
            .contains("reaches past its 16-byte data")
    );
    assert!(
        make(vec![2, 2], Some(vec![8, 8])).is_err(),
        "the far corner is at byte 16"
    );
    // Zero strides put every cell on the first: a shape of 2^62 × 4 fits in 4 bytes, but
    // its cells cannot be counted.
    let err = make(vec![1 << 62, 4], Some(vec![0, 0])).unwrap_err();
    assert!(
        err.to_string()
            .contains("more cells than a 64-bit count holds"),
        "{err}"
    );
    let broadcast = make(vec![1 << 20, 1 << 20], Some(vec![0, 0])).unwrap();
    assert_eq!(broadcast.size(), 1 << 40);
    assert_eq!(
        make(vec![1 << 62, 4, 0], Some(vec![0, 0, 0]))
            .unwrap()
            .size(),
        0
    );
    assert!(
        make(vec![2, 2], Some(vec![4]))
            .unwrap_err()
            .to_string()
            .contains("1 strides for a shape of 2")
    );
    assert!(make(vec![usize::MAX, 2], None).is_err());
    // No cells, so no data needed, but strides that the format's i64 cannot carry (found
    // by fuzzing: the tensor read, then failed to read back after writing).
    let empty = Tensor::try_new(
        DataType::Int64,
        Buffer::empty(),
        vec![0, 1 << 60],
        None,
        vec![],
    );
    assert!(
        empty
            .unwrap_err()
            .to_string()
            .contains("does not fit the format's 64-bit integers")
    );
    // The outermost size never enters a stride.
    assert!(
        Tensor::try_new(
            DataType::Int64,
            Buffer::empty(),
            vec![1 << 62, 0],
            None,
            vec![]
        )
        .is_ok()
    );
    let huge = Tensor::try_new(
        DataType::Int8,
        Buffer::empty(),
        vec![0],
        Some(vec![usize::MAX]),
        vec![],
    );
    assert!(huge.is_err());
    assert!(Tensor::try_new(DataType::Utf8, cells.clone(), vec![1], None, vec![]).is_err());
    assert!(
        Tensor::try_new(
            DataType::Int32,
            cells.clone(),
            vec![4],
            None,
            vec!["a".into(), "b".into()]
        )
        .is_err()
    );
    let tensor = make(vec![2, 2], None).unwrap();
    assert!(
        tensor
            .value::<i64>(&[0, 0])
            .unwrap_err()
            .to_string()
            .contains("are 4 bytes, not 8")
    );
    assert!(tensor.value::<i32>(&[2, 0]).is_err());
    assert!(tensor.value::<i32>(&[0]).is_err());
}

/// The 2x3x4x5 tensor of the COO example in the format's SparseTensor.fbs.
fn coo_example() -> SparseTensor {
    let coordinates: [[i64; 4]; 6] = [
        [0, 1, 2, 0],
        [0, 1, 2, 1],
        [0, 1, 3, 0],
        [0, 2, 1, 0],
        [1, 1, 2, 3],
        [1, 2, 0, 4],
    ];
    let index = SparseIndex::Coo(CooIndex {
        indices_type: IntegerType::Int64,
        indices: Buffer::from_slice_ref(coordinates.as_flattened()),
        strides: vec![32, 8],
        is_canonical: true,
    });
    let data = Buffer::from_slice_ref(&[1.0f64, 5.0, 4.0, 3.0, 2.0, 6.0]);
    SparseTensor::try_new(DataType::Float64, vec![2, 3, 4, 5], vec![], 6, index, data).unwrap()
}

/// The 6x4 matrix of the CSR example: [[0,1,2,0],[0,0,3,0],[0,4,0,5],[0,0,0,0],[6,0,7,8],[0,9,0,0]].
fn csr_example(indptr_type: IntegerType) -> SparseTensor {
    let indptr: Vec<i64> = vec![0, 2, 3, 5, 5, 8, 9];
    let indptr = match indptr_type {
        IntegerType::Int32 => {
            Buffer::from_slice_ref(&indptr.iter().map(|&v| v as i32).collect::<Vec<_>>())
        }
        _ => Buffer::from_slice_ref(&indptr),
    };
    let index = SparseIndex::Csx(CsxIndex {
        axis: CompressedAxis::Row,
        indptr_type,
        indptr,
        indices_type: IntegerType::Int64,
        indices: Buffer::from_slice_ref(&[1i64, 2, 2, 1, 3, 0, 2, 3, 1]),
    });
    let data = Buffer::from_slice_ref(&[1i32, 2, 3, 4, 5, 6, 7, 8, 9]);
    SparseTensor::try_new(
        DataType::Int32,
        vec![6, 4],
        vec!["r".into(), "c".into()],
        9,
        index,
        data,
    )
    .unwrap()
}

/// The 2x3x4x5 tensor of the CSF example.
fn csf_example() -> SparseTensor {
    let i64s = |v: &[i64]| Buffer::from_slice_ref(v);
    let index = SparseIndex::Csf(CsfIndex {
        indptr_type: IntegerType::Int64,
        indptr: vec![
            i64s(&[0, 2, 3]),
            i64s(&[0, 1, 3, 4]),
            i64s(&[0, 2, 4, 5, 8]),
        ],
        indices_type: IntegerType::Int64,
        indices: vec![
            i64s(&[0, 1]),
            i64s(&[0, 1, 1]),
            i64s(&[0, 0, 1, 1]),
            i64s(&[1, 2, 0, 2, 0, 0, 1, 2]),
        ],
        axis_order: vec![0, 1, 2, 3],
    });
    let data = Buffer::from_slice_ref(&[1u8, 2, 3, 4, 5, 6, 7, 8]);
    SparseTensor::try_new(DataType::UInt8, vec![2, 3, 4, 5], vec![], 8, index, data).unwrap()
}

#[test]
fn the_specs_sparse_examples_give_their_coordinates() {
    assert_eq!(coo_example().coordinates().unwrap()[4], vec![1, 1, 2, 3]);
    let csr = csr_example(IntegerType::Int64).coordinates().unwrap();
    assert_eq!(csr[..4], [vec![0, 1], vec![0, 2], vec![1, 2], vec![2, 1]]);
    assert_eq!(csr[8], vec![5, 1]);
    let csf = csf_example().coordinates().unwrap();
    let expected = [
        [0, 0, 0, 1],
        [0, 0, 0, 2],
        [0, 1, 0, 0],
        [0, 1, 0, 2],
        [0, 1, 1, 0],
        [1, 1, 1, 0],
        [1, 1, 1, 1],
        [1, 1, 1, 2],
    ];
    assert_eq!(csf, expected.iter().map(|c| c.to_vec()).collect::<Vec<_>>());
    assert_eq!(csf_example().value::<u8>(5).unwrap(), 6);
}

#[test]
fn sparse_tensors_round_trip_in_every_index_layout() {
    for tensor in [
        coo_example(),
        csr_example(IntegerType::Int32),
        csf_example(),
    ] {
        let read = sparse_round_trip(&tensor);
        assert_eq!(read.coordinates().unwrap(), tensor.coordinates().unwrap());
        assert_eq!(read, tensor);
    }
    // CSC: the CSR index read with columns compressed is the transpose.
    let SparseIndex::Csx(mut csx) = csr_example(IntegerType::Int64).index().clone() else {
        unreachable!()
    };
    csx.axis = CompressedAxis::Column;
    let csc = SparseTensor::try_new(
        DataType::Int32,
        vec![4, 6],
        vec![],
        9,
        SparseIndex::Csx(csx),
        Buffer::from_slice_ref(&[0i32; 9]),
    )
    .unwrap();
    assert_eq!(
        sparse_round_trip(&csc).coordinates().unwrap()[8],
        vec![1, 5]
    );
}

#[test]
fn sparse_indices_that_leave_the_shape_are_refused() {
    let refuse = |index: SparseIndex, shape: Vec<usize>, nnz: usize, reason: &str| {
        let data = Buffer::from_slice_ref(&[0i64; 16]);
        let error =
            SparseTensor::try_new(DataType::Int64, shape, vec![], nnz, index, data).unwrap_err();
        assert!(error.to_string().contains(reason), "{error}");
    };
    let coo = |coordinates: &[i32], strides: Vec<usize>| {
        SparseIndex::Coo(CooIndex {
            indices_type: IntegerType::Int32,
            indices: Buffer::from_slice_ref(coordinates),
            strides,
            is_canonical: false,
        })
    };
    refuse(
        coo(&[0, 2], vec![]),
        vec![2, 2],
        1,
        "COO coordinate 1 of stored cell 0",
    );
    refuse(coo(&[0, -1], vec![]), vec![2, 2], 1, "negative or outside");
    refuse(
        coo(&[0, 1], vec![]),
        vec![2, 2],
        2,
        "fewer than 2 x 2 values",
    );
    refuse(
        coo(&[0, 1, 1, 0], vec![0, 0]),
        vec![2, 2],
        2,
        "neither row-major",
    );
    let csr = |indptr: &[i64], indices: &[i64]| {
        SparseIndex::Csx(CsxIndex {
            axis: CompressedAxis::Row,
            indptr_type: IntegerType::Int64,
            indptr: Buffer::from_slice_ref(indptr),
            indices_type: IntegerType::Int64,
            indices: Buffer::from_slice_ref(indices),
        })
    };
    refuse(
        csr(&[0, 2, 1], &[0, 1]),
        vec![2, 2],
        2,
        "without decreasing",
    );
    refuse(
        csr(&[0, 1, 2], &[0, 2]),
        vec![2, 2],
        2,
        "value 1 is negative or not below 2",
    );
    refuse(csr(&[0, 1], &[0]), vec![2, 2], 1, "fewer than 3 values");
    refuse(csr(&[0, 1, 1, 1], &[0]), vec![1, 1, 1], 1, "needs a matrix");
    let SparseIndex::Csf(mut csf) = csf_example().index().clone() else {
        unreachable!()
    };
    csf.axis_order = vec![0, 1, 1, 3];
    refuse(
        SparseIndex::Csf(csf.clone()),
        vec![2, 3, 4, 5],
        8,
        "a permutation of 0..4",
    );
    csf.axis_order = vec![0, 1, 2, 3];
    csf.indptr[1] = Buffer::from_slice_ref(&[0i64, 3, 1, 4]);
    refuse(
        SparseIndex::Csf(csf),
        vec![2, 3, 4, 5],
        8,
        "CSF indptr of level 1",
    );
    let data = Buffer::from_slice_ref(&[0i64; 2]);
    let too_few = SparseTensor::try_new(
        DataType::Int64,
        vec![2, 2],
        vec![],
        3,
        coo(&[0; 6], vec![]),
        data,
    );
    assert!(
        too_few
            .unwrap_err()
            .to_string()
            .contains("need more than the 16-byte data")
    );
}

#[test]
fn hostile_tensor_messages_are_errors() {
    let good = fixture("tensor_int32.bin");
    // Cut anywhere: an error, never a panic.
    for cut in 0..good.len() {
        let result = read_tensor(good.slice(0, cut));
        assert!(result.is_err(), "cut at {cut}");
    }
    // Not a tensor at all, or a sparse reader on a dense tensor.
    let err = read_sparse_tensor(good.clone()).unwrap_err();
    assert!(
        err.to_string()
            .contains("a Tensor message, not a sparse tensor"),
        "{err}"
    );
    let mut stream = Vec::new();
    write_tensor(&mut stream, &read_tensor(good.clone()).unwrap()).unwrap();
    // A dimension that claims more cells than the body holds.
    let mut bytes = good.to_vec();
    let three = 3i64.to_le_bytes();
    let at = bytes.windows(8).position(|w| w == three).unwrap();
    bytes[at..at + 8].copy_from_slice(&300i64.to_le_bytes());
    let err = read_tensor(Buffer::from(bytes)).unwrap_err();
    assert_eq!(err.kind(), IpcErrorKind::Malformed);
    assert!(err.to_string().contains("reaches past"), "{err}");
    // A tensor message where a stream expects record batches.
    let err = crate::StreamReader::try_new(&stream[..]).err().unwrap();
    assert!(err.to_string().contains("tensor"), "{err}");
    // Every single-byte flip of a sparse message reads or errs, never panics.
    let mut sparse = Vec::new();
    write_sparse_tensor(&mut sparse, &csf_example()).unwrap();
    for i in 0..sparse.len() {
        let mut flipped = sparse.clone();
        flipped[i] ^= 0x41;
        let _ = read_sparse_tensor(Buffer::from(flipped));
    }
}
