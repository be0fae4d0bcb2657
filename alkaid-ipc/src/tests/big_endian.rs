//! Big-endian input, made by hand: a schema that declares big-endian byte order and a batch
//! whose every integer is written with `to_be_bytes`. The reader must swap each one (and
//! only the integers: text, inline view bytes and view prefixes are bytes).

use std::sync::Arc;

use alkaid_array::{
    ArrayRef, BinaryViewArray, Decimal128Array, Float64Array, GenericListBuilder, Int32Array,
    IntervalDayTimeArray, PrimitiveBuilder, RecordBatch, StringArray, StringViewArray,
};
use alkaid_buffer::Buffer;
use alkaid_buffer::native::IntervalDayTime;
use alkaid_data::equal;
use alkaid_schema::{DataType, Field, Metadata, Schema};
use flatbuffers::FlatBufferBuilder;

use crate::dictionary::DictionaryIds;
use crate::fb;
use crate::schema::{SchemaEncoding, encode_schema_as};
use crate::write::encode::Encoded;
use crate::write::message::{Body, finish_message, record_batch_table, write_message};
use crate::{Compression, StreamReader, WriteOptions};

fn be(values: &[i64], width: usize) -> Buffer {
    let mut out = Vec::new();
    for v in values {
        out.extend_from_slice(&v.to_be_bytes()[8 - width..]);
    }
    Buffer::from(out)
}

fn view(value: &[u8], offset: i32) -> Vec<u8> {
    let mut out = (value.len() as i32).to_be_bytes().to_vec();
    if value.len() <= 12 {
        out.extend_from_slice(value);
        out.resize(16, 0);
    } else {
        out.extend_from_slice(&value[..4]);
        out.extend_from_slice(&0i32.to_be_bytes());
        out.extend_from_slice(&offset.to_be_bytes());
    }
    out
}

fn expected() -> RecordBatch {
    let mut lists = GenericListBuilder::<i32, _>::new(PrimitiveBuilder::<
        alkaid_array::types::Int16Type,
    >::with_capacity(3));
    lists.values().append_value(1);
    lists.values().append_value(2);
    lists.append(true);
    lists.values().append_value(-3);
    lists.append(true);
    let long = "a string longer than 12";
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![1, -2])),
        Arc::new(Float64Array::from(vec![1.5, -0.25])),
        Arc::new(StringArray::from(vec!["hi", "there"])),
        Arc::new(IntervalDayTimeArray::from(vec![
            IntervalDayTime::new(1, 1000),
            IntervalDayTime::new(-3, 5),
        ])),
        Arc::new(
            Decimal128Array::from(vec![12345i128, -1])
                .with_data_type(DataType::decimal(128, 10, 2).unwrap())
                .unwrap(),
        ),
        Arc::new(lists.finish().unwrap()),
        Arc::new(StringViewArray::from_iter_values(["short", long])),
        Arc::new(BinaryViewArray::from_iter_values([
            long.as_bytes(),
            b"tiny",
        ])),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), false))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

fn big_endian_stream(batch: &RecordBatch) -> Vec<u8> {
    let long = b"a string longer than 12";
    let node = |len: i64| fb::FieldNode::new(len, 0);
    let empty = Buffer::empty;
    let buffers = vec![
        empty(),
        be(&[1, -2], 4),
        empty(),
        Buffer::from(
            [1.5f64.to_bits() as i64, (-0.25f64).to_bits() as i64]
                .iter()
                .flat_map(|v| v.to_be_bytes())
                .collect::<Vec<u8>>(),
        ),
        empty(),
        be(&[0, 2, 7], 4),
        Buffer::from(b"hithere".to_vec()),
        empty(),
        be(&[1, 1000, -3, 5], 4),
        empty(),
        Buffer::from(
            [12345i128, -1]
                .iter()
                .flat_map(|v| v.to_be_bytes())
                .collect::<Vec<u8>>(),
        ),
        empty(),
        be(&[0, 2, 3], 4),
        empty(),
        be(&[1, 2, -3], 2),
        empty(),
        Buffer::from([view(b"short", 0), view(long, 0)].concat()),
        Buffer::from(long.to_vec()),
        empty(),
        Buffer::from([view(long, 0), view(b"tiny", 0)].concat()),
        Buffer::from(long.to_vec()),
    ];
    let encoded = Encoded {
        nodes: vec![
            node(2),
            node(2),
            node(2),
            node(2),
            node(2),
            node(2),
            node(3),
            node(2),
            node(2),
        ],
        variadic_counts: vec![1, 1],
        ..Encoded::default()
    };
    let options = WriteOptions::default();
    let mut out = Vec::new();
    let mut fbb = FlatBufferBuilder::new();
    let ids = DictionaryIds::sequential(batch.schema());
    let schema = encode_schema_as(
        &mut fbb,
        batch.schema(),
        &ids,
        SchemaEncoding::default(),
        fb::Endianness::Big,
    );
    finish_message(
        &mut fbb,
        fb::MessageHeader::Schema,
        schema.as_union_value(),
        0,
        &Metadata::new(),
        alkaid_schema::extension::Namespace::Alkaid,
    );
    write_message(&mut out, fbb.finished_data(), None, 8).unwrap();
    let body = Body::new(buffers, &options, &mut Vec::new()).unwrap();
    let mut fbb = FlatBufferBuilder::new();
    let table = record_batch_table(
        &mut fbb,
        2,
        &encoded.nodes,
        &encoded.variadic_counts,
        &body,
        Compression::None,
    );
    finish_message(
        &mut fbb,
        fb::MessageHeader::RecordBatch,
        table.as_union_value(),
        body.len(),
        &Metadata::new(),
        alkaid_schema::extension::Namespace::Alkaid,
    );
    write_message(&mut out, fbb.finished_data(), Some(&body), 8).unwrap();
    out
}

#[test]
fn big_endian_batches_read_in_native_order() {
    let batch = expected();
    let bytes = big_endian_stream(&batch);
    let read = StreamReader::try_new(&bytes[..])
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    for (c, column) in read.columns().iter().enumerate() {
        assert!(
            equal(&column.to_data(), &batch.column(c).to_data()),
            "column {c}: {:?}",
            column.to_data()
        );
    }
}
