//! Differential test of the conditional and membership kernels against pyarrow.compute
//! (`if_else`, `coalesce`, `fill_null`, `fill_null_forward`/`_backward`, `is_in`,
//! `index_in`): random inputs as JSON to `pyarrow_conditional.py`, its results back as JSON,
//! row by row. One difference is by design and named below: `is_in`'s nulls.
//!
//! Needs Python with pyarrow, as the other pyarrow differential does.

use crate::common;
use crate::peer_python;
use crate::pyarrow_compute::{cells, pyarrow_results};

use alkaid_array::{Array, ArrayRef, BooleanArray, Int64Array, Scalar, StringArray};
use alkaid_compute::{
    ValueSet, coalesce, fill_null, fill_null_backward, fill_null_forward, if_else, index_in, is_in,
};
use common::Rng;
use serde_json::json;

fn ints(rng: &mut Rng, len: usize) -> Vec<Option<i64>> {
    (0..len)
        .map(|_| (!rng.chance(0.3)).then(|| rng.below(8) as i64 - 2))
        .collect()
}

#[test]
fn conditionals_and_membership_agree_with_pyarrow_compute() {
    let Some(python) = peer_python::python_with("pyarrow.compute") else {
        return;
    };
    let mut rng = Rng::new(0x51);
    let len = 200;
    let words = ["", "a", "ü", "日本", "a longer word than twelve bytes", "b"];
    let cond: Vec<Option<bool>> = (0..len)
        .map(|_| (!rng.chance(0.2)).then(|| rng.chance(0.5)))
        .collect();
    let (a, b, c) = (
        ints(&mut rng, len),
        ints(&mut rng, len),
        ints(&mut rng, len),
    );
    let text: Vec<Option<&str>> = (0..len)
        .map(|_| (!rng.chance(0.3)).then(|| words[rng.below(words.len())]))
        .collect();
    let int_set = vec![0i64, 3, -2, 3];
    let text_set = vec!["ü", "a longer word than twelve bytes", ""];
    let spec = json!({
        "cond": cond, "a": a, "b": b, "c": c, "text": text,
        "int_set": int_set, "text_set": text_set,
    });
    let theirs = pyarrow_results(&python, "pyarrow_conditional", &spec);

    let cond = BooleanArray::from(cond);
    let (a, b, c) = (
        Int64Array::from(a),
        Int64Array::from(b),
        Int64Array::from(c),
    );
    let text = StringArray::from(text);
    let mut ours: Vec<(String, ArrayRef)> = vec![
        ("if_else ints".into(), if_else(&cond, &a, &b).unwrap()),
        (
            "if_else text scalar".into(),
            if_else(&cond, &text, &Scalar::from("-")).unwrap(),
        ),
        ("coalesce ints".into(), coalesce(&[&a, &b, &c]).unwrap()),
        (
            "coalesce text scalar".into(),
            coalesce(&[&text, &Scalar::from("?")]).unwrap(),
        ),
        (
            "fill_null ints".into(),
            fill_null(&a, &Scalar::from(0i64)).unwrap(),
        ),
        (
            "fill_null_forward ints".into(),
            fill_null_forward(&a).unwrap(),
        ),
        (
            "fill_null_backward text".into(),
            fill_null_backward(&text).unwrap(),
        ),
    ];
    let sets: [(&str, ArrayRef, &dyn Array); 4] = [
        (
            "ints",
            std::sync::Arc::new(Int64Array::from(int_set.clone())),
            &a,
        ),
        (
            "ints with null",
            std::sync::Arc::new(Int64Array::from_iter(
                int_set.iter().map(|&v| Some(v)).chain([None]),
            )),
            &a,
        ),
        (
            "text",
            std::sync::Arc::new(StringArray::from(text_set.clone())),
            &text,
        ),
        (
            "text with null",
            std::sync::Arc::new(StringArray::from_iter(
                text_set.iter().map(|&v| Some(v)).chain([None]),
            )),
            &text,
        ),
    ];
    let mut membership = Vec::new();
    for (name, values, probe) in sets {
        let set = ValueSet::new(values.as_ref()).unwrap();
        ours.push((
            format!("index_in {name}"),
            std::sync::Arc::new(index_in(probe, &set).unwrap()),
        ));
        membership.push((name, set.contains_null(), is_in(probe, &set).unwrap()));
    }
    for (name, array) in &ours {
        assert_eq!(
            &cells(array.as_ref()),
            theirs[name].as_array().unwrap(),
            "{name}"
        );
    }
    // `is_in`: where Alkaid answers null (a null row; a value absent from a set that holds
    // a null), pyarrow's `skip_nulls=False` answers true for a null row meeting the set's
    // null and false otherwise. Every other row agrees.
    for (name, set_null, ours) in membership {
        let theirs = theirs[&format!("is_in {name}")].as_array().unwrap();
        let probe_nulls: Vec<bool> = match name.starts_with("ints") {
            true => a.iter().map(|v| v.is_none()).collect(),
            false => text.iter().map(|v| v.is_none()).collect(),
        };
        let mut differences = 0;
        for (i, mine) in cells(&ours).iter().enumerate() {
            if mine.is_null() {
                differences += 1;
                let expected = json!(probe_nulls[i] && set_null);
                assert_eq!(&theirs[i], &expected, "is_in {name}, row {i}");
            } else {
                assert_eq!(&theirs[i], mine, "is_in {name}, row {i}");
            }
        }
        assert!(differences > 0, "is_in {name}: the null rule was exercised");
    }
}
