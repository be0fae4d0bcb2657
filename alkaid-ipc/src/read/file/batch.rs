//! A file's batches and row counts, as steps of byte ranges: a batch's metadata and body,
//! or with a projection its metadata and then only the selected buffers' ranges; row
//! counts from the metadata alone.

use std::ops::Range;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_schema::Metadata;

use crate::error::{IpcError, Result};
use crate::read::body::parts::{Body, merge_ranges};
use crate::read::file::decoder::{Block, Fetch, FileDecoder, Framed, Step, check_fetched};
use crate::read::state::{Decoded, parse_message};

/// The part of a batch a row range covers: (batch, first row in it, rows).
pub type RowPart = (usize, usize, usize);

/// The byte ranges of one batch, and how they go together once fetched; see
/// [`FileDecoder::plan_batch`].
#[derive(Debug)]
pub struct BatchPlan {
    index: usize,
    block: Block,
    layout: Layout,
    ranges: Vec<Range<u64>>,
}

impl BatchPlan {
    /// The batch's index in the file.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The byte ranges to fetch, each inside the file; an empty range is answered with an
    /// empty buffer, without asking the source.
    pub fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }
}

/// What a batch plan's ranges are.
#[derive(Debug)]
enum Layout {
    /// The framed metadata, then the whole body.
    Whole,
    /// The metadata was read: the whole body.
    Body(Framed),
    /// The metadata was read: parts of the body, starting at these offsets in it.
    Parts(Framed, Vec<usize>),
}

/// How many batches' metadata one step of row counting fetches at most.
const ROW_COUNT_WINDOW: usize = 16;

impl FileDecoder {
    /// Reads batch `index` and the custom metadata of its message, after the prelude if it
    /// has not run yet: [`plan_batch`](Self::plan_batch), then its ranges, then
    /// [`decode_planned`](Self::decode_planned).
    ///
    /// # Errors
    /// If `index` is out of range.
    pub fn read_batch(&mut self, index: usize) -> Result<Step<(RecordBatch, Metadata)>> {
        self.plan_batch(index)?.and_then(self, |_, plan| {
            let ranges = plan.ranges.clone();
            Ok(Step::Fetch(Fetch::new(ranges, move |decoder, fetched| {
                decoder.decode_planned(plan, fetched).map(Step::Done)
            })))
        })
    }

    /// The byte ranges batch `index` needs, found without reading its body (after the
    /// prelude if it has not run yet): its metadata and body, or with a projection, once
    /// its metadata is read, the selected buffers' ranges. A reader can fetch the ranges
    /// of several batches ahead and decode each later, holding only their bytes.
    ///
    /// # Errors
    /// If `index` is out of range.
    pub fn plan_batch(&mut self, index: usize) -> Result<Step<BatchPlan>> {
        let block = self.block(index)?;
        self.read_prelude()?
            .and_then(self, move |decoder, ()| Ok(decoder.plan_step(index, block)))
    }

    fn plan_step(&mut self, index: usize, block: Block) -> Step<BatchPlan> {
        if !self.state.projects() {
            return Step::Done(BatchPlan {
                index,
                block,
                layout: Layout::Whole,
                ranges: vec![block.metadata(), block.body()],
            });
        }
        Step::Fetch(Fetch::new(
            vec![block.metadata()],
            move |decoder, mut fetched| {
                let in_batch = |e: IpcError| e.context(format!("batch {index}"));
                let framed = Framed::parse(fetched.pop().expect("one range"), decoder.options())
                    .map_err(in_batch)?;
                let needed = decoder
                    .state
                    .needed_ranges(framed.flatbuffer())
                    .map_err(in_batch)?;
                let (layout, ranges) = match needed {
                    None => (Layout::Body(framed), vec![block.body()]),
                    Some(needed) => {
                        let parts = merge_ranges(needed, decoder.state.options.fetch_gap);
                        let start = block.body_start();
                        let ranges = parts
                            .iter()
                            .map(|r| start + r.start as u64..start + r.end as u64)
                            .collect();
                        let starts = parts.iter().map(|r| r.start).collect();
                        (Layout::Parts(framed, starts), ranges)
                    }
                };
                Ok(Step::Done(BatchPlan {
                    index,
                    block,
                    layout,
                    ranges,
                }))
            },
        ))
    }

