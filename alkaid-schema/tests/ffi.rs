//! The C data interface's schemas: every type round trips, and a hostile or malformed
//! foreign schema is an error that names where, released exactly once.

use std::ffi::{CString, c_char};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid_schema::ffi::{ArrowSchema, FLAG_NULLABLE, MAX_IMPORT_DEPTH, import_field};
use alkaid_schema::{Field, arbitrary};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn every_type_round_trips(
        data_type in arbitrary::data_type_with_depth(3),
        nullable in any::<bool>(),
        // Format and name are kept inline up to 64 bytes, on the heap past that.
        name in "[a-z\u{e9}]{0,70}",
    ) {
        let field = Field::new(name, data_type, nullable).with_metadata_entry("k", "v\u{e9}");
        // An empty time zone is no time zone (the format spells both "ts<unit>:"), and
        // comes back as none.
        prop_assume!(!field.to_string().contains(", \"\")"));
        let mut exported = ArrowSchema::try_export(&field).unwrap();
        // SAFETY: an export of this crate, imported once.
        let back = unsafe { import_field(&mut exported) }.unwrap();
        prop_assert_eq!(back, field);
        prop_assert!(exported.release.is_none());
    }
}

static RELEASED: AtomicUsize = AtomicUsize::new(0);

/// A foreign producer's release: counts, then marks the schema released. The strings are
/// leaked test data.
unsafe extern "C" fn count_release(schema: *mut ArrowSchema) {
    RELEASED.fetch_add(1, Ordering::SeqCst);
    // SAFETY: called by the import on the schema it was given.
    unsafe { (*schema).release = None };
}

fn leaked(text: &str) -> *const c_char {
    CString::new(text).unwrap().into_raw()
}

/// A foreign schema with `format`, no name, `children`.
fn foreign(format: &str, children: Vec<*mut ArrowSchema>) -> ArrowSchema {
    let mut schema = ArrowSchema::empty();
    schema.format = leaked(format);
    schema.flags = FLAG_NULLABLE;
    schema.n_children = children.len() as i64;
    schema.children = Box::leak(children.into_boxed_slice()).as_mut_ptr();
    schema.release = Some(count_release);
    schema
}

/// Imports `schema` and returns the error text; checks the release count went up by one.
fn import_error(mut schema: ArrowSchema) -> String {
    let before = RELEASED.load(Ordering::SeqCst);
    // SAFETY: a well-formed test schema (pointers valid), whatever its contents say.
    let result = unsafe { import_field(&mut schema) };
    assert_eq!(
        RELEASED.load(Ordering::SeqCst),
        before + 1,
        "released exactly once"
    );
    result.expect_err("a malformed schema").to_string()
}

#[test]
fn malformed_schemas_are_errors_that_name_the_place() {
    assert!(import_error(foreign("q", vec![])).contains("unknown format \"q\""));
    let child = Box::into_raw(Box::new(foreign("i", vec![])));
    assert!(import_error(foreign("i", vec![child])).contains("expected no children"));
    assert!(import_error(foreign("+l", vec![])).contains("expected one child"));
    assert!(import_error(foreign("d:90,2", vec![])).contains("Decimal"));
    assert!(import_error(foreign("tsx:UTC", vec![])).contains("unknown time unit"));
    assert!(import_error(foreign("+ud:1,x", vec![])).contains("expected a number"));
    let mut negative = foreign("+s", vec![]);
    negative.n_children = -3;
    assert!(import_error(negative).contains("-3 children"));
    let mut null_format = foreign("i", vec![]);
    null_format.format = ptr::null();
    assert!(import_error(null_format).contains("the format is null"));
    // A child deep inside names its path.
    let mut leaf = foreign("?", vec![]);
    leaf.name = leaked("leaf");
    let mut middle = foreign("+s", vec![Box::into_raw(Box::new(leaf))]);
    middle.name = leaked("middle");
    let message = import_error(foreign("+s", vec![Box::into_raw(Box::new(middle))]));
    assert!(message.contains("middle.leaf"), "{message}");
}

#[test]
fn malformed_metadata_is_an_error() {
    let mut schema = foreign("i", vec![]);
    let bytes: &'static [u8] = Box::leak(Box::new((-1i32).to_ne_bytes()));
    schema.metadata = bytes.as_ptr().cast();
    assert!(import_error(schema).contains("metadata count of -1"));
    let mut schema = foreign("i", vec![]);
    let mut encoded = 1i32.to_ne_bytes().to_vec();
    encoded.extend(2i32.to_ne_bytes());
    encoded.extend([0xff, 0xfe]);
    encoded.extend(0i32.to_ne_bytes());
    schema.metadata = Box::leak(encoded.into_boxed_slice()).as_ptr().cast();
    assert!(import_error(schema).contains("not UTF-8"));
}

#[test]
fn nesting_past_the_limit_is_refused() {
    let mut schema = foreign("i", vec![]);
    for _ in 0..MAX_IMPORT_DEPTH + 5 {
        // Only the outermost release is the importer's to call; the test leaks the rest.
        let mut inner = schema;
        inner.release = None;
        schema = foreign("+l", vec![Box::into_raw(Box::new(inner))]);
    }
    assert!(import_error(schema).contains("nested deeper than"));
}

#[test]
fn released_and_null_schemas_are_errors() {
    let mut released = ArrowSchema::empty();
    // SAFETY: a valid, released schema.
    assert!(unsafe { import_field(&mut released) }.is_err());
    // SAFETY: null is checked before anything is read.
    assert!(unsafe { import_field(ptr::null_mut()) }.is_err());
}

#[test]
fn an_unconsumed_export_frees_itself() {
    let field = Field::new(
        "s",
        "Struct(a: List(item: Int8), b: Dictionary(Int8, Utf8))"
            .parse()
            .unwrap(),
        true,
    );
    let exported = ArrowSchema::try_export(&field).unwrap();
    assert_eq!(exported.n_children, 2);
    drop(exported); // releases the children and dictionary too (leaks show under valgrind)
}

#[test]
fn a_moved_child_is_left_to_its_new_owner() {
    let field = Field::new("s", "Struct(a: Int8, b: Utf8)".parse().unwrap(), false);
    let exported = ArrowSchema::try_export(&field).unwrap();
    // The consumer moves child 1 out (copies it and marks the original released).
    // SAFETY: two valid child pointers.
    let child = unsafe { &mut **exported.children.add(1) };
    let mut moved = ArrowSchema::empty();
    std::mem::swap(&mut moved, child);
    drop(exported);
    // SAFETY: the moved child is a valid, unreleased export of its own.
    let b = unsafe { import_field(&mut moved) }.unwrap();
    assert_eq!(b.name(), "b");
}
