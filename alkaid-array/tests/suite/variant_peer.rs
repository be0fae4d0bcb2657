//! Alkaid's Variant encoding against arrow-rs's (`parquet-variant`): random values, nested
//! up to three deep and of every primitive type, encoded by each and read (and, on
//! Alkaid's side, validated whole) by the other, must come back as the same values.

use std::collections::BTreeMap;

use alkaid_array::variant::{FieldNames, MetadataBuilder, ValueEncoder, Variant, VariantMetadata};
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use parquet_variant as peer;
use proptest::prelude::*;

/// A Variant value owned, the plain reference both encodings are compared with.
#[derive(Debug, Clone, PartialEq)]
enum Tree {
    Null,
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Dec4(i32, u8),
    Dec8(i64, u8),
    Dec16(i128, u8),
    Date(i32),
    Micros(i64),
    NtzMicros(i64),
    Nanos(i64),
    NtzNanos(i64),
    Time(i64),
    Binary(Vec<u8>),
    Text(String),
    Uuid([u8; 16]),
    Object(BTreeMap<String, Tree>),
    List(Vec<Tree>),
}

fn leaf() -> impl Strategy<Value = Tree> {
    // Timestamps in microseconds within chrono's years (±262,000); dates likewise.
    let micros = -8_000_000_000_000_000i64..8_000_000_000_000_000;
    prop_oneof![
        Just(Tree::Null),
        any::<bool>().prop_map(Tree::Bool),
        any::<i8>().prop_map(Tree::I8),
        any::<i16>().prop_map(Tree::I16),
        any::<i32>().prop_map(Tree::I32),
        any::<i64>().prop_map(Tree::I64),
        proptest::num::f32::NORMAL.prop_map(Tree::F32),
        proptest::num::f64::NORMAL.prop_map(Tree::F64),
        (-999_999_999i32..=999_999_999, 0u8..=9).prop_map(|(v, s)| Tree::Dec4(v, s)),
        (
            -999_999_999_999_999_999i64..=999_999_999_999_999_999,
            0u8..=18
        )
            .prop_map(|(v, s)| Tree::Dec8(v, s)),
        (-(10i128.pow(38) - 1)..10i128.pow(38), 0u8..=38).prop_map(|(v, s)| Tree::Dec16(v, s)),
        (-90_000_000i32..90_000_000).prop_map(Tree::Date),
        micros.clone().prop_map(Tree::Micros),
        micros.prop_map(Tree::NtzMicros),
        any::<i64>().prop_map(Tree::Nanos),
        any::<i64>().prop_map(Tree::NtzNanos),
        (0i64..86_400_000_000).prop_map(Tree::Time),
        proptest::collection::vec(any::<u8>(), 0..80).prop_map(Tree::Binary),
        // Short strings and long ones (64 bytes and over).
        "[a-zé€😀]{0,70}".prop_map(Tree::Text),
        any::<[u8; 16]>().prop_map(Tree::Uuid),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    leaf().prop_recursive(3, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Tree::List),
            proptest::collection::btree_map("[a-e]{1,2}|key_[0-9]{1,3}", inner, 0..6)
                .prop_map(Tree::Object),
        ]
    })
}

fn write_alkaid(tree: &Tree, into: ValueEncoder<'_>) {
    let primitive = match tree {
        Tree::Null => Variant::Null,
        Tree::Bool(b) => Variant::Boolean(*b),
        Tree::I8(v) => Variant::Int8(*v),
        Tree::I16(v) => Variant::Int16(*v),
        Tree::I32(v) => Variant::Int32(*v),
        Tree::I64(v) => Variant::Int64(*v),
        Tree::F32(v) => Variant::Float(*v),
        Tree::F64(v) => Variant::Double(*v),
        Tree::Dec4(v, s) => Variant::Decimal4(*v, *s),
        Tree::Dec8(v, s) => Variant::Decimal8(*v, *s),
        Tree::Dec16(v, s) => Variant::Decimal16(*v, *s),
        Tree::Date(v) => Variant::Date(*v),
        Tree::Micros(v) => Variant::TimestampMicros(*v),
        Tree::NtzMicros(v) => Variant::TimestampNtzMicros(*v),
        Tree::Nanos(v) => Variant::TimestampNanos(*v),
        Tree::NtzNanos(v) => Variant::TimestampNtzNanos(*v),
        Tree::Time(v) => Variant::Time(*v),
        Tree::Binary(b) => Variant::Binary(b),
        Tree::Text(t) => Variant::String(t),
        Tree::Uuid(u) => Variant::Uuid(*u),
        Tree::Object(fields) => {
            let mut object = into.object();
            for (name, value) in fields {
                write_alkaid(value, object.field(name).unwrap());
            }
            return object.finish().unwrap();
        }
        Tree::List(items) => {
            let mut list = into.list();
            for item in items {
                write_alkaid(item, list.element());
            }
            return list.finish().unwrap();
        }
    };
    into.primitive(primitive).unwrap();
}