    /// Decodes the batch `plan` is for from `fetched`, the bytes of its ranges in order.
    ///
    /// # Errors
    /// If the bytes are not those of the plan's ranges, or the batch is invalid.
    pub fn decode_planned(
        &mut self,
        plan: BatchPlan,
        fetched: Vec<Buffer>,
    ) -> Result<(RecordBatch, Metadata)> {
        check_fetched(&plan.ranges, &fetched)?;
        let BatchPlan {
            index,
            block,
            layout,
            ..
        } = plan;
        let mut fetched = fetched.into_iter();
        let mut next = || fetched.next().expect("checked against the ranges");
        let (framed, body) = match layout {
            Layout::Whole => {
                let framed = Framed::parse(next(), self.options())
                    .map_err(|e| e.context(format!("batch {index}")))?;
                (framed, Body::whole(next()))
            }
            Layout::Body(framed) => (framed, Body::whole(next())),
            Layout::Parts(framed, starts) => {
                let parts = starts.into_iter().map(|start| (start, next())).collect();
                (framed, Body::from_parts(block.body_len, parts))
            }
        };
        self.decode_batch(index, &framed, body)
    }

    fn decode_batch(
        &mut self,
        index: usize,
        framed: &Framed,
        body: Body,
    ) -> Result<(RecordBatch, Metadata)> {
        match self
            .state
            .decode_body(framed.flatbuffer(), body)
            .map_err(|e| e.context(format!("batch {index}")))?
        {
            Decoded::Batch(batch, metadata) => Ok((batch, metadata)),
            _ => Err(IpcError::malformed(format!(
                "block of batch {index} is not a record batch"
            ))),
        }
    }

    /// The number of rows of batch `index`, from its metadata alone (its body is not
    /// read); kept for later calls.
    ///
    /// # Errors
    /// If `index` is out of range.
    pub fn batch_rows(&mut self, index: usize) -> Result<Step<usize>> {
        self.count_rows(index..index + 1)?
            .and_then(self, move |decoder, ()| {
                Ok(Step::Done(decoder.rows[index].expect("just counted")))
            })
    }

    /// Reads the row counts of `batches` not known yet, in one step.
    fn count_rows(&mut self, batches: Range<usize>) -> Result<Step<()>> {
        let unknown: Vec<usize> = batches.filter(|&i| self.rows[i].is_none()).collect();
        if unknown.is_empty() {
            return Ok(Step::Done(()));
        }
        let ranges = unknown
            .iter()
            .map(|&i| self.block(i).map(|b| b.metadata()))
            .collect::<Result<_>>()?;
        Ok(Step::Fetch(Fetch::new(ranges, move |decoder, fetched| {
            for (index, bytes) in unknown.into_iter().zip(fetched) {
                decoder.rows[index] = Some(
                    decoder
                        .rows_in(bytes)
                        .map_err(|e| e.context(format!("batch {index}")))?,
                );
            }
            Ok(Step::Done(()))
        })))
    }

    /// The row count a batch's framed metadata declares.
    fn rows_in(&self, bytes: Buffer) -> Result<usize> {
        let framed = Framed::parse(bytes, &self.state.options)?;
        let message = parse_message(framed.flatbuffer(), &self.state.options)?;
        let length = message
            .header_as_record_batch()
            .ok_or_else(|| IpcError::malformed("its block is not a record batch"))?
            .length();
        usize::try_from(length)
            .map_err(|_| IpcError::malformed(format!("a length of {length} rows")))
    }

    /// The batches that hold rows `rows` of the file, counted across its batches, and
    /// each one's part of the range. Finding them reads the metadata of the batches up to
    /// the range's end (up to 16 batches a step), never a body.
    ///
    /// # Errors
    /// If the range is reversed.
    pub fn plan_rows(&mut self, rows: Range<usize>) -> Result<Step<Vec<RowPart>>> {
        if rows.start > rows.end {
            return Err(IpcError::invalid_argument(format!(
                "rows {}..{}: the range is reversed",
                rows.start, rows.end
            )));
        }
        self.plan_rows_from(rows, 0, 0, Vec::new())
    }

    /// [`plan_rows`](Self::plan_rows) from batch `index`, which starts at `first_row`.
    fn plan_rows_from(
        &mut self,
        rows: Range<usize>,
        mut index: usize,
        mut first_row: usize,
        mut parts: Vec<RowPart>,
    ) -> Result<Step<Vec<RowPart>>> {
        while index < self.batches.len() && first_row < rows.end {
            let Some(count) = self.rows[index] else {
                let window = index..(index + ROW_COUNT_WINDOW).min(self.batches.len());
                return self.count_rows(window)?.and_then(self, move |decoder, ()| {
                    decoder.plan_rows_from(rows, index, first_row, parts)
                });
            };
            let last_row = first_row.saturating_add(count);
            let (from, to) = (rows.start.max(first_row), rows.end.min(last_row));
            if from < to {
                parts.push((index, from - first_row, to - from));
            }
            first_row = last_row;
            index += 1;
        }
        if rows.end > first_row {
            return Err(IpcError::invalid_argument(format!(
                "rows {}..{} of a file of {first_row} rows",
                rows.start, rows.end
            )));
        }
        Ok(Step::Done(parts))
    }
}
