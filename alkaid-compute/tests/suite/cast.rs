//! Property tests of `cast`: round trips through text against the values themselves, and
//! differential tests against arrow-cast 60 on the same inputs (handed over by
//! alkaid-arrow), safe casts on both sides. Where the two differ on purpose, the test says
//! so: Alkaid trims spaces around numbers in text and rounds decimals half away from zero
//! when it drops digits, and its strict mode (not compared here) is SQL's `CAST`.

use crate::common;
use crate::reference;

use alkaid_array::{Array, ArrayRef, StringArray, make_array};
use alkaid_arrow::arrow60::{array_from_arrow, array_to_arrow, data_type_to_arrow};
use alkaid_compute::cast::{CastOptions, cast};
use alkaid_schema::{DataType, TimeUnit};
use common::Rng;
use common::decode::decode;
use common::encode::encode;
use proptest::prelude::*;
use reference::{R, pooled, read};

/// The types whose values both libraries convert between.
fn numeric_types() -> Vec<DataType> {
    vec![
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Float32,
        DataType::Float64,
        DataType::decimal(128, 20, 3).unwrap(),
        DataType::decimal(64, 12, 0).unwrap(),
        DataType::decimal(256, 50, 10).unwrap(),
    ]
}

/// Values as the reference reads them, NaNs made one.
fn cells(array: &dyn Array) -> Vec<R> {
    let t = array.data_type().clone();
    decode(&array.to_data())
        .iter()
        .map(|v| match read(&t, v) {
            R::Float(x) if x.is_nan() => R::Float(f64::NAN.abs()),
            other => other,
        })
        .collect()
}

fn same(a: &[R], b: &[R]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (R::Float(x), R::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            (x, y) => x == y,
        })
}

fn theirs(array: &dyn Array, to: &DataType) -> Option<ArrayRef> {
    let options = arrow_cast::CastOptions {
        safe: true,
        ..Default::default()
    };
    let cast =
        arrow_cast::cast_with_options(&array_to_arrow(array), &data_type_to_arrow(to), &options)
            .ok()?;
    array_from_arrow(cast.as_ref()).ok()
}

