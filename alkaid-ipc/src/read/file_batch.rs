//! A file's batches and row counts, as steps of byte ranges: a batch's metadata and body,
//! or with a projection its metadata and then only the selected buffers' ranges; row
//! counts from the metadata alone.

use std::ops::Range;

use alkaid_array::RecordBatch;
use alkaid_buffer::Buffer;
use alkaid_schema::Metadata;

use super::body_parts::{Body, merge_ranges};
use super::file_decoder::{Block, Fetch, FileDecoder, Framed, Step};
use super::state::{Decoded, parse_message};
use crate::error::{IpcError, Result};

/// The part of a batch a row range covers: (batch, first row in it, rows).
pub type RowPart = (usize, usize, usize);

/// How many batches' metadata one step of row counting fetches at most.
const ROW_COUNT_WINDOW: usize = 16;

impl FileDecoder {
    /// Reads batch `index` and the custom metadata of its message, after the prelude if it
    /// has not run yet.
    ///
    /// # Errors
    /// If `index` is out of range.
    pub fn read_batch(&mut self, index: usize) -> Result<Step<(RecordBatch, Metadata)>> {
        let block = self.block(index)?;
        self.read_prelude()?.and_then(
            self,
            move |decoder, ()| Ok(decoder.batch_step(index, block)),
        )
    }

    fn batch_step(&mut self, index: usize, block: Block) -> Step<(RecordBatch, Metadata)> {
        let in_batch = move |e: IpcError| e.context(format!("batch {index}"));
        if !self.state.projects() {
            let ranges = vec![block.metadata(), block.body()];
            return Step::Fetch(Fetch::new(ranges, move |decoder, mut fetched| {
                let body = Body::whole(fetched.pop().expect("two ranges"));
                let framed = Framed::parse(fetched.pop().expect("two ranges"), decoder.options())
                    .map_err(in_batch)?;
                decoder.decode_batch(index, &framed, body).map(Step::Done)
            }));
        }
        Step::Fetch(Fetch::new(
            vec![block.metadata()],
            move |decoder, mut fetched| {
                let framed = Framed::parse(fetched.pop().expect("one range"), decoder.options())
                    .map_err(in_batch)?;
                let Some(needed) = decoder
                    .state
                    .needed_ranges(framed.flatbuffer())
                    .map_err(in_batch)?
                else {
                    return Ok(Step::Fetch(Fetch::new(
                        vec![block.body()],
                        move |decoder, mut fetched| {
                            let body = Body::whole(fetched.pop().expect("one range"));
                            decoder.decode_batch(index, &framed, body).map(Step::Done)
                        },
                    )));
                };
                let parts = merge_ranges(needed, decoder.state.options.fetch_gap);
                let ranges = parts
                    .iter()
                    .map(|r| block.body_start() + r.start as u64..block.body_start() + r.end as u64)
                    .collect();
                Ok(Step::Fetch(Fetch::new(ranges, move |decoder, fetched| {
                    let parts = parts.iter().map(|r| r.start).zip(fetched).collect();
                    let body = Body::from_parts(block.body_len, parts);
                    decoder.decode_batch(index, &framed, body).map(Step::Done)
                })))
            },
        ))
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
