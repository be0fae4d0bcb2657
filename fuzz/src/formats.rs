//! Targets for the readers added for conformance: tensor messages and Arrow's integration
//! JSON.

use alkaid_buffer::Buffer;
use alkaid_integration::{compare, read_json, write_json};
use alkaid_ipc::{read_sparse_tensor, read_tensor, write_sparse_tensor, write_tensor};

use crate::consume;

/// Tensor and sparse tensor messages: whatever reads is walked cell by cell (and index by
/// index), written again and read back the same.
pub fn tensor(data: &[u8]) {
    let bytes = Buffer::from_slice_ref(data);
    if let Ok(tensor) = read_tensor(bytes.clone()) {
        let mut index = vec![0; tensor.shape().len()];
        if tensor.size() > 0 {
            // The far corner and the origin: every stride is used.
            for (i, &size) in tensor.shape().iter().enumerate() {
                index[i] = size - 1;
            }
            let width = tensor.value_type().primitive_byte_width().unwrap_or(0);
            let _ = match width {
                1 => tensor.value::<u8>(&index).map(drop),
                2 => tensor.value::<u16>(&index).map(drop),
                4 => tensor.value::<u32>(&index).map(drop),
                _ => tensor.value::<u64>(&index).map(drop),
            };
        }
        let mut out = Vec::new();
        write_tensor(&mut out, &tensor).expect("writing to memory");
        let again = read_tensor(Buffer::from(out)).expect("a written tensor reads");
        assert_eq!(again, tensor, "a tensor changed in a round trip");
    }
    if let Ok(sparse) = read_sparse_tensor(bytes) {
        let coordinates = sparse
            .coordinates()
            .expect("an accepted index has coordinates");
        assert_eq!(coordinates.len(), sparse.non_zero_length());
        let mut out = Vec::new();
        write_sparse_tensor(&mut out, &sparse).expect("writing to memory");
        let again = read_sparse_tensor(Buffer::from(out)).expect("a written sparse tensor reads");
        assert_eq!(again.coordinates().ok(), Some(coordinates));
    }
}

/// Integration JSON: whatever reads is consumed, written again, and must read back equal.
pub fn integration_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = read_json(text) else {
        return;
    };
    for batch in &file.batches {
        consume(batch);
    }
    // A JSON file may hold what a writer cannot (a dictionary of dictionaries is refused
    // by the reader already); what writes must read back equal.
    if let Ok(written) = write_json(&file.schema, &file.batches) {
        let again = read_json(&written).expect("written JSON reads");
        compare(&again, &file.schema, &file.batches).expect("written JSON is the same data");
    }
}