fn read_alkaid(value: Variant<'_, '_>) -> Tree {
    match value {
        Variant::Null => Tree::Null,
        Variant::Boolean(b) => Tree::Bool(b),
        Variant::Int8(v) => Tree::I8(v),
        Variant::Int16(v) => Tree::I16(v),
        Variant::Int32(v) => Tree::I32(v),
        Variant::Int64(v) => Tree::I64(v),
        Variant::Float(v) => Tree::F32(v),
        Variant::Double(v) => Tree::F64(v),
        Variant::Decimal4(v, s) => Tree::Dec4(v, s),
        Variant::Decimal8(v, s) => Tree::Dec8(v, s),
        Variant::Decimal16(v, s) => Tree::Dec16(v, s),
        Variant::Date(v) => Tree::Date(v),
        Variant::TimestampMicros(v) => Tree::Micros(v),
        Variant::TimestampNtzMicros(v) => Tree::NtzMicros(v),
        Variant::TimestampNanos(v) => Tree::Nanos(v),
        Variant::TimestampNtzNanos(v) => Tree::NtzNanos(v),
        Variant::Time(v) => Tree::Time(v),
        Variant::Binary(b) => Tree::Binary(b.to_vec()),
        Variant::String(t) => Tree::Text(t.to_string()),
        Variant::Uuid(u) => Tree::Uuid(u),
        Variant::Object(object) => Tree::Object(
            object
                .iter()
                .map(|f| {
                    let (name, value) = f.unwrap();
                    (name.to_string(), read_alkaid(value))
                })
                .collect(),
        ),
        Variant::List(list) => Tree::List(list.iter().map(|v| read_alkaid(v.unwrap())).collect()),
        other => panic!("a type the test does not know: {other:?}"),
    }
}

fn epoch_date(days: i32) -> NaiveDate {
    NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::TimeDelta::days(days.into())
}

fn micros_time(micros: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(micros).unwrap()
}

fn write_peer_value<'a>(tree: &'a Tree) -> Option<peer::Variant<'static, 'a>> {
    let decimal = "the generated decimals fit";
    Some(match tree {
        Tree::Null => peer::Variant::Null,
        Tree::Bool(b) => peer::Variant::from(*b),
        Tree::I8(v) => peer::Variant::Int8(*v),
        Tree::I16(v) => peer::Variant::Int16(*v),
        Tree::I32(v) => peer::Variant::Int32(*v),
        Tree::I64(v) => peer::Variant::Int64(*v),
        Tree::F32(v) => peer::Variant::Float(*v),
        Tree::F64(v) => peer::Variant::Double(*v),
        Tree::Dec4(v, s) => {
            peer::Variant::Decimal4(peer::VariantDecimal4::try_new(*v, *s).expect(decimal))
        }
        Tree::Dec8(v, s) => {
            peer::Variant::Decimal8(peer::VariantDecimal8::try_new(*v, *s).expect(decimal))
        }
        Tree::Dec16(v, s) => {
            peer::Variant::Decimal16(peer::VariantDecimal16::try_new(*v, *s).expect(decimal))
        }
        Tree::Date(v) => peer::Variant::Date(epoch_date(*v)),
        Tree::Micros(v) => peer::Variant::TimestampMicros(micros_time(*v)),
        Tree::NtzMicros(v) => peer::Variant::TimestampNtzMicros(micros_time(*v).naive_utc()),
        Tree::Nanos(v) => peer::Variant::TimestampNanos(DateTime::from_timestamp_nanos(*v)),
        Tree::NtzNanos(v) => {
            peer::Variant::TimestampNtzNanos(DateTime::from_timestamp_nanos(*v).naive_utc())
        }
        Tree::Time(v) => peer::Variant::Time(NaiveTime::MIN + chrono::TimeDelta::microseconds(*v)),
        Tree::Binary(b) => peer::Variant::Binary(b),
        Tree::Text(t) => peer::Variant::from(t.as_str()),
        Tree::Uuid(u) => peer::Variant::Uuid(uuid::Uuid::from_bytes(*u)),
        Tree::Object(_) | Tree::List(_) => return None,
    })
}