/// The range of an integer type.
fn bounds(data_type: &DataType) -> Option<(i128, i128)> {
    Some(match data_type {
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// `len` decimals within their precision (random bytes mostly are not), a fifth null.
fn decimals(decimal: &alkaid_schema::DecimalType, len: usize, rng: &mut Rng) -> Vec<common::Value> {
    let digits = u32::from(decimal.precision()).min(18);
    let width = match decimal.width() {
        alkaid_schema::DecimalWidth::W32 => 4,
        alkaid_schema::DecimalWidth::W64 => 8,
        alkaid_schema::DecimalWidth::W128 => 16,
        alkaid_schema::DecimalWidth::W256 => 32,
    };
    (0..len)
        .map(|_| {
            if rng.chance(0.2) {
                return common::Value::Null;
            }
            let value = (rng.next_u64() as i64 % 10i64.pow(digits)) >> rng.below(40);
            let fill = if value < 0 { 0xff } else { 0 };
            let mut bytes = vec![fill; width];
            bytes[..8.min(width)].copy_from_slice(&value.to_le_bytes()[..8.min(width)]);
            common::Value::Bytes(bytes)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn numbers_cast_as_arrow_cast_does(seed in any::<u64>(), len in 0usize..50, picks in any::<(usize, usize)>()) {
        let mut rng = Rng::new(seed);
        let types = numeric_types();
        let (from, to) = (&types[picks.0 % types.len()], &types[picks.1 % types.len()]);
        let values = match from {
            DataType::Decimal(d) => decimals(d, len, &mut rng),
            _ => pooled(from, len, &mut rng),
        };
        let input = make_array(encode(from, &values, &mut rng));
        let ours = cast(input.as_ref(), to, CastOptions::SAFE).unwrap();
        let Some(expected) = theirs(input.as_ref(), to) else { return Ok(()) };
        prop_assert_eq!(ours.data_type(), expected.data_type());
        let (a, b) = (cells(ours.as_ref()), cells(expected.as_ref()));
        // Decimals that drop digits round in Alkaid (half away from zero) and may truncate
        // in arrow-rs: those rows may differ by one unit of the last digit.
        let rescaled = matches!((from, to), (DataType::Decimal(f), DataType::Decimal(t)) if t.scale() < f.scale())
            || (matches!(from, DataType::Decimal(_)) && to.is_integer());
        // Decimals to floats: Alkaid rounds correctly (one rounding), arrow-rs divides a
        // rounded float: the two may be one unit in the last place apart.
        let to_float = matches!(from, DataType::Decimal(_)) && to.is_floating();
        // Large floats into decimals: Alkaid scales the float's exact value, arrow-rs
        // rounds the scaled product to a float first: equal to about 15 digits.
        let from_float = from.is_floating() && matches!(to, DataType::Decimal(_));
        for (row, (x, y)) in a.iter().zip(&b).enumerate() {
            if same(std::slice::from_ref(x), std::slice::from_ref(y)) {
                continue;
            }
            let near = match (x, y) {
                (R::Int(p), R::Int(q)) => (p - q).abs() <= 1,
                (R::Wide(p), R::Wide(q)) if from_float => {
                    let (p, q) = (p.to_string().parse::<f64>().unwrap(), q.to_string().parse::<f64>().unwrap());
                    ((p - q) / q).abs() < 1e-15
                }
                (R::Wide(p), R::Wide(q)) => p.checked_sub(*q).is_some_and(|d| d.to_i128().is_some_and(|d| d.abs() <= 1)),
                (R::Float(p), R::Float(q)) => to_float && (p.to_bits() as i64 - q.to_bits() as i64).abs() <= 1,
                // Rounding (not truncating) can carry a value just past the target's range.
                (R::Null, R::Int(q)) => bounds(to).is_some_and(|(low, high)| *q == low || *q == high),
                _ => false,
            };
            prop_assert!((rescaled || to_float || from_float) && near, "{} to {} row {}: {:?} against {:?} (from {:?})", from, to, row, x, y, values[row]);
        }
    }

    #[test]
    fn canonical_text_parses_as_arrow_cast_parses_it(seed in any::<u64>(), len in 0usize..50) {
        let mut rng = Rng::new(seed);
        let text: Vec<Option<String>> = (0..len).map(|_| match rng.below(6) {
            0 => None,
            1 => Some((rng.next_u64() as i64 >> rng.below(60)).to_string()),
            2 => Some(format!("{}", f64::from_bits(rng.next_u64()) )),
            3 => Some(format!("{:04}-{:02}-{:02}", 1900 + rng.below(200), 1 + rng.below(12), 1 + rng.below(28))),
            4 => Some(format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", 1900 + rng.below(200), 1 + rng.below(12), 1 + rng.below(28), rng.below(24), rng.below(60), rng.below(60))),
            _ => Some(["", "x", "1.2.3", "--1", "12ab"][rng.below(5)].to_string()),
        }).collect();
        let input = StringArray::from(text.iter().map(|t| t.as_deref()).collect::<Vec<_>>());
        for to in [DataType::Int64, DataType::Float64, DataType::Date32, DataType::Timestamp(TimeUnit::Second, None)] {
            let ours = cast(&input, &to, CastOptions::SAFE).unwrap();
            let expected = theirs(&input, &to).expect("arrow-cast parses text");
            let (a, b) = (cells(ours.as_ref()), cells(expected.as_ref()));
            for row in 0..len {
                // arrow-cast reads some text Alkaid does not (dates as timestamps' prefixes,
                // floats as dates): compare the rows whose text is canonical for the type.
                let canonical = match (&to, text[row].as_deref()) {
                    (_, None) => true,
                    (DataType::Int64, Some(t)) => t.parse::<i64>().is_ok() || t.parse::<f64>().is_err(),
                    (DataType::Float64, Some(t)) => t.parse::<f64>().is_ok() || t.is_empty() || t == "x",
                    (DataType::Date32, Some(t)) => t.len() == 10 || t == "x",
                    (_, Some(t)) => t.ends_with('Z') || t == "x",
                };
                if canonical {
                    prop_assert!(same(&a[row..=row], &b[row..=row]), "{:?} as {}: {:?} against {:?}", text[row], to, a[row], b[row]);
                }
            }
        }
    }

    #[test]
    fn integers_and_dates_round_trip_through_text(seed in any::<u64>(), len in 0usize..50, pick in 0usize..6) {
        let mut rng = Rng::new(seed);
        let data_type = [DataType::Int8, DataType::Int64, DataType::UInt64, DataType::Date32, DataType::Float64,
            DataType::Timestamp(TimeUnit::Millisecond, Some("+05:30".into()))][pick].clone();
        let values = pooled(&data_type, len, &mut rng);
        let input = make_array(encode(&data_type, &values, &mut rng));
        // Dates and timestamps far outside the years 0000-9999 have no ISO text to parse.
        let in_range = |v: &R| match (v, &data_type) {
            (R::Int(d), DataType::Date32) => d.abs() < 2_900_000,
            (R::Int(t), DataType::Timestamp(..)) => t.abs() < 250_000_000_000_000,
            _ => true,
        };
        let original = cells(input.as_ref());
        let text = cast(input.as_ref(), &DataType::Utf8, CastOptions::STRICT).unwrap();
        let back = cells(cast(text.as_ref(), &data_type, CastOptions::SAFE).unwrap().as_ref());
        // The large and view layouts write the same text.
        for layout in [DataType::LargeUtf8, DataType::Utf8View, DataType::Binary] {
            let other = cast(input.as_ref(), &layout, CastOptions::STRICT).unwrap();
            let again = cast(other.as_ref(), &DataType::Utf8, CastOptions::STRICT).unwrap();
            prop_assert_eq!(cells(again.as_ref()), cells(text.as_ref()), "as {}", layout);
        }
        // And into a dictionary of text and back.
        let keyed = cast(input.as_ref(), &DataType::dictionary(alkaid_schema::IntegerType::Int32, DataType::Utf8View), CastOptions::STRICT).unwrap();
        let keyed_back = cells(cast(keyed.as_ref(), &data_type, CastOptions::SAFE).unwrap().as_ref());
        for row in (0..len).filter(|&r| in_range(&original[r])) {
            prop_assert!(same(&back[row..=row], &original[row..=row]), "{:?} row {}", text, row);
            prop_assert!(same(&keyed_back[row..=row], &original[row..=row]));
        }
    }
}
