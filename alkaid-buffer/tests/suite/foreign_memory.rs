//! Buffers over memory Alkaid did not allocate: `bytes::Bytes`, a memory-mapped file, and
//! what happens to the owner.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid_buffer::{Buffer, BufferError, ScalarBuffer};

#[test]
fn bytes_owner_is_wrapped_without_copying() {
    let bytes = bytes::Bytes::from((0u8..=255).collect::<Vec<_>>());
    let address = bytes.as_ptr();
    let buffer = Buffer::from_owner(bytes.slice(16..));
    assert_eq!(buffer.as_ptr(), address.wrapping_add(16));
    assert_eq!(buffer[0], 16);
    assert_eq!(buffer.len(), 240);
}

#[test]
fn memory_mapped_file_is_read_in_place() {
    let path = std::env::temp_dir().join(format!("alkaid-mmap-{}.bin", std::process::id()));
    let values: Vec<i64> = (0..1000).map(|i| i * i).collect();
    let mut file = std::fs::File::create(&path).unwrap();
    for v in &values {
        file.write_all(&v.to_le_bytes()).unwrap();
    }
    drop(file);
    let file = std::fs::File::open(&path).unwrap();
    // SAFETY: the file is private to this test and not modified while mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let address = map.as_ptr();
    let buffer = Buffer::from_owner(map);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(buffer.as_ptr(), address);
    let typed = ScalarBuffer::<i64>::try_new(buffer, 10, 5).unwrap();
    assert_eq!(&typed[..], &values[10..15]);
}

/// An owner that counts how often it is dropped.
struct Counted(Vec<u8>, Arc<AtomicUsize>);

impl AsRef<[u8]> for Counted {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn owner_lives_until_the_last_slice_is_dropped() {
    let drops = Arc::new(AtomicUsize::new(0));
    let buffer = Buffer::from_owner(Counted(vec![1, 2, 3, 4], Arc::clone(&drops)));
    let slice = buffer.slice(2, 2);
    drop(buffer);
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    assert_eq!(&slice[..], &[3, 4]);
    let thread_copy = slice.clone();
    std::thread::spawn(move || assert_eq!(thread_copy[0], 3))
        .join()
        .unwrap();
    drop(slice);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn misaligned_foreign_bytes_are_an_error_not_undefined_behaviour() {
    let raw: Vec<u8> = (0..64).collect();
    let buffer = Buffer::from(raw);
    // Find an odd address inside the vector regardless of where the allocator put it.
    let odd = if buffer.as_ptr() as usize % 2 == 1 {
        0
    } else {
        1
    };
    let view = buffer.slice(odd, 16);
    assert!(matches!(
        view.typed::<u16>(),
        Err(BufferError::Misaligned { required: 2, .. })
    ));
    let realigned = ScalarBuffer::<u16>::new_realigned(view.clone(), 0, 8).unwrap();
    assert_eq!(realigned.inner(), &view);
}