/// Writes `tree` through one of arrow-rs's builders (the variant builder, a list's, an
/// object's), each of which `append` stands for.
macro_rules! write_peer {
    ($tree:expr, $builder:expr, |$value:ident| $append:expr, $object:expr, $list:expr) => {
        match $tree {
            Tree::Object(fields) => {
                let mut object = $object;
                for (name, value) in fields {
                    write_peer_field(value, name, &mut object);
                }
                object.finish();
            }
            Tree::List(items) => {
                let mut list = $list;
                for item in items {
                    write_peer_element(item, &mut list);
                }
                list.finish();
            }
            leaf => {
                let $value = write_peer_value(leaf).unwrap();
                $append;
            }
        }
    };
}

fn write_peer_field<S: peer::BuilderSpecificState>(
    tree: &Tree,
    name: &str,
    object: &mut peer::ObjectBuilder<'_, S>,
) {
    write_peer!(
        tree,
        object,
        |value| object.insert(name, value),
        object.new_object(name),
        object.new_list(name)
    );
}

fn write_peer_element<S: peer::BuilderSpecificState>(
    tree: &Tree,
    list: &mut peer::ListBuilder<'_, S>,
) {
    write_peer!(
        tree,
        list,
        |value| list.append_value(value),
        list.new_object(),
        list.new_list()
    );
}

fn days(date: NaiveDate) -> i32 {
    (date - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap()).num_days() as i32
}

fn read_peer(value: &peer::Variant<'_, '_>) -> Tree {
    match value {
        peer::Variant::Null => Tree::Null,
        peer::Variant::BooleanTrue => Tree::Bool(true),
        peer::Variant::BooleanFalse => Tree::Bool(false),
        peer::Variant::Int8(v) => Tree::I8(*v),
        peer::Variant::Int16(v) => Tree::I16(*v),
        peer::Variant::Int32(v) => Tree::I32(*v),
        peer::Variant::Int64(v) => Tree::I64(*v),
        peer::Variant::Float(v) => Tree::F32(*v),
        peer::Variant::Double(v) => Tree::F64(*v),
        peer::Variant::Decimal4(d) => Tree::Dec4(d.integer(), d.scale()),
        peer::Variant::Decimal8(d) => Tree::Dec8(d.integer(), d.scale()),
        peer::Variant::Decimal16(d) => Tree::Dec16(d.integer(), d.scale()),
        peer::Variant::Date(d) => Tree::Date(days(*d)),
        peer::Variant::TimestampMicros(t) => Tree::Micros(t.timestamp_micros()),
        peer::Variant::TimestampNtzMicros(t) => Tree::NtzMicros(t.and_utc().timestamp_micros()),
        peer::Variant::TimestampNanos(t) => Tree::Nanos(t.timestamp_nanos_opt().unwrap()),
        peer::Variant::TimestampNtzNanos(t) => {
            Tree::NtzNanos(t.and_utc().timestamp_nanos_opt().unwrap())
        }
        peer::Variant::Time(t) => Tree::Time((*t - NaiveTime::MIN).num_microseconds().unwrap()),
        peer::Variant::Binary(b) => Tree::Binary(b.to_vec()),
        peer::Variant::String(t) => Tree::Text(t.to_string()),
        peer::Variant::ShortString(t) => Tree::Text(t.as_str().to_string()),
        peer::Variant::Uuid(u) => Tree::Uuid(*u.as_bytes()),
        peer::Variant::Object(object) => Tree::Object(
            object
                .iter()
                .map(|(name, value)| (name.to_string(), read_peer(&value)))
                .collect(),
        ),
        peer::Variant::List(list) => Tree::List(list.iter().map(|v| read_peer(&v)).collect()),
    }
}

