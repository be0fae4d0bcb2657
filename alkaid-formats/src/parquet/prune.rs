//! Which row groups, and which pages inside them, may hold a row where a [`Predicate`] is
//! true, from the statistics Parquet keeps: each row group's (in the footer) and each page's
//! (in the page index). What cannot match is never fetched nor decoded; what may match is
//! read and the predicate decides row by row.
//!
//! A statistic is a bound, not a value: arrow-rs's [`StatisticsConverter`] turns the
//! footer's and page index's minima, maxima and null counts into arrays of the column's type,
//! and each comparison with a literal becomes a comparison of those bounds, evaluated with
//! Alkaid's kernels over every row group (or page) at once. An unknown statistic (a null
//! in those arrays, or a column without statistics) keeps the unit; an error of any kind
//! keeps everything, since pruning only ever saves work.
//!
//! Floats: Parquet's minima and maxima leave NaN out, and NaN is the greatest float in
//! Alkaid's order (so `x > 1` holds for a NaN), so a float column's maxima are never used.

use std::sync::Arc;

use alkaid_array::{Array, ArrayRef, BooleanArray, Datum, NullArray, Scalar, UInt64Array};
use alkaid_arrow::arrow60::array_from_arrow;
use alkaid_compute::predicate::{Comparison, Operand, Predicate};
use alkaid_schema::DataType;
use arrow_schema_60::Schema as ArrowSchema;
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::file::metadata::ParquetMetaData;

/// The statistics of one column over a run of units (row groups, or one row group's
/// pages), as Alkaid arrays of one slot per unit (cloned by reference).
#[derive(Clone)]
struct Bounds {
    mins: ArrayRef,
    /// Null for every unit of a float column (see the module's note on NaN).
    maxes: ArrayRef,
    null_counts: ArrayRef,
    row_counts: ArrayRef,
}

/// A predicate's pruning over one file's statistics.
pub(crate) struct Pruning<'a> {
    /// The predicate with every `NOT` pushed down to a comparison, `IS [NOT] NULL` or value.
    predicate: Predicate,
    metadata: &'a ParquetMetaData,
    arrow_schema: &'a ArrowSchema,
}

impl<'a> Pruning<'a> {
    pub fn new(
        predicate: &Predicate,
        metadata: &'a ParquetMetaData,
        arrow_schema: &'a ArrowSchema,
    ) -> Self {
        Self {
            predicate: pushed_down(predicate, false),
            metadata,
            arrow_schema,
        }
    }

    /// Of `row_groups`, those that may hold a matching row.
    pub fn row_groups(&self, row_groups: &[usize]) -> Vec<usize> {
        let groups = self.metadata.row_groups();
        let bounds = |column: &str| -> Option<Bounds> {
            let converter = self.converter(column)?;
            let chosen = || row_groups.iter().map(|&g| &groups[g]);
            Some(Bounds {
                mins: alkaid(converter.row_group_mins(chosen()).ok()?)?,
                maxes: alkaid(converter.row_group_maxes(chosen()).ok()?)?,
                null_counts: alkaid(Arc::new(converter.row_group_null_counts(chosen()).ok()?))?,
                row_counts: alkaid(Arc::new(converter.row_group_row_counts(chosen()).ok()??))?,
            })
        };
        let keep = may_match(&self.predicate, row_groups.len(), &bounds);
        row_groups
            .iter()
            .zip(keep)
            .filter_map(|(&g, keep)| keep.then_some(g))
            .collect()
    }

    /// The rows of `row_groups` (in that order) on pages that may hold a matching row, or
    /// `None` where the page index cannot rule out any page.
    pub fn pages(&self, row_groups: &[usize]) -> Option<RowSelection> {
        let page_index = self.metadata.page_index()?;
        let groups = self.metadata.row_groups();
        let mut selectors = Vec::new();
        let mut pruned_any = false;
        for &g in row_groups {
            let rows = usize::try_from(groups[g].num_rows()).ok()?;
            let selection = self.group_pages(&self.predicate, g, page_index.as_ref());
            match selection {
                Some(selection)
                    if selection.row_count() + selection.skipped_row_count() == rows =>
                {
                    pruned_any |= selection.skipped_row_count() > 0;
                    selectors.extend(selection.iter().copied());
                }
                _ => selectors.push(RowSelector::select(rows)),
            }
        }
        pruned_any.then(|| RowSelection::from(selectors))
    }

