//! Selecting batches and rows of a file: a range of batches to iterate, and a range of
//! rows, read as the batches that cover it, sliced to it. Row counts come from each
//! batch's metadata, read without its body; only the covering batches' bodies are read.

use std::ops::Range;

use alkaid_array::RecordBatch;

use crate::error::Result;
use crate::read::file::reader::{ByteSource, FileReader};

impl<S: ByteSource> FileReader<S> {
    /// Makes iteration yield batches `range` (and then stop), whatever was read before.
    ///
    /// # Errors
    /// If the range is reversed or ends past the last batch.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use alkaid_array::{ArrayRef, Int32Array, RecordBatch};
    /// # use alkaid_buffer::Buffer;
    /// # use alkaid_ipc::{FileReader, FileWriter, WriteOptions};
    /// # use alkaid_schema::{DataType, Field, Schema};
    /// # let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
    /// # let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default())?;
    /// # for start in [0, 10, 20, 30] {
    /// #     let column: ArrayRef = Arc::new(Int32Array::from((start..start + 10).collect::<Vec<i32>>()));
    /// #     writer.write(&RecordBatch::try_new(schema.clone(), vec![column])?)?;
    /// # }
    /// # let bytes = Buffer::from(writer.into_inner()?);
    /// // A file of four batches of ten rows.
    /// let mut reader = FileReader::from_buffer(bytes)?;
    /// reader.select_batches(1..3)?;
    /// assert_eq!(reader.by_ref().count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn select_batches(&mut self, range: Range<usize>) -> Result<()> {
        self.decoder.check_batch_range(&range)?;
        (self.next, self.end) = (range.start, range.end);
        Ok(())
    }

    /// The number of rows of batch `index`, from its metadata alone (its body is not
    /// read); kept for later calls.
    ///
    /// # Errors
    /// If `index` is out of range or the batch's metadata is invalid.
    pub fn batch_rows(&mut self, index: usize) -> Result<usize> {
        let step = self.decoder.batch_rows(index)?;
        self.run(step)
    }

    /// Rows `rows` of the file, counted across its batches: the batches that hold them,
    /// each sliced to its part of the range (zero-copy), read one at a time as the
    /// iterator is advanced. Finding them reads the metadata of the batches up to the
    /// range's end, never a body outside it.
    ///
    /// # Errors
    /// If the range is reversed or ends past the file's rows (a batch's metadata may be
    /// invalid too); the iterator's items fail as [`batch`](Self::batch) does.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use alkaid_array::{ArrayRef, AsArray, Int32Array, RecordBatch, types::Int32Type};
    /// # use alkaid_buffer::Buffer;
    /// # use alkaid_ipc::{FileReader, FileWriter, WriteOptions};
    /// # use alkaid_schema::{DataType, Field, Schema};
    /// # let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]));
    /// # let mut writer = FileWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default())?;
    /// # for start in [0, 10, 20, 30] {
    /// #     let column: ArrayRef = Arc::new(Int32Array::from((start..start + 10).collect::<Vec<i32>>()));
    /// #     writer.write(&RecordBatch::try_new(schema.clone(), vec![column])?)?;
    /// # }
    /// # let bytes = Buffer::from(writer.into_inner()?);
    /// // Four batches of ten rows, holding 0 to 39.
    /// let mut reader = FileReader::from_buffer(bytes)?;
    /// let parts: Vec<RecordBatch> = reader.read_rows(15..32)?.collect::<Result<_, _>>()?;
    /// let sizes: Vec<usize> = parts.iter().map(|b| b.num_rows()).collect();
    /// assert_eq!(sizes, [5, 10, 2]);
    /// assert_eq!(parts[0].column(0).as_primitive::<Int32Type>().value(0), 15);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_rows(
        &mut self,
        rows: Range<usize>,
    ) -> Result<impl Iterator<Item = Result<RecordBatch>> + '_> {
        let step = self.decoder.plan_rows(rows)?;
        let parts = self.run(step)?;
        Ok(parts
            .into_iter()
            .map(move |(index, offset, len)| Ok(self.batch(index)?.slice(offset, len))))
    }
}