fn alkaid_bytes(tree: &Tree) -> (Vec<u8>, Vec<u8>) {
    let mut names = MetadataBuilder::default();
    let mut value = Vec::new();
    write_alkaid(
        tree,
        ValueEncoder::new(&mut names as &mut dyn FieldNames, &mut value),
    );
    (names.finish(), value)
}

fn peer_bytes(tree: &Tree) -> (Vec<u8>, Vec<u8>) {
    let mut builder = peer::VariantBuilder::new();
    match tree {
        Tree::Object(fields) => {
            let mut object = builder.new_object();
            for (name, value) in fields {
                write_peer_field(value, name, &mut object);
            }
            object.finish();
        }
        Tree::List(items) => {
            let mut list = builder.new_list();
            for item in items {
                write_peer_element(item, &mut list);
            }
            list.finish();
        }
        leaf => builder.append_value(write_peer_value(leaf).unwrap()),
    }
    builder.finish()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn alkaid_writes_what_arrow_rs_reads(tree in tree()) {
        let (metadata, value) = alkaid_bytes(&tree);
        let read = peer::Variant::try_new(&metadata, &value).expect("arrow-rs validates it");
        prop_assert_eq!(read_peer(&read), tree);
    }

    #[test]
    fn arrow_rs_writes_what_alkaid_reads_and_validates(tree in tree()) {
        let (metadata, value) = peer_bytes(&tree);
        let metadata = VariantMetadata::try_new(&metadata).expect("Alkaid validates the metadata");
        let read = Variant::try_new(metadata, &value).expect("Alkaid validates the value");
        prop_assert_eq!(read_alkaid(read), tree);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Hostile bytes: a valid value with one byte changed is read (and every part of it
    /// walked) without a panic, and what Alkaid's validation accepts reads to the end
    /// without an error.
    #[test]
    fn changed_bytes_are_refused_or_read_never_a_panic(
        tree in tree(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        in_metadata in any::<bool>(),
    ) {
        let (mut metadata, mut value) = alkaid_bytes(&tree);
        let target = if in_metadata { &mut metadata } else { &mut value };
        let i = at.index(target.len());
        target[i] = byte;
        let ours = VariantMetadata::try_new(&metadata)
            .and_then(|m| Variant::try_new(m, &value));
        if let Ok(read) = ours {
            let _ = alkaid_array::variant::variant_to_json(read).unwrap();
            prop_assert!(read_alkaid_checked(read).is_ok());
        }
        // Alkaid's shallow reads of the same bytes do not panic either.
        if let Ok(m) = VariantMetadata::try_new(&metadata)
            && let Ok(v) = Variant::parse(m, &value)
        {
            let _ = alkaid_array::variant::variant_to_json(v);
        }
    }

    #[test]
    fn random_bytes_never_panic(metadata in proptest::collection::vec(any::<u8>(), 0..24), value in proptest::collection::vec(any::<u8>(), 0..64)) {
        let metadata_bytes = [&[0x01u8, 2, 0, 1, 2, b'a', b'b'][..], &metadata[..]];
        for m in metadata_bytes {
            if let Ok(m) = VariantMetadata::try_new(m) {
                if let Ok(v) = Variant::try_new(m, &value) {
                    let _ = alkaid_array::variant::variant_to_json(v).unwrap();
                }
                if let Ok(v) = Variant::parse(m, &value) {
                    let _ = alkaid_array::variant::variant_to_json(v);
                }
            }
        }
    }
}

/// Every part of a validated value read, as [`read_alkaid`] but returning errors (there
/// must be none).
fn read_alkaid_checked(value: Variant<'_, '_>) -> Result<(), alkaid_array::variant::VariantError> {
    match value {
        Variant::Object(object) => {
            for field in object.iter() {
                read_alkaid_checked(field?.1)?;
            }
        }
        Variant::List(list) => {
            for element in list.iter() {
                read_alkaid_checked(element?)?;
            }
        }
        _ => {}
    }
    Ok(())
}