    /// The rows of row group `g` on pages where `predicate` may hold, `None` for all.
    fn group_pages(
        &self,
        predicate: &Predicate,
        g: usize,
        page_index: &dyn parquet::file::metadata::page_index::PageIndexProvider,
    ) -> Option<RowSelection> {
        match predicate {
            Predicate::And(left, right) => {
                match (
                    self.group_pages(left, g, page_index),
                    self.group_pages(right, g, page_index),
                ) {
                    (Some(left), Some(right)) => Some(left.intersection(&right)),
                    (one, None) | (None, one) => one,
                }
            }
            Predicate::Or(left, right) => {
                let left = self.group_pages(left, g, page_index)?;
                let right = self.group_pages(right, g, page_index)?;
                Some(left.union(&right))
            }
            leaf => {
                // A leaf reads one column; its pages are that column's.
                let column = leaf.columns().into_iter().next()?;
                let converter = self.converter(&column)?;
                let groups = self.metadata.row_groups();
                let at = [g];
                let bounds = Bounds {
                    mins: alkaid(converter.data_page_mins(page_index, &at).ok()?)?,
                    maxes: alkaid(converter.data_page_maxes(page_index, &at).ok()?)?,
                    null_counts: alkaid(Arc::new(
                        converter.data_page_null_counts(page_index, &at).ok()?,
                    ))?,
                    row_counts: alkaid(Arc::new(
                        converter
                            .data_page_row_counts(page_index, groups, &at)
                            .ok()??,
                    ))?,
                };
                let pages = bounds.row_counts.len();
                let found = |name: &str| (name == column).then(|| bounds.clone());
                let keep = may_match(leaf, pages, &found);
                let counts = bounds.row_counts.as_any().downcast_ref::<UInt64Array>()?;
                let selectors = keep
                    .iter()
                    .zip(counts.iter())
                    .map(|(&keep, rows)| {
                        let rows = usize::try_from(rows.unwrap_or(0)).unwrap_or(usize::MAX);
                        match keep {
                            true => RowSelector::select(rows),
                            false => RowSelector::skip(rows),
                        }
                    })
                    .collect::<Vec<_>>();
                Some(RowSelection::from(selectors))
            }
        }
    }

    fn converter(&self, column: &str) -> Option<StatisticsConverter<'a>> {
        StatisticsConverter::try_new(
            column,
            self.arrow_schema,
            self.metadata.file_metadata().schema_descr(),
        )
        .ok()
    }
}

/// An arrow-rs array of statistics as Alkaid's.
fn alkaid(array: arrow_array_60::ArrayRef) -> Option<ArrayRef> {
    array_from_arrow(array.as_ref()).ok()
}

/// `predicate` with `NOT` (when `negate`, of the whole) pushed down to its leaves: a
/// comparison's negation is the opposite comparison, since `NOT (a < 5)` is true exactly
/// where `a >= 5` is (both are unknown where `a` is null). A `NOT` that cannot be pushed
/// down (of a boolean literal, or a comparison of two columns) becomes a value the
/// statistics never rule out.
fn pushed_down(predicate: &Predicate, negate: bool) -> Predicate {
    let never_ruled_out = || Predicate::Value(Operand::literal(true));
    match (predicate, negate) {
        (Predicate::Not(inner), _) => pushed_down(inner, !negate),
        (Predicate::And(l, r), false) => pushed_down(l, false).and(pushed_down(r, false)),
        (Predicate::And(l, r), true) => pushed_down(l, true).or(pushed_down(r, true)),
        (Predicate::Or(l, r), false) => pushed_down(l, false).or(pushed_down(r, false)),
        (Predicate::Or(l, r), true) => pushed_down(l, true).and(pushed_down(r, true)),
        (Predicate::IsNull(o), true) => Predicate::IsNotNull(o.clone()),
        (Predicate::IsNotNull(o), true) => Predicate::IsNull(o.clone()),
        (Predicate::Compare(op, l, r), true) => {
            let opposite = match op {
                Comparison::Eq => Comparison::NotEq,
                Comparison::NotEq => Comparison::Eq,
                Comparison::Lt => Comparison::GtEq,
                Comparison::LtEq => Comparison::Gt,
                Comparison::Gt => Comparison::LtEq,
                Comparison::GtEq => Comparison::Lt,
                Comparison::Distinct => Comparison::NotDistinct,
                Comparison::NotDistinct => Comparison::Distinct,
            };
            Predicate::Compare(opposite, l.clone(), r.clone())
        }
        (Predicate::Value(Operand::Column(c)), true) => Predicate::compare(
            Operand::Column(c.clone()),
            Comparison::Eq,
            Operand::literal(false),
        ),
        (Predicate::Value(Operand::Literal(_)), true) => never_ruled_out(),
        (leaf, false) => leaf.clone(),
    }
}

