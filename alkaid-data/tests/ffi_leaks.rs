//! No leaks and no double frees through the C data interface: a counting global allocator
//! checks that exporting, importing and dropping arrays of every type (and dropping
//! exports nobody imported) gives back every byte. A double free would abort the test.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

use alkaid_data::ffi::{ArrowArray, import_array};
use alkaid_schema::DataType;
use common::encode::encode;
use common::{Rng, generatable, value};

/// The system allocator, counting the bytes it has out for the thread that asked (the
/// test harness allocates on other threads meanwhile).
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    // Const-initialised and without a destructor: reading it never allocates.
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn count(bytes: isize) {
    if COUNTED.with(Cell::get) {
        LIVE.fetch_add(bytes, Ordering::SeqCst);
    }
}

// SAFETY: every call is passed to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: as the caller's contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: as the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        // SAFETY: as the caller's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn every_byte_comes_back() {
    let types: Vec<DataType> = [
        "Int32",
        "Utf8",
        "Utf8View",
        "List(item: Struct(a: Int8, b: LargeUtf8))",
        "Dictionary(Int16, Utf8View)",
        "Union(Dense, 0 => a: Int8, 5 => b: Utf8)",
        "RunEndEncoded(r: Int32 not null, v: List(item: Int8))",
        "ListView(item: Int64)",
        "Map(entries: Struct(key: Utf8 not null, value: Int64), sorted)",
        "FixedSizeList(2, item: Decimal128(20, 2))",
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    let mut rng = Rng::new(5);
    let round = |rng: &mut Rng| {
        for data_type in &types {
            assert!(generatable(data_type));
            let values: Vec<_> = (0..20).map(|_| value(data_type, rng, 0.3)).collect();
            let data = encode(data_type, &values, rng);
            let mut exported = ArrowArray::export(&data);
            // SAFETY: an export of this crate, of `data_type`.
            let back = unsafe { import_array(&mut exported, data_type) }.unwrap();
            drop((data, back, exported));
            let unused = ArrowArray::export(&encode(data_type, &values, rng));
            drop(unused); // released by its drop
        }
    };
    round(&mut rng); // warm up anything allocated once
    COUNTED.with(|counted| counted.set(true));
    let before = LIVE.load(Ordering::SeqCst);
    for _ in 0..20 {
        round(&mut rng);
    }
    assert_eq!(LIVE.load(Ordering::SeqCst), before, "bytes leaked");
}
