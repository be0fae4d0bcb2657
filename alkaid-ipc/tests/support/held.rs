//! What an array keeps alive, for the tests of reads that hold only the bytes they need.

/// The allocations behind `data` and everything below it, each counted once.
pub fn held(data: &alkaid_data::ArrayData) -> usize {
    fn add(data: &alkaid_data::ArrayData, tally: &mut alkaid_buffer::memory::MemoryTally) {
        for buffer in data.buffers() {
            tally.add(buffer);
        }
        if let Some(nulls) = data.nulls() {
            tally.add(nulls.validity().inner());
        }
        for child in data.children() {
            add(child, tally);
        }
    }
    let mut tally = alkaid_buffer::memory::MemoryTally::new();
    add(data, &mut tally);
    tally.bytes()
}
