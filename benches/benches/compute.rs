//! Compute kernels: comparison, boolean logic, arithmetic, aggregates, sorts, string
//! kernels and conditionals on 4 Mi rows, through alkaid-compute and through arrow-ord,
//! arrow-arith, arrow-string and arrow-select 60 on the same memory
//! (each input is built once and handed to arrow-rs by alkaid-arrow without a copy), each
//! with and without nulls; and the memory bound of the simple ones.

use std::hint::black_box;
use std::sync::Arc;

use alkaid_array::{ArrayRef, Scalar};
use alkaid_arrow::arrow60::array_to_arrow;
use alkaid_benches::VersusGroup;
use alkaid_benches::compute_inputs::{ROWS, inputs};
use alkaid_benches::export;
use arrow_array::cast::AsArray;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn compute(c: &mut Criterion) {
    let ours = inputs();
    export_inputs(&ours);
    let theirs: Vec<(&str, arrow_array::ArrayRef)> = ours
        .iter()
        .map(|(name, array)| (*name, array_to_arrow(array.as_ref())))
        .collect();
    let our = |name: &str| -> &ArrayRef { &ours.iter().find(|(n, _)| *n == name).expect(name).1 };
    let their = |name: &str| -> &arrow_array::ArrayRef {
        &theirs.iter().find(|(n, _)| *n == name).expect(name).1
    };
    let their_scalar = |array: &arrow_array::ArrayRef| arrow_array::Scalar::new(array.slice(17, 1));

    let mut group = VersusGroup::new(c, "cmp");
    for suffix in ["", "_nulls"] {
        let i32s = format!("i32{suffix}");
        let (a, b) = (our(&i32s), their(&i32s));
        let (s, t) = (
            Scalar::from(0i32),
            arrow_array::Scalar::new(arrow_array::Int32Array::from(vec![0])),
        );
        group.versus(
            &format!("i32_gt_scalar{suffix}"),
            || alkaid_compute::gt(a, &s).unwrap(),
            || arrow_ord::cmp::gt(b, &t).unwrap(),
        );
        let i64s = format!("i64{suffix}");
        let (a2, b2) = (
            our(&format!("i64b{suffix}")),
            their(&format!("i64b{suffix}")),
        );
        let (a, b) = (our(&i64s), their(&i64s));
        group.versus(
            &format!("i64_lt_array{suffix}"),
            || alkaid_compute::lt(a, a2).unwrap(),
            || arrow_ord::cmp::lt(b, b2).unwrap(),
        );
        let f64s = format!("f64{suffix}");
        let (a, b) = (our(&f64s), their(&f64s));
        let (s, t) = (Scalar::from_array(a.as_ref(), 17), their_scalar(b));
        group.versus(
            &format!("f64_eq_scalar{suffix}"),
            || alkaid_compute::eq(a, &s).unwrap(),
            || arrow_ord::cmp::eq(b, &t).unwrap(),
        );
        for kind in ["utf8", "utf8view", "dictionary"] {
            let name = format!("{kind}{suffix}");
            let (a, b) = (our(&name), their(&name));
            let (s, t) = (
                Scalar::from("word 1234"),
                arrow_array::Scalar::new(arrow_array::StringArray::from(vec!["word 1234"])),
            );
            let t_view =
                arrow_array::Scalar::new(arrow_array::StringViewArray::from(vec!["word 1234"]));
            match kind {
                "utf8view" => group.versus(
                    &format!("{kind}_eq_scalar{suffix}"),
                    || alkaid_compute::eq(a, &s).unwrap(),
                    || arrow_ord::cmp::eq(b, &t_view).unwrap(),
                ),
                _ => group.versus(
                    &format!("{kind}_eq_scalar{suffix}"),
                    || alkaid_compute::eq(a, &s).unwrap(),
                    || arrow_ord::cmp::eq(b, &t).unwrap(),
                ),
            }
        }
        let name = format!("utf8{suffix}");
        let (a, b) = (our(&name), their(&name));
        let (a2, b2) = (
            our(&format!("utf8b{suffix}")),
            their(&format!("utf8b{suffix}")),
        );
        group.versus(
            &format!("utf8_lt_array{suffix}"),
            || alkaid_compute::lt(a, a2).unwrap(),
            || arrow_ord::cmp::lt(b, b2).unwrap(),
        );
        let name = format!("decimal128{suffix}");
        let (a, b) = (our(&name), their(&name));
        let (s, t) = (Scalar::from_array(a.as_ref(), 17), their_scalar(b));
        group.versus(
            &format!("decimal128_gt_scalar{suffix}"),
            || alkaid_compute::gt(a, &s).unwrap(),
            || arrow_ord::cmp::gt(b, &t).unwrap(),
        );
    }
    let (a, b) = (our("i32_nulls"), their("i32_nulls"));
    group.versus(
        "is_null",
        || alkaid_compute::is_null(a.as_ref()).unwrap(),
        || arrow_arith::boolean::is_null(b.as_ref()).unwrap(),
    );
    group.finish();

    let mut group = VersusGroup::new(c, "boolean");
    for suffix in ["", "_nulls"] {
        let (a, b) = (
            our(&format!("bool{suffix}")),
            their(&format!("bool{suffix}")),
        );
        let (a2, b2) = (
            our(&format!("boolb{suffix}")),
            their(&format!("boolb{suffix}")),
        );
        let (b, b2) = (b.as_boolean(), b2.as_boolean());
        group.versus(
            &format!("and{suffix}"),
            || alkaid_compute::and(a, a2).unwrap(),
            || arrow_arith::boolean::and(b, b2).unwrap(),
        );
        group.versus(
            &format!("or_kleene{suffix}"),
            || alkaid_compute::or_kleene(a, a2).unwrap(),
            || arrow_arith::boolean::or_kleene(b, b2).unwrap(),
        );
        group.versus(
            &format!("not{suffix}"),
            || alkaid_compute::not(a.as_ref()).unwrap(),
            || arrow_arith::boolean::not(b).unwrap(),
        );
    }
    group.finish();

    let mut group = VersusGroup::new(c, "arith");
    for suffix in ["", "_nulls"] {
        let (a, b) = (our(&format!("i64{suffix}")), their(&format!("i64{suffix}")));
        let (a2, b2) = (
            our(&format!("i64b{suffix}")),
            their(&format!("i64b{suffix}")),
        );
        group.versus(
            &format!("i64_add{suffix}"),
            || alkaid_compute::add(a, a2).unwrap(),
            || arrow_arith::numeric::add(b, b2).unwrap(),
        );
        group.versus(
            &format!("i64_add_wrapping{suffix}"),
            || alkaid_compute::add_wrapping(a, a2).unwrap(),
            || arrow_arith::numeric::add_wrapping(b, b2).unwrap(),
        );
        let (s, t) = (
            Scalar::from(7i64),
            arrow_array::Scalar::new(arrow_array::Int64Array::from(vec![7])),
        );
        group.versus(
            &format!("i64_div_scalar{suffix}"),
            || alkaid_compute::div(a, &s).unwrap(),
            || arrow_arith::numeric::div(b, &t).unwrap(),
        );
        let (a, b) = (our(&format!("i32{suffix}")), their(&format!("i32{suffix}")));
        let (s, t) = (
            Scalar::from(3i32),
            arrow_array::Scalar::new(arrow_array::Int32Array::from(vec![3])),
        );
        group.versus(
            &format!("i32_mul_scalar{suffix}"),
            || alkaid_compute::mul_wrapping(a, &s).unwrap(),
            || arrow_arith::numeric::mul_wrapping(b, &t).unwrap(),
        );
        let (a, b) = (our(&format!("f64{suffix}")), their(&format!("f64{suffix}")));
        group.versus(
            &format!("f64_mul{suffix}"),
            || alkaid_compute::mul(a, a).unwrap(),
            || arrow_arith::numeric::mul(b, b).unwrap(),
        );
        let (a, b) = (
            our(&format!("decimal128{suffix}")),
            their(&format!("decimal128{suffix}")),
        );
        group.versus(
            &format!("decimal128_add{suffix}"),
            || alkaid_compute::add(a, a).unwrap(),
            || arrow_arith::numeric::add(b, b).unwrap(),
        );
    }
    group.finish();

    let mut group = VersusGroup::new(c, "aggregate");
    for suffix in ["", "_nulls"] {
        let (a, b) = (our(&format!("f64{suffix}")), their(&format!("f64{suffix}")));
        let b = b.as_primitive::<arrow_array::types::Float64Type>();
        group.versus(
            &format!("f64_sum{suffix}"),
            || alkaid_compute::sum(a.as_ref()).unwrap(),
            || arrow_arith::aggregate::sum(b),
        );
        group.versus(
            &format!("f64_max{suffix}"),
            || alkaid_compute::max(a.as_ref()).unwrap(),
            || arrow_arith::aggregate::max(b),
        );
        let (a, b) = (our(&format!("i64{suffix}")), their(&format!("i64{suffix}")));
        let b = b.as_primitive::<arrow_array::types::Int64Type>();
        group.versus(
            &format!("i64_sum{suffix}"),
            || alkaid_compute::sum(a.as_ref()).unwrap(),
            || arrow_arith::aggregate::sum_checked(b).unwrap(),
        );
        group.versus(
            &format!("i64_min{suffix}"),
            || alkaid_compute::min(a.as_ref()).unwrap(),
            || arrow_arith::aggregate::min(b),
        );
        let (a, b) = (our(&format!("i32{suffix}")), their(&format!("i32{suffix}")));
        let b = b.as_primitive::<arrow_array::types::Int32Type>();
        // Both checked: arrow-rs's unchecked `sum` wraps around in `i32`, another operation.
        group.versus(
            &format!("i32_sum{suffix}"),
            || alkaid_compute::sum(a.as_ref()).unwrap(),
            || arrow_arith::aggregate::sum_checked(b).unwrap(),
        );
        let (a, b) = (
            our(&format!("utf8{suffix}")),
            their(&format!("utf8{suffix}")),
        );
        let b = b.as_string::<i32>();
        group.versus(
            &format!("utf8_max{suffix}"),
            || alkaid_compute::max(a.as_ref()).unwrap(),
            || arrow_arith::aggregate::max_string(b).map(str::len),
        );
        let (a, b) = (
            our(&format!("bool_late{suffix}")),
            their(&format!("bool_late{suffix}")),
        );
        let b = b.as_boolean();
        group.versus(
            &format!("bool_any{suffix}"),
            || alkaid_compute::any(a.as_ref()).unwrap(),
            || arrow_arith::aggregate::bool_or(b),
        );
    }
    group.finish();

    // Sorts (issue 29): both ascending with nulls last. Alkaid's are stable, arrow-ord's
    // are not (it sorts (row, value) pairs by value with an unstable sort).
    let mut group = VersusGroup::new(c, "sort");
    let options = alkaid_compute::sort::SortOptions::ASCENDING;
    let arrow_sort = arrow_schema::SortOptions {
        descending: false,
        nulls_first: false,
    };
    let arrow_options = Some(arrow_sort);
    for suffix in ["", "_nulls"] {
        for kind in ["i64", "f64", "utf8"] {
            let name = format!("{kind}{suffix}");
            let (a, b) = (our(&name), their(&name));
            group.versus(
                &format!("{kind}_sort{suffix}"),
                || alkaid_compute::sort::sort_to_indices(a.as_ref(), options, None).unwrap(),
                || arrow_ord::sort::sort_to_indices(b, arrow_options, None).unwrap(),
            );
            group.versus(
                &format!("{kind}_top10{suffix}"),
                || alkaid_compute::sort::sort_to_indices(a.as_ref(), options, Some(10)).unwrap(),
                || arrow_ord::sort::sort_to_indices(b, arrow_options, Some(10)).unwrap(),
            );
        }
        let (text, numbers) = (our(&format!("utf8{suffix}")), our(&format!("i64{suffix}")));
        let ours = [
            alkaid_compute::sort::SortColumn {
                values: text.as_ref(),
                options,
            },
            alkaid_compute::sort::SortColumn {
                values: numbers.as_ref(),
                options,
            },
        ];
        let theirs = [
            arrow_ord::sort::SortColumn {
                values: Arc::clone(their(&format!("utf8{suffix}"))),
                options: arrow_options,
            },
            arrow_ord::sort::SortColumn {
                values: Arc::clone(their(&format!("i64{suffix}"))),
                options: arrow_options,
            },
        ];
        // The row format: three columns encoded, against arrow-row.
        let three = [
            our(&format!("utf8{suffix}")),
            our(&format!("i64{suffix}")),
            our(&format!("f64{suffix}")),
        ];
        let converter = alkaid_compute::row::RowConverter::new(
            three
                .iter()
                .map(|c| alkaid_compute::row::SortField::new(c.data_type().clone(), options))
                .collect(),
        )
        .unwrap();
        let three_refs: Vec<&dyn alkaid_array::Array> = three.iter().map(|c| c.as_ref()).collect();
        let three_theirs: Vec<arrow_array::ArrayRef> =
            three.iter().map(|c| array_to_arrow(c.as_ref())).collect();
        let their_converter = arrow_row::RowConverter::new(
            three_theirs
                .iter()
                .map(|c| arrow_row::SortField::new_with_options(c.data_type().clone(), arrow_sort))
                .collect(),
        )
        .unwrap();
        group.versus(
            &format!("row_encode_utf8_i64_f64{suffix}"),
            || converter.convert_columns(&three_refs).unwrap(),
            || their_converter.convert_columns(&three_theirs).unwrap(),
        );
        group.versus(
            &format!("lexsort_utf8_i64{suffix}"),
            || alkaid_compute::sort::lexsort_to_indices(&ours, None).unwrap(),
            || arrow_ord::sort::lexsort_to_indices(&theirs, None).unwrap(),
        );
    }
    group.finish();

    // String kernels (issue 29) against arrow-string, with a scalar pattern.
    let mut group = VersusGroup::new(c, "string");
    for suffix in ["", "_nulls"] {
        for kind in ["utf8", "utf8view"] {
            let name = format!("{kind}{suffix}");
            let (a, b) = (our(&name), their(&name));
            let text = |s: &str| -> arrow_array::ArrayRef {
                match kind {
                    "utf8view" => Arc::new(arrow_array::StringViewArray::from(vec![s])),
                    _ => Arc::new(arrow_array::StringArray::from(vec![s])),
                }
            };
            let contains = arrow_array::Scalar::new(text("%d 12%"));
            group.versus(
                &format!("{kind}_like_contains{suffix}"),
                || alkaid_compute::like(a.as_ref(), "%d 12%").unwrap(),
                || arrow_string::like::like(b, &contains).unwrap(),
            );
            let prefix = arrow_array::Scalar::new(text("word 1"));
            group.versus(
                &format!("{kind}_starts_with{suffix}"),
                || alkaid_compute::starts_with(a.as_ref(), "word 1").unwrap(),
                || arrow_string::like::starts_with(b, &prefix).unwrap(),
            );
            let underscore = arrow_array::Scalar::new(text("word _2%"));
            group.versus(
                &format!("{kind}_like_general{suffix}"),
                || alkaid_compute::like(a.as_ref(), "word _2%").unwrap(),
                || arrow_string::like::like(b, &underscore).unwrap(),
            );
        }
        let (a, b) = (
            our(&format!("utf8{suffix}")),
            their(&format!("utf8{suffix}")),
        );
        let b = b.as_string::<i32>();
        group.versus(
            &format!("utf8_substring{suffix}"),
            || alkaid_compute::substring(a.as_ref(), 2, Some(3)).unwrap(),
            || arrow_string::substring::substring_by_char(b, 2, Some(3)).unwrap(),
        );
        group.versus(
            &format!("utf8_octet_length{suffix}"),
            || alkaid_compute::octet_length(a.as_ref()).unwrap(),
            || arrow_string::length::length(b).unwrap(),
        );
    }
    group.finish();

    // Casts (issue 29), strict in Alkaid and not safe in arrow-cast (both fail on a bad
    // value; none of these inputs has one).
    let mut group = VersusGroup::new(c, "cast");
    let strict = alkaid_compute::CastOptions::STRICT;
    let unsafe_arrow = arrow_cast::CastOptions {
        safe: false,
        ..Default::default()
    };
    let (numbers, numbers_theirs) = (our("i64_nulls"), their("i64_nulls"));
    let digits =
        alkaid_compute::cast(numbers.as_ref(), &alkaid_schema::DataType::Utf8, strict).unwrap();
    let digits_theirs = array_to_arrow(digits.as_ref());
    let stamps: ArrayRef = Arc::new(alkaid_array::StringArray::from_iter((0..ROWS as i64).map(
        |i| {
            let seconds = 1_600_000_000 + i * 7919;
            let (days, rest) = (seconds / 86_400, seconds % 86_400);
            let (year, day) = (2020 + days / 365 % 10, days % 365);
            Some(format!(
                "{year}-{:02}-{:02}T{:02}:{:02}:{:02}",
                1 + day / 31 % 12,
                1 + day % 28,
                rest / 3600,
                rest / 60 % 60,
                rest % 60
            ))
        },
    )));
    let stamps_theirs = array_to_arrow(stamps.as_ref());
    let (dictionary, dictionary_theirs) = (our("dictionary"), their("dictionary"));
    let rows: [(
        &str,
        &ArrayRef,
        &arrow_array::ArrayRef,
        alkaid_schema::DataType,
    ); 5] = [
        (
            "i64_to_f64",
            numbers,
            numbers_theirs,
            alkaid_schema::DataType::Float64,
        ),
        (
            "i64_to_utf8",
            numbers,
            numbers_theirs,
            alkaid_schema::DataType::Utf8,
        ),
        (
            "utf8_to_i64",
            &digits,
            &digits_theirs,
            alkaid_schema::DataType::Int64,
        ),
        (
            "utf8_to_timestamp",
            &stamps,
            &stamps_theirs,
            alkaid_schema::DataType::Timestamp(alkaid_schema::TimeUnit::Microsecond, None),
        ),
        (
            "dictionary_to_utf8",
            dictionary,
            dictionary_theirs,
            alkaid_schema::DataType::Utf8,
        ),
    ];
    for (name, a, b, to) in rows {
        let to_theirs = alkaid_arrow::arrow60::data_type_to_arrow(&to);
        group.versus(
            name,
            || alkaid_compute::cast(a.as_ref(), &to, strict).unwrap(),
            || arrow_cast::cast_with_options(b, &to_theirs, &unsafe_arrow).unwrap(),
        );
    }
    group.finish();

    // Conditionals: `if_else` beside arrow-select's `zip` (a mask without nulls, where the
    // two agree; with nulls `if_else` gives null and `zip` the false branch), `nullif`
    // beside arrow-select's.
    let mut group = VersusGroup::new(c, "conditional");
    let (mask, mask_theirs) = (our("bool"), their("bool").as_boolean().clone());
    let mask_ours = mask
        .as_any()
        .downcast_ref::<alkaid_array::BooleanArray>()
        .unwrap();
    for (kind, other) in [
        ("i32", "i32_nulls"),
        ("f64", "f64_nulls"),
        ("utf8", "utf8b"),
        ("utf8view", "utf8view_nulls"),
    ] {
        let (a, b) = (our(kind), our(other));
        let (ta, tb) = (their(kind), their(other));
        group.versus(
            &format!("{kind}_if_else"),
            || alkaid_compute::if_else(mask, a, b).unwrap(),
            || arrow_select::zip::zip(&mask_theirs, ta, tb).unwrap(),
        );
    }
    let (a, ta) = (our("i32"), their("i32"));
    let (s, ts) = (
        Scalar::from(0i32),
        arrow_array::Scalar::new(arrow_array::Int32Array::from(vec![0])),
    );
    group.versus(
        "i32_if_else_scalar",
        || alkaid_compute::if_else(mask, a, &s).unwrap(),
        || arrow_select::zip::zip(&mask_theirs, ta, &ts).unwrap(),
    );
    // Bitwise and text joins, beside arrow-arith's and arrow-string's kernels.
    let (a, b) = (our("i64_nulls"), our("i64b_nulls"));
    let (ta, tb) = (their("i64_nulls"), their("i64b_nulls"));
    group.versus(
        "i64_bit_and",
        || alkaid_compute::bit_and(a, b).unwrap(),
        || {
            arrow_arith::bitwise::bitwise_and(
                ta.as_primitive::<arrow_array::types::Int64Type>(),
                tb.as_primitive::<arrow_array::types::Int64Type>(),
            )
            .unwrap()
        },
    );
    let (a, ta) = (our("i32"), their("i32"));
    group.versus(
        "i32_shift_left_scalar",
        || alkaid_compute::shift_left(a, &Scalar::from(3i32)).unwrap(),
        || {
            arrow_arith::bitwise::bitwise_shift_left_scalar(
                ta.as_primitive::<arrow_array::types::Int32Type>(),
                3,
            )
            .unwrap()
        },
    );
    let (a, b) = (our("utf8_nulls"), our("utf8b_nulls"));
    let (ta, tb) = (their("utf8_nulls"), their("utf8b_nulls"));
    group.versus(
        "utf8_concat_elements",
        || alkaid_compute::string::concat_elements(&[a.as_ref(), b.as_ref()]).unwrap(),
        || {
            arrow_string::concat_elements::concat_elements_utf8(
                ta.as_string::<i32>(),
                tb.as_string::<i32>(),
            )
            .unwrap()
        },
    );
    // Fields of timestamps (the i64 column's bytes as microseconds), without a zone and at
    // a fixed offset, beside arrow-arith's `date_part` (named zones need arrow-array's
    // chrono-tz feature, which this crate's arrow-rs is built without).
    for (label, zone) in [("utc", None), ("offset", Some("+05:30"))] {
        let stamps = {
            let data = our("i64_nulls").to_data();
            let data_type = alkaid_schema::DataType::Timestamp(
                alkaid_schema::TimeUnit::Microsecond,
                zone.map(Into::into),
            );
            let data = alkaid_data::ArrayData::builder(data_type)
                .len(data.len())
                .offset(data.offset())
                .nulls(data.nulls().cloned())
                .buffers(data.buffers().to_vec())
                .build()
                .unwrap();
            alkaid_array::make_array(data)
        };
        let theirs_stamps = array_to_arrow(stamps.as_ref());
        for (part, ours_part, theirs_part) in [
            (
                "hour",
                alkaid_compute::DatePart::Hour,
                arrow_arith::temporal::DatePart::Hour,
            ),
            (
                "day",
                alkaid_compute::DatePart::Day,
                arrow_arith::temporal::DatePart::Day,
            ),
            (
                "year",
                alkaid_compute::DatePart::Year,
                arrow_arith::temporal::DatePart::Year,
            ),
            (
                "minute",
                alkaid_compute::DatePart::Minute,
                arrow_arith::temporal::DatePart::Minute,
            ),
        ] {
            group.versus(
                &format!("timestamp_{label}_{part}"),
                || alkaid_compute::extract(stamps.as_ref(), ours_part).unwrap(),
                || arrow_arith::temporal::date_part(theirs_stamps.as_ref(), theirs_part).unwrap(),
            );
        }
    }
    let (a, ta) = (our("i32_nulls"), their("i32_nulls"));
    group.versus(
        "i32_nullif",
        || alkaid_compute::nullif(a.as_ref(), mask_ours).unwrap(),
        || arrow_select::nullif::nullif(ta.as_ref(), &mask_theirs).unwrap(),
    );
    group.finish();

    // Alkaid alone: grouped aggregates and hashing have no arrow-rs kernel to compare with.
    let mut group = c.benchmark_group("compute_alone");
    let groups: Vec<u32> = (0..ROWS as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 1024)
        .collect();
    let a = our("f64_nulls");
    group.bench_function(BenchmarkId::new("alone", "f64_sum_grouped_1024"), |bench| {
        bench.iter(|| {
            alkaid_compute::Aggregate::Sum
                .evaluate_grouped(a.as_ref(), &groups, 1024, None)
                .unwrap()
        })
    });
    let (i, s) = (our("i64"), our("utf8"));
    group.bench_function(BenchmarkId::new("alone", "hash_i64_utf8"), |bench| {
        bench.iter(|| alkaid_compute::hash_rows(&[i.as_ref(), s.as_ref()], 42).unwrap())
    });
    let u = our("utf8");
    group.bench_function(BenchmarkId::new("alone", "utf8_lower"), |bench| {
        bench.iter(|| alkaid_compute::lower(u.as_ref()).unwrap())
    });
    group.bench_function(BenchmarkId::new("alone", "utf8_upper"), |bench| {
        bench.iter(|| alkaid_compute::upper(u.as_ref()).unwrap())
    });
    // Conditionals and membership arrow-rs has no kernel for.
    let (a, b) = (our("i32_nulls"), our("i32"));
    group.bench_function(BenchmarkId::new("alone", "i32_coalesce"), |bench| {
        bench.iter(|| alkaid_compute::coalesce(&[a, b]).unwrap())
    });
    group.bench_function(BenchmarkId::new("alone", "i32_fill_null_scalar"), |bench| {
        bench.iter(|| alkaid_compute::fill_null(a.as_ref(), &Scalar::from(0i32)).unwrap())
    });
    group.bench_function(
        BenchmarkId::new("alone", "i32_fill_null_forward"),
        |bench| bench.iter(|| alkaid_compute::fill_null_forward(a.as_ref()).unwrap()),
    );
    let wanted: Vec<i64> = (0..100).map(|i| i * 7919).collect();
    let set = alkaid_compute::ValueSet::new(&alkaid_array::Int64Array::from(wanted)).unwrap();
    let i = our("i64_nulls");
    group.bench_function(BenchmarkId::new("alone", "i64_is_in_100"), |bench| {
        bench.iter(|| alkaid_compute::is_in(i.as_ref(), &set).unwrap())
    });
    let words: Vec<String> = (0..100).map(|i| format!("word {i}")).collect();
    let set = alkaid_compute::ValueSet::new(&alkaid_array::StringArray::from(words)).unwrap();
    let u = our("utf8_nulls");
    group.bench_function(BenchmarkId::new("alone", "utf8_is_in_100"), |bench| {
        bench.iter(|| alkaid_compute::is_in(u.as_ref(), &set).unwrap())
    });
    // Math, text edits and statistics arrow-rs has no kernel for.
    let f = our("f64_nulls");
    group.bench_function(BenchmarkId::new("alone", "f64_sqrt"), |bench| {
        bench.iter(|| alkaid_compute::sqrt(f.as_ref()).unwrap())
    });
    group.bench_function(BenchmarkId::new("alone", "f64_round_2"), |bench| {
        bench.iter(|| {
            alkaid_compute::round(f.as_ref(), 2, alkaid_compute::RoundMode::HalfEven).unwrap()
        })
    });
    let d128 = our("decimal128_nulls");
    group.bench_function(BenchmarkId::new("alone", "decimal128_round_0"), |bench| {
        bench.iter(|| {
            alkaid_compute::round(d128.as_ref(), 0, alkaid_compute::RoundMode::HalfEven).unwrap()
        })
    });
    let u = our("utf8_nulls");
    group.bench_function(BenchmarkId::new("alone", "utf8_replace"), |bench| {
        bench.iter(|| alkaid_compute::string::replace(u.as_ref(), "word", "w").unwrap())
    });
    group.bench_function(BenchmarkId::new("alone", "utf8_lpad_12"), |bench| {
        bench.iter(|| alkaid_compute::string::lpad(u.as_ref(), 12, " ").unwrap())
    });
    group.bench_function(BenchmarkId::new("alone", "f64_variance"), |bench| {
        bench.iter(|| {
            alkaid_compute::Aggregate::VarianceSample
                .evaluate(f.as_ref())
                .unwrap()
        })
    });
    group.bench_function(BenchmarkId::new("alone", "f64_median"), |bench| {
        bench.iter(|| {
            alkaid_compute::Aggregate::Median
                .evaluate(f.as_ref())
                .unwrap()
        })
    });
    let i = our("i64_nulls");
    group.bench_function(
        BenchmarkId::new("alone", "i64_approx_count_distinct"),
        |bench| {
            bench.iter(|| {
                alkaid_compute::Aggregate::ApproxCountDistinct
                    .evaluate(i.as_ref())
                    .unwrap()
            })
        },
    );
    let d = our("dictionary");
    group.bench_function(
        BenchmarkId::new("alone", "dictionary_count_distinct"),
        |bench| bench.iter(|| alkaid_compute::count_distinct(d.as_ref()).unwrap()),
    );
    group.finish();

    // The memory bounds: a copy of the bytes each simple kernel must read and write, into
    // memory allocated once.
    let mut group = c.benchmark_group("compute_bound");
    let bound = |group: &mut criterion::BenchmarkGroup<'_, _>, name: &str, bytes: usize| {
        let source = vec![1u8; bytes];
        let mut target = vec![0u8; bytes];
        group.bench_function(BenchmarkId::new("memcpy", name), |bench| {
            bench.iter(|| target.copy_from_slice(black_box(&source)))
        });
        // The same copy into memory allocated for it, as a kernel's result is: with the
        // system allocator, 32 MiB and more comes fresh from the kernel on every call
        // (glibc's mmap threshold stops growing there), so its pages fault in as written.
        group.bench_function(BenchmarkId::new("memcpy_fresh", name), |bench| {
            bench.iter(|| {
                let mut fresh = Vec::with_capacity(bytes);
                fresh.extend_from_slice(black_box(&source));
                fresh
            })
        });
    };
    // A copy of n bytes reads n and writes n, so each bound copies half the traffic of
    // its kernel: gt reads 4 bytes and writes one bit per row; add reads 16 and writes 8;
    // sum reads 8; and reads two bits and writes one.
    bound(&mut group, "i32_gt_scalar", (ROWS * 4 + ROWS / 8) / 2);
    bound(&mut group, "i64_add", ROWS * 24 / 2);
    bound(&mut group, "f64_sum", ROWS * 8 / 2);
    bound(&mut group, "and", ROWS * 3 / 8 / 2);
    // if_else and coalesce read two 4-byte values (and a bit) and write one.
    bound(&mut group, "i32_if_else", (ROWS * 12 + ROWS / 8) / 2);
    // sqrt reads and writes 8 bytes.
    bound(&mut group, "f64_sqrt", ROWS * 16 / 2);
    // is_in reads 8 bytes and writes one bit.
    bound(&mut group, "i64_is_in", (ROWS * 8 + ROWS / 8) / 2);
    // fill_null reads 4 bytes and a bit and writes 4 bytes (forward fill the same, with an
    // index per row in between).
    bound(&mut group, "i32_fill_null", (ROWS * 8 + ROWS / 8) / 2);
    // Rounding a Decimal128 reads and writes 16 bytes.
    bound(&mut group, "decimal128_round", ROWS * 32 / 2);
    // A text edit reads the column (offsets and bytes) and writes about as much; is_in of
    // text reads it and writes a bit per row.
    let text_bytes: usize = our("utf8_nulls")
        .to_data()
        .buffers()
        .iter()
        .map(|b| b.len())
        .sum();
    bound(&mut group, "utf8_unary", text_bytes);
    bound(&mut group, "utf8_is_in", (text_bytes + ROWS / 8) / 2);
    group.finish();
}

/// Writes the inputs for `pyarrow_bench.py`.
fn export_inputs(ours: &[(&'static str, ArrayRef)]) {
    use alkaid_array::RecordBatch;
    use alkaid_schema::{Field, Schema};
    let fields: Vec<Field> = ours
        .iter()
        .map(|(name, column)| Field::new(*name, column.data_type().clone(), true))
        .collect();
    let columns = ours.iter().map(|(_, column)| Arc::clone(column)).collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    export::batch("compute_inputs", &batch);
}

criterion_group! {
    name = benches;
    config = alkaid_benches::criterion();
    targets = compute
}
criterion_main!(benches);