/// For each of `units` units, whether `predicate` (pushed down) may be true of a row of it,
/// given each column's bounds from `bounds`.
fn may_match(
    predicate: &Predicate,
    units: usize,
    bounds: &dyn Fn(&str) -> Option<Bounds>,
) -> Vec<bool> {
    let all = || vec![true; units];
    match predicate {
        Predicate::And(l, r) => {
            let (l, r) = (may_match(l, units, bounds), may_match(r, units, bounds));
            l.into_iter().zip(r).map(|(l, r)| l && r).collect()
        }
        Predicate::Or(l, r) => {
            let (l, r) = (may_match(l, units, bounds), may_match(r, units, bounds));
            l.into_iter().zip(r).map(|(l, r)| l || r).collect()
        }
        leaf => match leaf_bounds(leaf, bounds) {
            // Unknown (null) is "may".
            Some(result) if result.len() == units => {
                result.iter().map(|may| may.unwrap_or(true)).collect()
            }
            _ => all(),
        },
    }
}

/// Whether each unit may hold a row where `leaf` is true (null: unknown).
fn leaf_bounds(leaf: &Predicate, bounds: &dyn Fn(&str) -> Option<Bounds>) -> Option<BooleanArray> {
    match leaf {
        Predicate::IsNull(Operand::Column(c)) => bounds(c)?.any_null(),
        Predicate::IsNotNull(Operand::Column(c)) => bounds(c)?.not_all_null(),
        Predicate::Value(Operand::Column(c)) => {
            alkaid_compute::eq(&bounds(c)?.maxes(), &Scalar::from(true)).ok()
        }
        Predicate::Compare(op, Operand::Column(c), Operand::Literal(v)) => {
            compare(*op, c, v, bounds)
        }
        Predicate::Compare(op, Operand::Literal(v), Operand::Column(c)) => {
            compare(op.flipped(), c, v, bounds)
        }
        _ => None,
    }
}

/// Whether each unit may hold a row where `column op value`.
fn compare(
    op: Comparison,
    column: &str,
    value: &Scalar,
    bounds: &dyn Fn(&str) -> Option<Bounds>,
) -> Option<BooleanArray> {
    let b = bounds(column)?;
    if value.is_null() {
        // Nothing compares with null; only the null-aware comparisons can hold.
        return match op {
            Comparison::Distinct => b.not_all_null(),
            Comparison::NotDistinct => b.any_null(),
            _ => Some(BooleanArray::from(vec![false; b.mins.len()])),
        };
    }
    let (mins, maxes) = (&b.mins as &dyn Datum, b.maxes());
    let value = value as &dyn Datum;
    let and = |l: BooleanArray, r: BooleanArray| alkaid_compute::and_kleene(&l, &r).ok();
    let or = |l: BooleanArray, r: BooleanArray| alkaid_compute::or_kleene(&l, &r).ok();
    let cmp = |op: Comparison, l: &dyn Datum, r: &dyn Datum| op.apply(l, r).ok();
    match op {
        Comparison::Eq | Comparison::NotDistinct => and(
            cmp(Comparison::LtEq, mins, value)?,
            cmp(Comparison::GtEq, &maxes, value)?,
        ),
        Comparison::Lt => cmp(Comparison::Lt, mins, value),
        Comparison::LtEq => cmp(Comparison::LtEq, mins, value),
        Comparison::Gt => cmp(Comparison::Gt, &maxes, value),
        Comparison::GtEq => cmp(Comparison::GtEq, &maxes, value),
        // Some value other than `value` is there unless every value is `value`.
        Comparison::NotEq => or(
            cmp(Comparison::NotEq, mins, value)?,
            cmp(Comparison::NotEq, &maxes, value)?,
        ),
        Comparison::Distinct => or(
            or(
                cmp(Comparison::NotEq, mins, value)?,
                cmp(Comparison::NotEq, &maxes, value)?,
            )?,
            b.any_null()?,
        ),
    }
}

impl Bounds {
    /// Whether each unit holds a null (unknown where the count is).
    fn any_null(&self) -> Option<BooleanArray> {
        alkaid_compute::gt(&self.null_counts, &Scalar::from(0u64)).ok()
    }

    /// Whether each unit holds a value that is not null.
    fn not_all_null(&self) -> Option<BooleanArray> {
        alkaid_compute::lt(&self.null_counts, &self.row_counts).ok()
    }

    /// The maxima, or unknowns for a float column (NaN is above every maximum).
    fn maxes(&self) -> ArrayRef {
        match self.mins.data_type() {
            // Null compares with anything, and every comparison with it is unknown.
            DataType::Float16 | DataType::Float32 | DataType::Float64 => {
                Arc::new(NullArray::new(self.maxes.len()))
            }
            _ => Arc::clone(&self.maxes),
        }
    }
}
